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
    max_concurrency=None,
)
"""What the reference system declares: every capability of every kind, in every mode, and no limit
to `--concurrency` of its own: on every engine a namespace is worked on by one worker at a time and
shares nothing with another (the embedded engine: an in-memory database each; postgres: a
connection per worker thread; redis, valkey and atlas: their clients' pools), so its tasks run on
as many threads as asked (Python runs one at a time, the engines' own work at once)."""

SPEC = SystemSpec(REFERENCE, None, "the harness's own memory pipeline (the default)")
