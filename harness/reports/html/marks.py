"""What an item's expectations say of the ids its page shows: expected (drawn as a hit where found)
or forbidden (drawn as must not surface, wherever it shows).

Read from the item's own fields, whatever its kind: `expected` and `gold` (and each level's `gold`)
hold what it expects, and what sits under a key saying *not* or *exclude* (`must_exclude`,
`must_not_surface`, `not_activate_kinds`) is forbidden. An expectation under a key that also names
a part of the item's result (a belief case's tiers: `relevant`, `pinned`, `open_questions`) marks
that part only: an id the pinned tier must exclude and the open questions must include is forbidden
among the pinned ids and expected among the open questions. Any other marks the whole item (the
noise a session turn must not surface)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

FORBIDDING = re.compile(r"(^|_)(not|exclude)(_|$)")
"""A key whose values must not be found."""
EXPECTING = ("expected", "gold")
"""The keys an item keeps its expectations under."""


def _strings(value: Any, forbidden: bool = False) -> Iterator[tuple[str, bool]]:
    """Every string under `value`, and whether a key above it forbids it."""
    if isinstance(value, str):
        yield value, forbidden
    elif isinstance(value, list | tuple):
        for each in value:
            yield from _strings(each, forbidden)
    elif isinstance(value, Mapping):
        for key, each in value.items():
            yield from _strings(each, forbidden or bool(FORBIDDING.search(str(key))))


def _result_keys(value: Any) -> Iterator[str]:
    """Every key of the item outside its expectations."""
    if isinstance(value, list | tuple):
        for each in value:
            yield from _result_keys(each)
    elif isinstance(value, Mapping):
        for key, each in value.items():
            if key not in EXPECTING:
                yield str(key)
                yield from _result_keys(each)


def _listed(marks: Mapping[str, set[str]]) -> dict[str, list[str]]:
    """The marks as the page's data holds them: sorted, an empty list left out (the page is compact)."""
    listed = {"hit": sorted(marks["hit"] - marks["forbidden"]), "forbidden": sorted(marks["forbidden"])}
    return {name: ids for name, ids in listed.items() if ids}


def marks(item: Mapping[str, Any]) -> dict[str, Any] | None:
    """`{"hit": ids, "forbidden": ids, "tiers": {part: {"hit": ids, "forbidden": ids}}}` (empty ones
    left out), each part's marks with the item's own; None for an item that expects nothing. An id
    both expected and forbidden in one place is forbidden."""
    whole: dict[str, set[str]] = {"hit": set(), "forbidden": set()}
    tiers: dict[str, dict[str, set[str]]] = {}
    parts = set(_result_keys(item))
    levels = item.get("levels")
    golds = (
        [level.get("gold") for level in levels.values() if isinstance(level, Mapping)]
        if isinstance(levels, Mapping)
        else []
    )
    expected = item.get("expected")
    scoped = expected if isinstance(expected, Mapping) else {}
    for key, value in scoped.items():
        if key in parts:
            into = tiers.setdefault(str(key), {"hit": set(), "forbidden": set()})
            for text, forbidden in _strings(value, bool(FORBIDDING.search(str(key)))):
                into["forbidden" if forbidden else "hit"].add(text)
    unscoped = {k: v for k, v in scoped.items() if k not in parts} if scoped else {"": expected}
    for text, forbidden in _strings({"expected": unscoped, "gold": [item.get("gold"), *golds]}):
        whole["forbidden" if forbidden else "hit"].add(text)
    if not any(whole.values()) and not tiers:
        return None
    scopes = {
        name: _listed({"hit": whole["hit"] | own["hit"], "forbidden": whole["forbidden"] | own["forbidden"]})
        for name, own in tiers.items()
    }
    return {**_listed(whole), **({"tiers": scopes} if scopes else {})}
