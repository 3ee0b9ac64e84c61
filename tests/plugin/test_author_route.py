"""The pytest route in a memory-system author's project: a folder outside this checkout holding one
test file of the author's own, no ini and no conftest. A `--harness-*` option collects the
harness's items with no test file to write (the built-in suite of every kind without
`--harness-suite`), of the reference system or of an HTTP service; an option whose items are all
deselected says so in one warning line. pytest runs as the author runs it, `python -m pytest` in a
subprocess; `-k` keeps each run to a few items."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.suites import BUILTIN, load_suite
from tests.plugin.builtin import builtin_items
from tests.systems.memory_server import Store, serving

CHECKOUT = Path(__file__).resolve().parents[2]
FEW = "alias-short"
"""The built-in belief cases whose ids start so: three, quick to run."""


def _project(folder: Path) -> Path:
    assert not folder.resolve().is_relative_to(CHECKOUT)  # nothing of this repository's tests or ini applies
    (folder / "test_mine.py").write_text("def test_mine():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    return folder


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m pytest -v ARGS` in `folder` (Popoto's plugin off: it flushes a Redis database)."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTEST_ADDOPTS", "PYTEST_PLUGINS", "HARNESS_FREEZE"}}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:popoto", "-v", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def _outcomes(output: str) -> dict[str, str]:
    """Node id -> PASSED, XFAIL, FAILED ..., from `-v`'s lines."""
    return dict(re.findall(r"^(\S+::\S+) (PASSED|XFAIL|XPASS|FAILED|SKIPPED|ERROR)\b", output, re.M))


def _few() -> list[str]:
    suite = load_suite(BUILTIN)
    return [case.id for case in [*suite.static_cases, *suite.session_cases] if case.id.startswith(FEW)]


def test_a_harness_option_collects_the_built_in_items_of_every_kind(tmp_path: Path) -> None:
    run = _pytest(_project(tmp_path), "--harness-system", "reference", "--harness-backend", "embedded", "-k", FEW)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    collected = re.search(r"collected (\d+) items / (\d+) deselected / (\d+) selected", out)
    assert collected, out[-3000:]
    assert int(collected[1]) == 1 + sum(builtin_items().values())  # the author's test and every kind's items
    expected = {f"harness::test_item[beliefs-embedded-bm25-{case}]" for case in _few()}
    assert len(expected) == 3
    assert _outcomes(out) == dict.fromkeys(expected, "PASSED")  # bm25 is asserted for the reference system
    assert "PytestConfigWarning" not in out


def test_an_http_systems_items_run_against_its_service(tmp_path: Path) -> None:
    store = Store(extended=True)
    with serving(store) as url:
        run = _pytest(_project(tmp_path), "--harness-system", f"http:{url}", "--harness-backend", "embedded", "-k", FEW)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-3000:]
    key = f"http-127.0.0.1-{url.rsplit(':', 1)[1]}"
    outcomes = _outcomes(out)
    assert set(outcomes) == {f"harness::test_item[beliefs-embedded-{key}-bm25-{case}]" for case in _few()}
    assert set(outcomes.values()) <= {"PASSED", "XFAIL"}  # a system's judged failures are measured, not asserted
    assert ("POST", "/search") in store.calls


@pytest.mark.parametrize("filters", [(), ("-W", "error::pytest.PytestConfigWarning")], ids=["warning", "as-error"])
def test_an_option_with_no_harness_item_left_says_so_in_one_line(tmp_path: Path, filters: tuple[str, ...]) -> None:
    """`-k` keeps the author's test only: the warning, or under `-W error` a one-line usage error."""
    args = ("--harness-suite", "builtin", "--harness-backend", "embedded", "-k", "test_mine", *filters)
    run = _pytest(_project(tmp_path), *args)
    out = run.stdout + run.stderr
    message = "harness: --harness-backend, --harness-suite given, but no harness item is left to run"
    said = [line for line in out.splitlines() if message in line]
    if filters:
        assert run.returncode == pytest.ExitCode.USAGE_ERROR, out[-3000:]
        assert said == [f"ERROR: {message} (-k, -m or --deselect)"], out[-3000:]
        assert "Traceback" not in out
        assert "INTERNALERROR" not in out
    else:
        assert run.returncode == 0, out[-3000:]
        assert _outcomes(out) == {"test_mine.py::test_mine": "PASSED"}
        assert len(said) == 1, out[-3000:]
        assert "PytestConfigWarning" in said[0], out[-3000:]
