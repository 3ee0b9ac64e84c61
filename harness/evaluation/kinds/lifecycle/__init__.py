"""Lifecycle scenarios (Mnemonic-style signal and noise over simulated time): one runner over one
port (`runner.py`, `port.py`), answered by the reference pipeline (`reference.py`) or a system
under test (`system.py`); the spec, result rows, summaries and report builder beside them."""

from harness.evaluation.kinds.lifecycle.spec import SPEC

__all__ = ["SPEC"]
