"""Checks a context against a case's expectations; every failed check is a `Breach`: the ids it
wanted and did not get, the ids it got and forbids, or the prelude text it wanted. The belief
kind explains each id in the system's terms (`kinds/beliefs/explain.py`), since only the suite
knows why a record must not surface (its user, its scopes, its successor)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.models import Expect, PreludeExpect, TierExpect
from harness.pipeline import Context


@dataclass(frozen=True)
class Breach:
    """One failed check. `where`: the tier (`relevant`, `relevant ∪ pinned` under Tenure's checks,
    `pinned`, `open_questions`), `noise` or `prelude`; `banned`: the surfaced ids are excluded by
    name (must_exclude, noise) rather than only beyond an exact set; `prelude`: a prelude check."""

    where: str
    missing: tuple[str, ...] = ()
    surfaced: tuple[str, ...] = ()
    banned: bool = False
    prelude: str | None = None


def _tier(name: str, expect: TierExpect, got: Sequence[str]) -> list[Breach]:
    breaches = []
    got_set = set(got)
    if expect.should_only_include is not None:
        wanted = set(expect.should_only_include)
        if got_set != wanted:
            breaches.append(Breach(name, tuple(sorted(wanted - got_set)), tuple(m for m in got if m not in wanted)))
    if absent := tuple(m for m in expect.must_include if m not in got_set):
        breaches.append(Breach(name, missing=absent))
    if present := tuple(m for m in expect.must_exclude if m in got_set):
        breaches.append(Breach(name, surfaced=present, banned=True))
    return breaches


def _prelude(expect: PreludeExpect, prelude: str | None, case_sensitive: bool) -> list[Breach]:
    breaches = []
    if expect.non_empty and not prelude:
        breaches.append(Breach("prelude", prelude="expected non-empty, got none"))
    if expect.is_null and prelude is not None:
        breaches.append(Breach("prelude", prelude="expected null, got text"))

    def fold(text: str) -> str:
        return text if case_sensitive else text.lower()

    text = fold(prelude or "")
    breaches += [Breach("prelude", prelude=f"should contain {s!r}") for s in expect.contains if fold(s) not in text]
    breaches += [
        Breach("prelude", prelude=f"must not contain {s!r}") for s in expect.must_not_contain if fold(s) in text
    ]
    return breaches


def judge(
    expect: Expect, context: Context, *, union: bool = False, case_sensitive_prelude: bool = False
) -> list[Breach]:
    """Every check the context fails; empty when every asserted tier holds.

    `union`: the relevant tier's `must_include`/`must_exclude` and the noise check look at the
    relevant and pinned tiers together (Tenure's checks); `should_only_include` never does.
    `case_sensitive_prelude`: prelude substrings match case as written (Tenure's checks).
    """
    breaches: list[Breach] = []
    surfaced = (*context.relevant_ids, *context.pinned) if union else context.relevant_ids
    if expect.relevant is not None:
        exact = expect.relevant.model_copy(update={"must_include": (), "must_exclude": ()})
        membership = expect.relevant.model_copy(update={"should_only_include": None})
        breaches += _tier("relevant", exact, context.relevant_ids)
        breaches += _tier("relevant ∪ pinned" if union else "relevant", membership, surfaced)
    for name, got in (("pinned", context.pinned), ("open_questions", context.open_questions)):
        tier = getattr(expect, name)
        if tier is not None:
            breaches += _tier(name, tier, got)
    if expect.prelude is not None:
        breaches += _prelude(expect.prelude, context.prelude, case_sensitive_prelude)
    if expect.noise is not None and (noise := tuple(m for m in surfaced if m in expect.noise.must_not_surface)):
        breaches.append(Breach("noise", surfaced=noise, banned=True))
    return breaches
