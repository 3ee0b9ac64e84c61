"""pytest run inside the test's own process (`pytester.runpytest_inprocess`) on a user's item tests,
its result read as a subprocess's would be. For tests of what the plugin does in a session, not of
the process: a fresh interpreter importing pytest and the harness cost more than most such runs.

The harness's modules are imported here, before any inner session: pytester drops the modules an
inner session imported when it ends, and each session would import them again."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

import harness.evaluation.kinds
import harness.pytest_plugin.session  # noqa: F401 - imported once, kept across inner sessions (see above)
from harness.pytest_plugin.run import FREEZE_ENV
from harness.suites.datasets import DATA_DIR_ENV

ITEM_TESTS = (Path(__file__).parents[1] / "test_suite_cases.py").read_text(encoding="utf-8")
"""What a user's test file holds: this repository's own item tests."""

OUTER_ENV = (FREEZE_ENV, DATA_DIR_ENV)
"""Variables of the outer session that would change what an inner session does."""

USER_HOME = str(Path.home())
"""The user's home, as a subprocess of this session would have it (`pytester` points HOME at its
folder): the inner session reads the user's embedding cache there, as a user's pytest does."""


def inner_pytest(
    pytester: pytest.Pytester, *args: str, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`pytest -p no:cacheprovider -p no:popoto ARGS` in this process, in `pytester.path`, with `env` set (and
    none of `OUTER_ENV` else): its exit code, stdout and stderr. The SIGTERM handler the inner
    session installs (`terminate_as_interrupt`) is the outer process's again afterwards."""
    command = ["-p", "no:cacheprovider", "-p", "no:popoto", *args]  # no popoto: as this repository's own ini
    handler = signal.getsignal(signal.SIGTERM)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", USER_HOME)
        for name in OUTER_ENV:
            patch.delenv(name, raising=False)
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        try:
            result = pytester.runpytest_inprocess(*command)
        finally:
            signal.signal(signal.SIGTERM, handler)
    return subprocess.CompletedProcess(
        ["pytest", *command], int(result.ret), "\n".join(result.outlines) + "\n", "\n".join(result.errlines) + "\n"
    )
