"""Every item of a report as one row of the page: its id, mode, backend, category, title and verdict,
read from the report's own fields, whatever its kind (old reports without an envelope too).

A verdict restates what the report already decided (a case's `passed`, a scenario's `grade`, a
task's missed symbols); the one kind without a pass/fail field, haystack questions, gets a stated
rule over the report's own per-question metric (`recall_all@K`), shown on the page beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Item = Mapping[str, Any]

PASS, FAIL, ERROR, SKIPPED = "pass", "fail", "error", "skipped"


@dataclass(frozen=True)
class Row:
    """One item as the page lists it; `item` is the report's record of it, shown whole when opened."""

    id: str
    mode: str
    backend: str
    category: str
    title: str
    verdict: str
    item: Item


@dataclass(frozen=True)
class RowSpec:
    """Where a kind's report keeps its items and how each one reads as a row."""

    kind: str
    key: str
    unit: str
    id: Callable[[Item], str]
    category: Callable[[Item], str]
    title: Callable[[Item], str]
    failed: Callable[[Item], bool]
    rule: str
    """What `fail` means for this kind, in words for the page."""


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _belief_id(item: Item) -> str:
    turn = item.get("turn")
    return f"{item.get('suite', '')}/{item.get('case_id', '')}" + ("" if turn is None else f"#{turn}")


def _top_k(metrics: Mapping[str, Any]) -> str | None:
    """The `recall_all@K` with the largest K a question's metrics hold."""
    ks = [int(m.group(1)) for name in metrics if (m := re.fullmatch(r"recall_all@(\d+)", name))]
    return f"recall_all@{max(ks)}" if ks else None


def _question_failed(item: Item) -> bool:
    levels = item.get("levels") or {}
    if not levels:
        return False
    metrics = next(iter(levels.values())).get("metrics") or {}
    name = _top_k(metrics)
    return name is not None and metrics[name] is not None and metrics[name] < 1


SPECS: dict[str, RowSpec] = {
    spec.kind: spec
    for spec in (
        RowSpec(
            "beliefs",
            "cases",
            "cases",
            _belief_id,
            lambda i: _text(i.get("category")),
            lambda i: _text(i.get("query")),
            lambda i: not i.get("passed"),
            "the case's assertions did not all hold (its reasons say which)",
        ),
        RowSpec(
            "haystack",
            "questions",
            "questions",
            lambda i: _text(i.get("id")),
            lambda i: _text(i.get("type")),
            lambda i: _text(i.get("question")),
            _question_failed,
            "not every gold item in the top K at the first level (recall_all@K < 1, K the largest reported)",
        ),
        RowSpec(
            "code-tasks",
            "results",
            "tasks",
            lambda i: _text(i.get("task_id")),
            lambda i: _text(i.get("category")),
            lambda i: _text(i.get("question")),
            lambda i: bool(i.get("missed")),
            "an expected symbol or file was missed (recall < 1)",
        ),
        RowSpec(
            "lifecycle",
            "results",
            "scenarios",
            lambda i: _text(i.get("scenario")),
            lambda i: "raw events" if i.get("raw") else "scenario",
            lambda i: "; ".join(_text(q.get("query")) for q in i.get("queries") or []),
            lambda i: i.get("grade") == "FAIL",
            "the scenario's grade is FAIL (a graded metric below its threshold)",
        ),
        RowSpec(
            "conversation",
            "turns",
            "turns",
            lambda i: f"{i.get('scenario', '')}#{i.get('turn', '')}",
            lambda i: _text(i.get("category")),
            lambda i: _text(i.get("user")),
            lambda i: not i.get("passed"),
            "a component (intent, activation, budget, content) failed (its reasons say which)",
        ),
    )
}


def kind_of(document: Mapping[str, Any]) -> str | None:
    """The report's kind: its envelope says so; an old report is known by where it keeps its items."""
    if document.get("kind") in SPECS:
        return str(document["kind"])
    if isinstance(document.get("questions"), list):
        return "haystack"
    if isinstance(document.get("turns"), list):
        return "conversation"
    if isinstance(document.get("cases"), list):
        return "beliefs"
    results = document.get("results")
    if isinstance(results, list) and results:
        return "code-tasks" if "task_id" in results[0] else "lifecycle" if "scenario" in results[0] else None
    return None


def verdict(spec: RowSpec, item: Item) -> str:
    """A skipped question (its `error` field says why it was left out) is no error."""
    if item.get("status") == "skipped":
        return SKIPPED
    if item.get("error"):
        return ERROR
    return FAIL if spec.failed(item) else PASS


def rows(document: Mapping[str, Any]) -> tuple[RowSpec | None, list[Row]]:
    """The report's kind and its items as rows (none for a report of no known kind)."""
    kind = kind_of(document)
    if kind is None:
        return None, []
    spec = SPECS[kind]
    items: Sequence[Item] = document.get(spec.key) or []
    backend = _text((document.get("backend") or {}).get("backend")) if isinstance(document.get("backend"), dict) else ""
    return spec, [
        Row(
            spec.id(item),
            _text(item.get("mode")),
            _text(item.get("backend")) or backend,
            spec.category(item),
            spec.title(item),
            verdict(spec, item),
            item,
        )
        for item in items
    ]
