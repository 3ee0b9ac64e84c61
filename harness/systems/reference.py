"""The reference system: the harness's own memory pipeline, declared as a system like any other.

It opens nothing through the system protocol: each kind answers it through the kind's reference
adapter (`evaluation/kinds/<kind>/reference.py`), the kind's one runner driving that adapter
exactly as it drives any other system's, so `--system reference` takes the road every system takes.
"""

from __future__ import annotations

from harness import __version__
from harness.pipeline.settings import Mode
from harness.systems.protocol import REFERENCE, REFERENCE_NAME, Capability, SystemInfo, SystemSpec

NATIVE = SystemInfo(
    REFERENCE,
    __version__,
    frozenset(Capability),
    (Mode.BM25, Mode.VECTOR, Mode.HYBRID),
    declared_name=REFERENCE_NAME,
    serial_reason=(
        "the reference pipeline's work is this process's CPU (Python holds one core at a time) on the "
        "engine's one client connection, so it runs its items one after another on every engine"
    ),
)
"""What the reference system declares: every capability of every kind, in every mode."""

SPEC = SystemSpec(REFERENCE, None, "the harness's own memory pipeline (the default)")
