"""Two reports of one kind, item by item: what regressed, what was fixed, what else changed, as one
HTML page (`harness report diff BASE NEW`): a baseline run against today's, or one backend against
another. Items are matched by id and mode; verdicts are each report's own (`rows.py`)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from harness.errors import HarnessError
from harness.reports.html.page import GENERATOR, environment, inline
from harness.reports.html.rows import FAIL, PASS, Row, rows

ORDER = ("regressed", "fixed", "changed", "removed", "added")
"""Statuses in the order the page lists them; `same` items are only counted."""


@dataclass(frozen=True)
class Change:
    key: tuple[str, str]
    before: Row | None
    after: Row | None

    @property
    def status(self) -> str:
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        was, now = self.before.verdict, self.after.verdict
        if was == now:
            return "same"
        if was == PASS and now in (FAIL, "error"):
            return "regressed"
        if now == PASS and was in (FAIL, "error"):
            return "fixed"
        return "changed"

    @property
    def category(self) -> str:
        return (self.after or self.before).category  # type: ignore[union-attr]  # one side is always there


def changes(base: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every item of either report, matched by (id, mode), in the new report's order, then the removed."""
    base_spec, base_rows = rows(base)
    new_spec, new_rows = rows(new)
    if base_spec is None or new_spec is None or base_spec.kind != new_spec.kind:
        kinds = [spec.kind if spec else "unknown" for spec in (base_spec, new_spec)]
        raise HarnessError(f"report diff needs two reports of one kind, not {kinds[0]} and {kinds[1]}")
    before = {(r.id, r.mode): r for r in base_rows}
    after = {(r.id, r.mode): r for r in new_rows}
    keys = list(dict.fromkeys([*after, *before]))
    return [Change(key, before.get(key), after.get(key)) for key in keys]


def _evidence(row: Row | None) -> str:
    return "" if row is None else json.dumps(row.item, indent=1, ensure_ascii=False, default=str)


def render_diff(base: Mapping[str, Any], new: Mapping[str, Any], base_name: str, new_name: str) -> str:
    found = changes(base, new)
    counts = Counter(change.status for change in found)
    listed = sorted((c for c in found if c.status != "same"), key=lambda c: ORDER.index(c.status))
    env = environment()
    return env.get_template("diff.html.j2").render(
        generator=Markup(GENERATOR),
        base_name=base_name,
        new_name=new_name,
        counts=[(status, counts[status]) for status in (*ORDER, "same")],
        changes=[
            {
                "status": c.status,
                "id": c.key[0],
                "mode": c.key[1],
                "category": c.category,
                "before": c.before.verdict if c.before else "—",
                "after": c.after.verdict if c.after else "—",
                "reasons": [
                    (name, row.item.get("reasons") or [])
                    for name, row in ((base_name, c.before), (new_name, c.after))
                    if row is not None
                ],
                "items": [(base_name, _evidence(c.before)), (new_name, _evidence(c.after))],
            }
            for c in listed
        ],
        style=inline(env, "report.css"),
    )
