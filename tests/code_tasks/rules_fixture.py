"""An original code base and task file for the code-task rulesets' tests: a small Go shop
(billing, dispatch, a fan-out, a ledger at its root) and one task per rule, each written so that exactly
that rule decides its score. `EXPECTED` holds each task's (recall, fixed recall) under
nano-brain-2 and under the harness's rules, derived by hand from the rules (see each task's
`notes`); the agent pass runs only its identifier lookups, so no search result blurs a case."""

from __future__ import annotations

import json
from pathlib import Path

FILES = {
    "go.mod": "module example.com/shop\n\ngo 1.22\n",
    "ledger.go": (
        "package shop\n\n// Ledger keeps the books.\ntype Ledger struct{}\n\n"
        "// AlphaOne opens the books.\nfunc AlphaOne() {}\n\n// NinthThing closes them.\nfunc NinthThing() {}\n"
    ),
    "billing/handlers.go": (
        'package billing\n\nimport "net/http"\n\n'
        "// Routes registers the billing endpoints.\n"
        "func Routes(mux *http.ServeMux) {\n"
        '\tmux.HandleFunc("GET /invoices", ListInvoices)\n}\n\n'
        "// ListInvoices writes the invoice list.\n"
        "func ListInvoices(w http.ResponseWriter, r *http.Request) {\n"
        "\tw.Write([]byte(FormatTotal(3)))\n}\n"
    ),
    "billing/sum.go": (
        'package billing\n\nimport "strconv"\n\n'
        "func total(items []int) int {\n\tsum := 0\n\tfor _, i := range items {\n\t\tsum += i\n\t}\n\treturn sum\n}\n\n"
        "// FormatTotal renders a sum as text.\n"
        "func FormatTotal(n int) string {\n\treturn strconv.Itoa(total([]int{n}))\n}\n"
    ),
    "billing/store.go": (
        "package billing\n\n// InvoiceStore persists invoices.\ntype InvoiceStore struct{}\n\n"
        "// Save writes one invoice.\nfunc (s *InvoiceStore) Save() error {\n\treturn nil\n}\n"
    ),
    "dispatch/dispatch.go": (
        "package dispatch\n\n// Dispatch sends queued parcels.\n"
        "func Dispatch(parcels []string) int {\n\tretryBudget := 3\n"
        "\tfor range parcels {\n\t\tretryBudget--\n\t}\n\treturn retryBudget\n}\n"
    ),
    "fanout/fan.go": (
        'package fanout\n\nimport "net/http"\n\n'
        "// Routes registers the fan endpoint.\n"
        "func Routes(mux *http.ServeMux) {\n"
        '\tmux.HandleFunc("GET /fan", Fan)\n}\n\n'
        "// Fan calls nine helpers.\n"
        "func Fan(w http.ResponseWriter, r *http.Request) {\n"
        "\tzulu()\n\talpha()\n\tbravo()\n\tcharlie()\n\tdelta()\n\techo()\n\tfoxtrot()\n\tgolf()\n\thotel()\n}\n\n"
        + "".join(
            f"func {name}() {{}}\n\n"
            for name in ("zulu", "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
        )
    ),
}

NOTHING = "zzqx"
"""A query no record holds a word of: the task names a tool, so no category default applies."""

TASKS = [
    {
        "id": "snippet-credits-body",
        "category": "search-qa",
        "question": "How are queued parcels sent?",
        "tools": ["query"],
        "input": {"query": "dispatch sends queued parcels"},
        "expect_symbols": ["retryBudget"],
        "notes": "retryBudget is a local in Dispatch's body: only the search result's text (snippet_names) holds it",
    },
    {
        "id": "flow-gives-names-only",
        "category": "flow",
        "question": "What serves the invoice list?",
        "tools": ["flow"],
        "input": {"entry": "GET /invoices"},
        "expect_symbols": ["ListInvoices"],
        "expect_files": ["billing/handlers.go"],
        "notes": "the flow names ListInvoices; its file surfaces only when a flow gives paths (flow_paths)",
    },
    {
        "id": "flow-fans-out-eight",
        "category": "flow",
        "question": "Which helpers does the fan route reach?",
        "tools": ["flow"],
        "input": {"entry": "GET /fan"},
        "expect_symbols": ["zulu"],
        "notes": "Fan calls zulu first, but it is ninth by name: a flow capped at 8 callees (flow_fanout) misses it",
    },
    {
        "id": "impact-depth-as-served",
        "category": "impact",
        "question": "What breaks if the summing helper changes?",
        "tools": ["impact"],
        "input": {"node": "total", "max_depth": 4},
        "expect_symbols": ["ListInvoices"],
        "notes": "ListInvoices calls total through FormatTotal, 2 hops up: nano-brain's server walks 1 for a depth over 3",
    },
    {
        "id": "trace-lists-outside-calls",
        "category": "trace",
        "question": "What does it call downstream?",
        "tools": ["trace"],
        "input": {"node": "FormatTotal", "max_depth": 2},
        "expect_symbols": ["Itoa"],
        "notes": "strconv.Itoa is outside the project: a trace names it only with trace_externals",
    },
    {
        "id": "no-tools-no-category-default",
        "category": "symbol-lookup",
        "question": "Where are the books kept?",
        "input": {"query": "Ledger"},
        "expect_files": ["ledger.go"],
        "notes": "no tools named: the symbols lookup of input.query runs only with category_tools",
    },
    {
        "id": "dotted-lowercase-name",
        "category": "search-qa",
        "question": "What does billing.total compute?",
        "tools": ["query"],
        "input": {"query": NOTHING},
        "expect_files": ["billing/sum.go"],
        "notes": "billing.total has no capital nor _#:/: only the harness's identifier pass looks it up",
    },
    {
        "id": "agent-looks-up-the-type",
        "category": "search-qa",
        "question": "Which file holds InvoiceStore?",
        "tools": ["query"],
        "input": {"query": NOTHING},
        "expect_files": ["billing/store.go"],
        "notes": "only the agent pass (its InvoiceStore lookup) finds the file: recall 1, fixed recall 0",
    },
    {
        "id": "eight-lookups-at-most",
        "category": "multi-tool",
        "question": (
            "Compare AlphaOne, BetaTwo, GammaThree, DeltaFour, EpsilonFive, ZetaSix, EtaSeven, "
            "ThetaEight and NinthThing."
        ),
        "tools": ["query"],
        "input": {"query": NOTHING},
        "expect_symbols": ["AlphaOne", "NinthThing"],
        "notes": "NinthThing is the ninth identifier: looked up only without the default cap of 8",
    },
]

EXPECTED = {
    # task: ((recall, fixed) under nano-brain-2, (recall, fixed) under harness)
    "snippet-credits-body": ((1.0, 1.0), (0.0, 0.0)),
    "flow-gives-names-only": ((0.5, 0.5), (1.0, 1.0)),
    "flow-fans-out-eight": ((0.0, 0.0), (1.0, 1.0)),
    "impact-depth-as-served": ((0.0, 0.0), (1.0, 1.0)),
    "trace-lists-outside-calls": ((1.0, 1.0), (0.0, 0.0)),
    "no-tools-no-category-default": ((0.0, 0.0), (1.0, 1.0)),
    "dotted-lowercase-name": ((0.0, 0.0), (1.0, 0.0)),
    "agent-looks-up-the-type": ((1.0, 0.0), (1.0, 0.0)),
    "eight-lookups-at-most": ((0.5, 0.0), (1.0, 0.0)),
}


def write_shop(root: Path) -> Path:
    """The code base under `root/shop` and its task file; returns the task file."""
    for relative, text in FILES.items():
        path = root / "shop" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    task_file = root / "shop" / "benchmarks" / "capability" / "dataset.json"
    task_file.parent.mkdir(parents=True)
    agent = {"enabled": True, "tools": ["symbols_identifiers"]}
    task_file.write_text(json.dumps({"workspace": "shop", "version": 1, "agent": agent, "tasks": TASKS}))
    return task_file
