"""Questions over a haystack: one runner (`runner.py`) over one port (`port.py`), with an adapter
over the reference pipeline (`reference.py`) and one over any system under test (`system.py`);
its result rows (`results.py`), means (`summary.py`) and report (`report.py`)."""

from harness.evaluation.kinds.haystack.spec import SPEC

__all__ = ["SPEC"]
