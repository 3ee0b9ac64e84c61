"""Mnemonic-style lifecycle scenario JSON (peer-formats.md §3): direct and raw-event scenarios.

A file is `{source, label_values?, retrieval?: {max_results, k}, scenarios[]}`; a folder is every
`*.json` in it, in name order, scenario names unique across files. The built-in scenarios
(`cases/lifecycle/builtin/`) are written in the same format, with our additions: `duplicate_of`
on duplicates, `age_minutes`, and `concepts`/`minute` on raw events.

The upstream stress-test scenario leaves out both scores of its raw events; its generator
computes them from each event's position and label, so an event without them gets the
generator's values (and the suite says so in a warning) rather than a made-up default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.errors import CaseFileError
from harness.models.memory import Label
from harness.models.scenario import LifecycleSuite, Scenario
from harness.pipeline.lifecycle.rules import Fusion, LifecycleRules
from harness.suites.jsonfile import read_json, validate
from harness.suites.mnemonic_go import read_scenarios_go


class _Retrieval(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    max_results: int = Field(default=5, ge=1, le=100)
    k: int = Field(default=5, ge=1, le=100)


class _Root(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    source: str | None = None
    label_values: tuple[Label, ...] | None = None
    retrieval: _Retrieval = _Retrieval()
    scenarios: list[Any] = Field(min_length=1)


def generator_scores(position: int, label: Label) -> tuple[float, float]:
    """(heuristic_score, initial_salience) as the upstream generator assigns them to an event at
    1-based `position`: noise 0.05 + 0.03 (i mod 5) and 0.1 + 0.05 (i mod 3), signal 0.85 and 0.8."""
    if label is Label.SIGNAL:
        return 0.85, 0.8
    return round(0.05 + 0.03 * (position % 5), 10), round(0.1 + 0.05 * (position % 3), 10)


def _fill_scores(raw: Any) -> tuple[Any, int]:
    """The scenario with generator scores on raw events that lack them, and how many were filled."""
    if not isinstance(raw, dict) or not isinstance(raw.get("raw_events"), list):
        return raw, 0
    events, filled = [], 0
    for position, event in enumerate(raw["raw_events"], 1):
        if isinstance(event, dict) and event.get("label") in {x.value for x in Label}:
            heuristic, salience = generator_scores(position, Label(event["label"]))
            if "heuristic_score" not in event or "initial_salience" not in event:
                filled += 1
                event = {"heuristic_score": heuristic, "initial_salience": salience, **event}
        events.append(event)
    return {**raw, "raw_events": events}, filled


GO_SCENARIOS = "scenarios.go"
"""Mnemonic's own file of direct scenarios (cmd/benchmark-quality/), read as published."""
GO_PIPELINE = "pipeline_scenarios.go"


def _load_file(path: Path) -> tuple[list[Scenario], _Retrieval, list[str]]:
    source = read_scenarios_go(path) if path.suffix == ".go" else read_json(path)
    root = validate(_Root, source, path)
    if root.retrieval.k != root.retrieval.max_results:
        raise CaseFileError(path, "retrieval.k must equal retrieval.max_results (every @k metric cuts at the results)")
    scenarios, warnings = [], []
    for position, raw in enumerate(root.scenarios):
        name = raw.get("name") if isinstance(raw, dict) else None
        filled_raw, filled = _fill_scores(raw)
        scenario = validate(Scenario, filled_raw, path, case_id=name, prefix="" if name else f"scenarios[{position}]")
        if filled:
            warnings.append(
                f"{path.name}: scenario {scenario.name!r}: {filled} raw events without scores got the generator's"
            )
        scenarios.append(scenario)
    return scenarios, root.retrieval, warnings


def load_mnemonic(path: Path, name: str | None = None) -> LifecycleSuite:
    """One Mnemonic-format file, or every `*.json` of a folder; Mnemonic's own `scenarios.go`,
    or the folder that holds it (its `cmd/benchmark-quality/`) when the folder has no JSON."""
    warnings: list[str] = []
    if path.is_dir():
        files = sorted(path.glob("*.json")) or [f for f in (path / GO_SCENARIOS,) if f.is_file()]
        if not files:
            raise CaseFileError(path, f"no *.json scenario files (nor {GO_SCENARIOS}) in this folder")
    else:
        files = [path]
    if files[0].suffix == ".go" and (files[0].parent / GO_PIPELINE).is_file():
        warnings.append(
            f"{GO_PIPELINE}: its raw-event scenarios are built by Go code and not read from it; "
            "convert them to the JSON format (peer-formats.md section 3.2) to run them"
        )
    scenarios: list[Scenario] = []
    limits: set[int] = set()
    for file in files:
        found, retrieval, notes = _load_file(file)
        scenarios += found
        warnings += notes
        limits.add(retrieval.max_results)
    if len(limits) > 1:
        raise CaseFileError(path, f"files disagree on retrieval.max_results: {sorted(limits)}")
    names = [s.name for s in scenarios]
    if repeated := sorted({n for n in names if names.count(n) > 1}):
        raise CaseFileError(path, f"scenario names repeated across files: {repeated}")
    return LifecycleSuite(
        name=name or f"mnemonic:{path}",
        scenarios=tuple(scenarios),
        max_results=limits.pop(),
        sources=tuple(files),
        warnings=tuple(warnings),
    )


def unjudged(suite: LifecycleSuite, rules: LifecycleRules) -> list[str]:
    """One line per field or scenario kind of an imported suite that the run cannot judge as
    Mnemonic's code does under `rules`, and why (the run's report and scorecard carry them)."""
    direct = [s for s in suite.scenarios if not s.raw]
    raw = [s for s in suite.scenarios if s.raw]
    memories = [m for s in direct for m in s.memories]
    edges = [a for s in direct for a in s.associations]
    lines = []
    if rules.fusion is Fusion.MNEMONIC:
        if raw:
            lines.append(
                f"raw-event scenarios ({len(raw)}): Mnemonic encodes raw events with its LLM agents (encoding, "
                "episoding); the harness's deterministic encoder runs instead, so their scores are not Mnemonic's"
            )
        if direct:
            lines += [
                "memories[].embedding: not carried (the JSON has none; the benchmark recomputes scenarios.go's); "
                "the run's model embeds summary + content, not Mnemonic's 128-d bag-of-words stub, so vector "
                "and hybrid scores differ by that embedder",
                "consolidation: Mnemonic's agent (x0.92 per cycle, then x0.95^(0.8 x access term), fading under "
                "0.3, archived under 0.1, LLM gist merges) is not modelled; the harness's cycles set states and "
                "salience",
                "phases: Mnemonic's -compare runs no baseline queries or access simulation before its cycles; the "
                "harness runs both (as Mnemonic's standard run does)",
            ]
    else:
        if any(m.concepts for m in memories):
            lines.append(
                f"memories[].concepts: not searched under the {rules.name} rules (Mnemonic's FTS5 index holds them)"
            )
        if any(a.activation_count != 1 for a in edges):
            lines.append(f"associations[].activation_count: not read under the {rules.name} rules")
    if duplicates := sum(1 for m in memories if m.label is Label.DUPLICATE):
        lines.append(
            f"label duplicate ({duplicates} memories): Mnemonic counts duplicates in no metric; "
            "dedup effectiveness is the harness's own measure"
        )
    return lines
