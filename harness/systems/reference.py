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
)
"""What the reference system declares: every capability of every kind, in every mode."""

SPEC = SystemSpec(REFERENCE, None, "the harness's own memory pipeline (the default)")
