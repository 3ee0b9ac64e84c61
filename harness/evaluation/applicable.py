"""Why a kind is not applicable to a system, in words its author reads without the harness's code:
what the kind does, the capabilities that takes, and which of them the system does not declare.
The report's NOT APPLICABLE banner shows the sentence as it is (docs/system-protocol.md, "What
runs through it", says the same of each kind)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.systems.protocol import Capability, SystemInfo


def _listed(capabilities: Sequence[Capability], joint: str) -> str:
    names = [c.value for c in capabilities]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {joint} {names[-1]}"


def lacking(what: str, why: str, needed: Sequence[Capability], info: SystemInfo) -> str | None:
    """`what` (the kind's items, plural) `why` (what running them takes), so they need `needed`;
    the sentence names what `info` lacks of it. None when it lacks nothing."""
    missing = info.missing(*needed)
    if not missing:
        return None
    noun = "capability" if len(needed) == 1 else "capabilities"
    if len(missing) == len(needed):
        lacks = "does not declare it" if len(needed) == 1 else "declares none of them"
    else:
        lacks = f"does not declare {_listed(missing, 'or')}"
    return f"{what} {why}, so they need the {noun} {_listed(needed, 'and')}; system {info.name!r} {lacks}."


def beyond_protocol(what: str, needs: str, protocol_gives: str) -> str:
    """`what` needs `needs`, which no operation of the protocol serves (it gives `protocol_gives`)."""
    return (
        f"{what} need {needs}, which the memory-system protocol does not offer (it gives {protocol_gives}): "
        "only the reference pipeline answers them."
    )
