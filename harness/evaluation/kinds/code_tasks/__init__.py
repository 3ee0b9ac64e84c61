"""Code-intelligence tasks: one runner (`runner.py`) over one port (`port.py`), with an adapter
over the reference pipeline (`reference.py`) and none over a system under test (the protocol
cannot serve the code graph the tasks walk); its result rows (`results.py`) and report (`report.py`)."""

from harness.evaluation.kinds.code_tasks.spec import SPEC

__all__ = ["SPEC"]
