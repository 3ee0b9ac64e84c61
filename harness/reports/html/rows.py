"""Every item of a report as one row of the page: its id, mode, backend, category, title and verdict,
read from the report's own fields, whatever its kind.

A report says how its rows read in its envelope's `view` (what the kind's spec declares, written
by the runner: each row's id, category, title and whether the kind's judge failed it, and what
failing means in words), so a new kind's page lists its rows with nothing added here. A report
written before `view` (old reports without an envelope too) is read by where it keeps its items,
with each built-in kind's rows and verdicts as they were then (`BEFORE_VIEW`): a verdict restates
what the report decided (a case's `passed`, a scenario's `grade`, a task's missed symbols), and
haystack questions, without a pass/fail field, get a stated rule over `recall_all@K`.
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
    reasons: tuple[str, ...] = ()
    """Why the kind's judge failed it (its `failures`), as the report's `view` keeps them: none for a pass
    and for a report from before they were kept."""


@dataclass(frozen=True)
class Listing:
    """Where a report keeps its items, what one is called, and what `fail` means, in words for the page."""

    kind: str
    key: str
    unit: str
    rule: str


@dataclass(frozen=True)
class RowSpec:
    """How a report from before `view` reads: where its kind kept its items and how each reads as a row."""

    listing: Listing
    id: Callable[[Item], str]
    category: Callable[[Item], str]
    title: Callable[[Item], str]
    failed: Callable[[Item], bool]


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


BEFORE_VIEW: dict[str, RowSpec] = {
    spec.listing.kind: spec
    for spec in (
        RowSpec(
            Listing("beliefs", "cases", "cases", "the case's assertions did not all hold (its reasons say which)"),
            _belief_id,
            lambda i: _text(i.get("category")),
            lambda i: _text(i.get("query")),
            lambda i: not i.get("passed"),
        ),
        RowSpec(
            Listing(
                "haystack",
                "questions",
                "questions",
                "not every gold item in the top K at the first level (recall_all@K < 1, K the largest reported)",
            ),
            lambda i: _text(i.get("id")),
            lambda i: _text(i.get("type")),
            lambda i: _text(i.get("question")),
            _question_failed,
        ),
        RowSpec(
            Listing("code-tasks", "results", "tasks", "an expected symbol or file was missed (recall < 1)"),
            lambda i: _text(i.get("task_id")),
            lambda i: _text(i.get("category")),
            lambda i: _text(i.get("question")),
            lambda i: bool(i.get("missed")),
        ),
        RowSpec(
            Listing(
                "lifecycle",
                "results",
                "scenarios",
                "the scenario's grade is FAIL (a graded metric below its threshold)",
            ),
            lambda i: _text(i.get("scenario")),
            lambda i: "raw events" if i.get("raw") else "scenario",
            lambda i: "; ".join(_text(q.get("query")) for q in i.get("queries") or []),
            lambda i: i.get("grade") == "FAIL",
        ),
        RowSpec(
            Listing(
                "conversation",
                "turns",
                "turns",
                "a component (intent, activation, budget, content) failed (its reasons say which)",
            ),
            lambda i: f"{i.get('scenario', '')}#{i.get('turn', '')}",
            lambda i: _text(i.get("category")),
            lambda i: _text(i.get("user")),
            lambda i: not i.get("passed"),
        ),
    )
}
"""Per built-in kind, how its reports from before `view` read."""


def kind_of(document: Mapping[str, Any]) -> str | None:
    """The kind of a report from before `view`: its envelope says so; an old report is known by where it keeps its items."""
    if document.get("kind") in BEFORE_VIEW:
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


def verdict(item: Item, failed: bool) -> str:
    """A skipped question (its `error` field says why it was left out) is no error."""
    if item.get("status") == "skipped":
        return SKIPPED
    if item.get("error"):
        return ERROR
    return FAIL if failed else PASS


def rows(document: Mapping[str, Any]) -> tuple[Listing | None, list[Row]]:
    """Where the report keeps its items, and its items as rows (none for a report of no known kind)."""
    backend = _text((document.get("backend") or {}).get("backend")) if isinstance(document.get("backend"), dict) else ""
    view = document.get("view")
    items: Sequence[Item] = document.get(view["items"]) or [] if isinstance(view, dict) else []
    if isinstance(view, dict) and len(view["rows"]) == len(items):  # else edited since: read as before `view`
        listing = Listing(_text(document.get("kind")), view["items"], view["unit"], view["rule"])
        return listing, [
            Row(
                _text(row["id"]),
                _text(item.get("mode")),
                _text(item.get("backend")) or backend,
                _text(row["category"]),
                _text(row["title"]),
                verdict(item, bool(row["failed"])),
                item,
                tuple(str(reason) for reason in row.get("reasons") or ()),
            )
            for item, row in zip(items, view["rows"], strict=True)
        ]
    kind = kind_of(document)
    if kind is None:
        return None, []
    spec = BEFORE_VIEW[kind]
    items = document.get(spec.listing.key) or []
    return spec.listing, [
        Row(
            spec.id(item),
            _text(item.get("mode")),
            _text(item.get("backend")) or backend,
            spec.category(item),
            spec.title(item),
            verdict(item, spec.failed(item)),
            item,
        )
        for item in items
    ]
