"""Whose rules made a report's numbers: one record per report (`rules` in its envelope), so the
leaderboard, compare and baselines read one field whatever the kind.

Every ruleset a kind can run under is listed here with where its definitions come from: the
harness's own (source `harness`, no commit: the report's `git_commit` says which), or a peer's
project, by repository, files and the commit they were read at (docs/peer-rules.md). A name not
listed (a report from a newer harness) is recorded with an unknown source, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any

HARNESS = "harness"
"""The source of the harness's own rules."""
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class RulesRecord:
    name: str
    source: str
    """Where the definitions come from: `harness`, or a peer's repository and the files read."""
    commit: str | None
    """The peer's commit (or tag) they were read at; None for the harness's own."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _own(name: str) -> RulesRecord:
    return RulesRecord(name, HARNESS, None)


_PMB = "tenurehq/precisionMemBench"
_POPOTO = "tomcounsell/popoto tests/benchmarks (metrics/retrieval.py, scenarios/external_base.py, run_external.py)"

KNOWN: Mapping[str, RulesRecord] = MappingProxyType(
    {
        r.name: r
        for r in (
            _own("harness"),
            _own("system-provides-tiers"),
            _own("strict"),
            RulesRecord(
                "precisionmembench",
                f"{_PMB} src/adapters/baseAdapter.ts, src/retrieval.external.eval.test.ts, "
                "src/session-retrieval.external.eval.test.ts, src/utils/buildRetrievalReport.ts",
                "ec8347b358cce1987fb4eff2cebdc0fa46c5e23a",
            ),
            RulesRecord(
                "precisionmembench@2209e60",
                f"{_PMB} src/adapters/baseAdapter.ts",
                "2209e60a8effff88a82d81a76810b049082ea45f",
            ),
            RulesRecord(
                "precisionmembench-vector",
                f"{_PMB} src/adapters/vectorAdapter.ts, src/utils/beliefsReaderVector.ts",
                "63f19c1a95602f919398ea11464a702e8400d939",
            ),
            RulesRecord("popoto", _POPOTO, "5a4f711"),
            RulesRecord("popoto@pre-514", _POPOTO, "19bc96f"),
            RulesRecord("popoto@pre-438", _POPOTO, "273b491"),
            RulesRecord("mnemonic-8ecf3ab", "CalebisGross/mnemonic cmd/benchmark-quality", "8ecf3ab"),
            RulesRecord("nano-brain-1", "nano-step/nano-brain benchmarks/*/capability/runner.go", None),
            RulesRecord("nano-brain-2", "nano-step/nano-brain benchmarks/*/capability/runner.go", None),
            RulesRecord("acervo-v0.5", "sandyeveliz/acervo tests/integration/test_benchmarks.py", "v0.5"),
        )
    }
)
"""Every ruleset a kind runs under. nano-brain's runners were read without a recorded commit."""


def rules_record(name: str) -> RulesRecord:
    """The record of a ruleset by name (one not listed: its source unknown)."""
    return KNOWN.get(name) or RulesRecord(name, UNKNOWN, None)
