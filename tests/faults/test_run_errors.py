"""A run that went wrong must not look right: an embedding model that cannot load fails before the
run, errored cases are counted on the console and the scorecard and fail the run, and a backend
lost mid-run (its container killed) exits 3."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from harness.backends.embedded import EmbeddedIndex
from tests.conftest import Main
from tests.faults.helpers import Watched, containers_of, one_line, reports, run, write_suite

CASES = 1000
"""Enough that the run goes on after its container is killed (after 50 cases; here about 80 had run
when the server was gone); every later case errors, the most of the run's time, so no more."""


@pytest.fixture(scope="module")
def big_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_suite(tmp_path_factory.mktemp("suite") / "big", CASES, memories=500)


@pytest.mark.parametrize(
    ("model", "code"),
    [
        ("nomic-embed-text", 3),  # a valid model id, not in the local cache: nothing is downloaded
        ("no such model", 2),  # not a model id at all
        ("./no-such-model-folder", 2),  # a path that does not exist
    ],
)
def test_a_model_that_cannot_load_fails_before_the_run(
    harness_main: Main, tmp_path: Path, model: str, code: int
) -> None:
    suite = write_suite(tmp_path / "suite", 2)
    out = tmp_path / "out"
    result = harness_main(
        "run", "-m", "vector", "--model", model, "-s", str(suite), "--out", str(out),
        cwd=tmp_path, HARNESS_CACHE_DIR=str(tmp_path / "cache"),
    )  # fmt: skip
    line = one_line(result.stderr)
    assert result.returncode == code, result.stderr
    assert model in line, line
    assert not reports(out), "nothing may run"


def test_a_dataset_run_with_a_model_that_cannot_load_fails_before_the_run(
    harness_main: Main, locomo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = harness_main(
        "run", "--dataset", "locomo", "--file", str(locomo), "-m", "vector", "--model", "nomic-embed-text",
        "--limit", "2", "--out", str(out), cwd=tmp_path, HARNESS_CACHE_DIR=str(tmp_path / "cache"),
    )  # fmt: skip
    line = one_line(result.stderr)
    assert result.returncode == 3, result.stderr
    assert "nomic-embed-text" in line, line
    assert not reports(out)


@pytest.fixture
def faulty_lexical(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedded engine fails every query naming `item 1` (s-1 and s-4 of a 5-case suite)."""
    lexical = EmbeddedIndex.lexical

    def failing(self, terms, filters, limit):
        if "1" in terms:
            raise RuntimeError("injected fault")
        return lexical(self, terms, filters, limit)

    monkeypatch.setattr(EmbeddedIndex, "lexical", failing)


@pytest.mark.parametrize(("threshold", "code"), [(None, 1), ("0.3", 1), ("0.5", 0)])
@pytest.mark.usefixtures("faulty_lexical")
def test_errored_cases_are_counted_and_fail_the_run(cli, tmp_path: Path, threshold: str | None, code: int) -> None:
    suite = write_suite(tmp_path / "suite", 5, memories=3)  # s-0..s-4 name items 0, 1, 2, 0, 1
    out = tmp_path / "out"
    args = ["run", "-m", "bm25", "-s", str(suite), "--out", str(out)]
    got, stdout, stderr = cli(*args, *(["--error-threshold", threshold] if threshold else []))
    assert got == code, stderr
    assert "harness: embedded: 2 of 5 results errored (1 distinct); first: RuntimeError: injected fault" in stderr
    assert "ERRORS: 2 of 5 results errored" in stdout
    row = next(line for line in stdout.splitlines() if "embedded" in line and "bm25" in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    assert cells[2:6] == ["3/5", "0/0", "0/0", "2"], cells  # static, session, turns, errors
    assert cells[6] == "3", "n: the means are over the 3 cases that ran"
    (json_path,) = reports(out, "run-embedded-2*.json")
    report = json.loads(json_path.read_text())
    assert report["errors"] == {"count": 2, "distinct": 1, "first": "RuntimeError: injected fault"}
    assert report["summary"][0]["measured"] == 3
    assert "**ERRORS**: 2 of 5 results errored" in json_path.with_suffix(".md").read_text()


def _kill_mid_run(run: Watched, label: str, at_least: int) -> None:
    run.wait_progress(label, at_least)
    (container,) = containers_of(run.process.pid)
    container.kill()


@pytest.mark.usefixtures("local_images")
def test_a_backend_killed_mid_suite_run_exits_3(server: str, big_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with Watched("run", "-b", server, "-m", "bm25", "-s", str(big_suite), "--out", str(out), cwd=tmp_path) as run:
        _kill_mid_run(run, "cases", 50)
        assert run.finish(timeout=600) == 3, run.stderr[-3000:]
    (line,) = run.harness_lines()
    match = re.fullmatch(rf"harness: {server}: (\d+) of {CASES} results errored \(\d+ distinct\); first: (.+)", line)
    assert match, line
    assert match[2].endswith("; the backend was lost mid-run"), line
    assert "error ignored terminating" not in run.stderr
    (json_path,) = reports(out, f"run-{server}-2*.json")
    report = json.loads(json_path.read_text())
    summary = report["summary"][0]
    assert summary["errors"] == int(match[1]) > 0
    assert summary["static_passed"] + summary["errors"] == CASES
    assert 0 < summary["measured"] < CASES, "the means must say they are over the cases that ran"
    assert any(c["backend_lost"] for c in report["cases"])
    assert f"ERRORS: {match[1]} of {CASES} results errored" in re.sub(r"\s+", " ", run.stdout)


@pytest.mark.usefixtures("local_images")
def test_a_backend_killed_mid_dataset_run_exits_3(server: str, locomo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with Watched(
        "run", "--dataset", "locomo", "--file", str(locomo), "-b", server, "-m", "bm25", "--granularity", "turn",
        "--out", str(out), cwd=tmp_path,
    ) as run:  # fmt: skip
        _kill_mid_run(run, "questions", 1)
        assert run.finish(timeout=600) == 3, run.stderr[-3000:]
    (line,) = run.harness_lines()
    assert re.fullmatch(
        rf"harness: {server}: \d+ of \d+ results errored \(\d+ distinct\); first: .+; the backend was lost mid-run",
        line,
    ), line
    assert "error ignored terminating" not in run.stderr
    (json_path,) = reports(out, "dataset-locomo-turn-2*.json")
    report = json.loads(json_path.read_text())
    assert report["errors"]["count"] > 0
    assert report["errors"]["backend_lost"] is True


def test_psycopg_log_noise_never_reaches_the_user(tmp_path: Path) -> None:
    """psycopg logs `error ignored terminating <psycopg.Pipeline [BAD]>` when a connection dies inside
    a pipeline (hard to time from outside); a process the CLI set up must not print such records."""
    script = (
        "import logging, sys\n"
        "from harness.cli import main\n"
        "sys.argv = ['harness', 'cases', 'validate', 'builtin']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "logging.getLogger('psycopg').warning('error ignored terminating %s', '<psycopg.Pipeline [BAD]>')\n"
        "logging.getLogger('some.other.library').warning('other libraries still warn')\n"
    )
    result = run([sys.executable, "-c", script], tmp_path, 120)
    assert result.returncode == 0, result.stderr
    assert "error ignored terminating" not in result.stderr
    assert "other libraries still warn" in result.stderr, "only psycopg's noise is silenced"
