"""The kind registry: one `KindSpec` per kind of case, declared in the kind's own module, and the
functions that turn a run's `--suite` arguments into kinds.

Belief suites (`builtin`, `tenure:DIR`, a suite folder) are the kind without a prefix: every
`--suite` that names no registered prefix is one, and they run together as one `BeliefKind`.
Every other kind claims its `--suite PREFIX:REST` formats in its spec; a kind with a `selector`
(an own option such as `--dataset`) runs alone, with that option's value as its suite. An
explicit list rather than entry points, as the backend registry: the order is stated and a kind
is found by reading one line. Tests that add a kind patch `SPECS` for their own duration; everything reads it on each call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.errors import HarnessError
from harness.evaluation.kind import CaseKind, KindOptions, KindSpec, default_options, options_json
from harness.evaluation.kinds import beliefs, code_tasks, conversation, haystack, lifecycle

SPECS: tuple[KindSpec[Any, Any], ...] = (
    beliefs.SPEC,
    haystack.SPEC,
    lifecycle.SPEC,
    conversation.SPEC,
    code_tasks.SPEC,
)

__all__ = ["SPECS", "KindOptions", "Planned", "builtin_suites", "kinds_for", "prefix_of", "selected", "spec", "spec_of"]


def spec(name: str) -> KindSpec[Any, Any]:
    found = next((s for s in SPECS if s.name == name), None)
    if found is None:
        raise HarnessError(f"unknown kind of case {name!r} (one of: {', '.join(s.name for s in SPECS)})")
    return found


def prefix_of(suite: str) -> str | None:
    """The registered `--suite` prefix `suite` starts with, if any."""
    head, sep, _ = suite.partition(":")
    return head if sep and any(head in s.prefixes for s in SPECS) else None


def spec_of(suite: str) -> KindSpec[Any, Any]:
    """The kind a `--suite` argument names: by its prefix, else the kind that takes every other suite."""
    prefix = prefix_of(suite)
    return next(
        s for s in SPECS if (prefix in s.prefixes if prefix is not None else not s.prefixes and s.selector is None)
    )


@dataclass(frozen=True)
class Planned:
    """A kind ready to run, with what it was built from: its spec, its `--suite` arguments and
    options (the envelope records them, so `harness merge` can build it again)."""

    kind: CaseKind[Any]
    spec: KindSpec[Any, Any]
    suites: tuple[str, ...]
    own: Any

    def origin(self, common: KindOptions) -> dict[str, Any]:
        """How the report says what built the kind (common options without the shard: merge drops it)."""
        return {
            "suites": list(self.suites),
            "limit": common.limit,
            "fail_under": common.fail_under,
            "embedding_model": common.embedding_model,
            "options": options_json(self.own),
        }


def selected(own: Mapping[str, Any] | None) -> tuple[KindSpec[Any, Any], str] | None:
    """The kind an own option selects instead of `--suite` (`--dataset NAME`), with that value."""
    for kind in SPECS:
        if kind.selector is not None and (value := getattr((own or {}).get(kind.name), kind.selector, None)):
            return kind, value
    return None


def kinds_for(suites: Sequence[str], common: KindOptions, own: Mapping[str, Any] | None = None) -> list[Planned]:
    """The kinds a run's `--suite` arguments name, one per argument, in their order (two suites of
    one kind are two reports, never one column); `own[spec name]` holds a kind's own options (its
    defaults when absent).
    A kind an own option selects (`selected`) is the run's only kind, its suite that option's value."""

    def options(kind: KindSpec[Any, Any]) -> Any:
        return (own or {}).get(kind.name, default_options(kind))

    if (chosen := selected(own)) is not None:
        kind, suite = chosen
        return [Planned(kind.build((suite,), common, options(kind)), kind, (suite,), options(kind))]
    planned: list[Planned] = []
    for suite in suites:
        kind = spec_of(suite)
        planned.append(Planned(kind.build((suite,), common, options(kind)), kind, (suite,), options(kind)))
    return planned


def builtin_suites() -> tuple[str, ...]:
    """The built-in suite of every kind with pytest items, in registry order (read on each call)."""
    return tuple(s.builtin for s in SPECS if s.builtin is not None)
