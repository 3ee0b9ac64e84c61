"""The conversation kind declared: its options, how `conversation:builtin` and `acervo:DIR` build
it, and how a report's turns read back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.evaluation.kind import KindOptions, KindSpec, option
from harness.evaluation.kinds.conversation.results import TurnResult
from harness.evaluation.kinds.conversation.rules import TurnRulesName
from harness.evaluation.kinds.conversation.runner import ConversationKind
from harness.reports.document import RowText
from harness.suites.acervo import load_acervo
from harness.suites.resolve import load_conversation


@dataclass(frozen=True)
class ConversationOptions:
    turn_rules: TurnRulesName = field(
        default=TurnRulesName.AUTO,
        metadata=option(
            "Judge turns by: acervo-v0.5 (Acervo's test_benchmarks.py: its published numbers' rules), "
            "strict (every asserted check decides), auto (acervo-v0.5 for acervo: suites, else strict)."
        ),
    )


def build(suites: Sequence[str], common: KindOptions, own: ConversationOptions) -> ConversationKind:
    """`conversation:builtin` or `acervo:DIR` (a folder of turn files and fixture projects, or
    Acervo's repository root)."""
    (suite,) = suites
    prefix, _, rest = suite.partition(":")
    rules = own.turn_rules.rules(acervo_suite=prefix == "acervo")
    if prefix == "conversation":
        return ConversationKind.for_run(load_conversation(rest), common, rules)
    folder, _, projects = rest.partition(":")
    if not folder:
        raise HarnessError("--suite acervo:DIR: name the folder of turn files and fixture projects")
    loaded = load_acervo(
        Path(folder).expanduser(), name=suite, projects=Path(projects).expanduser() if projects else None
    )
    return ConversationKind.for_run(loaded, common, rules)


def result_from_json(data: Mapping[str, Any]) -> TurnResult:
    """A report's turn read back. Reports written before turn rules have no `effective`: they were
    judged strictly, where a turn holds in its category exactly when it passed."""
    if "effective" not in data:
        data = {**data, "effective": bool(data.get("passed", False))}
    return TurnResult.from_json(data)


SPEC = KindSpec(
    name="conversation",
    title="Conversation turns",
    suite_help="conversation:builtin, acervo:DIR",
    build=build,
    options=ConversationOptions,
    result=result_from_json,
    builtin="conversation:builtin",
    results_key="turns",
    prefixes=("conversation", "acervo"),
    honours=frozenset({"fail_under"}),
    mode_major=True,
    main=("pass_rate",),
    row=lambda r: RowText(f"{r.scenario}#{r.turn}", r.category, r.user),
    rule="a component (intent, activation, budget, content) failed (its reasons say which)",
    rules=lambda kind, _reference: kind.rules.name,
)
