"""Checks a context against a case's expectations; every failed assertion becomes a reason."""

from __future__ import annotations

from collections.abc import Sequence

from harness.models import Expect, PreludeExpect, TierExpect
from harness.pipeline import Context


def _names(ids: Sequence[str] | set[str]) -> str:
    return "[" + ", ".join(sorted(ids)) + "]"


def _tier(name: str, expect: TierExpect, got: Sequence[str]) -> list[str]:
    reasons = []
    got_set = set(got)
    if expect.should_only_include is not None:
        wanted = set(expect.should_only_include)
        if got_set != wanted:
            missing, extra = wanted - got_set, got_set - wanted
            detail = ", ".join(
                part
                for part in (
                    f"missing {_names(missing)}" if missing else "",
                    f"unexpected {_names(extra)}" if extra else "",
                )
                if part
            )
            reasons.append(f"{name}: expected exactly {_names(wanted)}, got {_names(got_set)} ({detail})")
    absent = [m for m in expect.must_include if m not in got_set]
    if absent:
        reasons.append(f"{name}: must include {_names(absent)}")
    present = [m for m in expect.must_exclude if m in got_set]
    if present:
        reasons.append(f"{name}: must exclude {_names(present)}")
    return reasons


def _prelude(expect: PreludeExpect, prelude: str | None, case_sensitive: bool) -> list[str]:
    reasons = []
    if expect.non_empty and not prelude:
        reasons.append("prelude: expected non-empty, got none")
    if expect.is_null and prelude is not None:
        reasons.append("prelude: expected null, got text")

    def fold(text: str) -> str:
        return text if case_sensitive else text.lower()

    text = fold(prelude or "")
    reasons += [f"prelude: should contain {s!r}" for s in expect.contains if fold(s) not in text]
    reasons += [f"prelude: must not contain {s!r}" for s in expect.must_not_contain if fold(s) in text]
    return reasons


def judge(expect: Expect, context: Context, *, union: bool = False, case_sensitive_prelude: bool = False) -> list[str]:
    """Reasons the context fails the expectations; empty when every asserted tier holds.

    `union`: the relevant tier's `must_include`/`must_exclude` and the noise check look at the
    relevant and pinned tiers together (Tenure's checks); `should_only_include` never does.
    `case_sensitive_prelude`: prelude substrings match case as written (Tenure's checks).
    """
    reasons: list[str] = []
    surfaced = (*context.relevant_ids, *context.pinned) if union else context.relevant_ids
    if expect.relevant is not None:
        exact = expect.relevant.model_copy(update={"must_include": (), "must_exclude": ()})
        membership = expect.relevant.model_copy(update={"should_only_include": None})
        reasons += _tier("relevant", exact, context.relevant_ids)
        reasons += _tier("relevant ∪ pinned" if union else "relevant", membership, surfaced)
    for name, got in (("pinned", context.pinned), ("open_questions", context.open_questions)):
        tier = getattr(expect, name)
        if tier is not None:
            reasons += _tier(name, tier, got)
    if expect.prelude is not None:
        reasons += _prelude(expect.prelude, context.prelude, case_sensitive_prelude)
    if expect.noise is not None:
        noise = [m for m in expect.noise.must_not_surface if m in surfaced]
        if noise:
            reasons.append(f"noise: drifted memories surfaced {_names(noise)}")
    return reasons
