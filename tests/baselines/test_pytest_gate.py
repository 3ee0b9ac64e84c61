"""The pytest plugin's baseline gate, run as a user runs it: pytest (in this process) on the suite
case items, freezing (HARNESS_FREEZE=1) or checking (--check-baseline) a copy of the built-in suite,
and a dataset's questions (another kind)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.baselines.history import FILE_NAME
from harness.pytest_plugin.run import FREEZE_ENV
from harness.suites.datasets import DATA_DIR_ENV
from harness.suites.resolve import cases_dir
from tests.plugin.inner import ITEM_TESTS, inner_pytest
from tests.plugin.test_kind_items import oracle_file


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """The inner session's folder, with the suite case tests and a copy of the built-in suite named `suite`."""
    pytester.makepyfile(test_cases=ITEM_TESTS)
    shutil.copytree(cases_dir() / "builtin", pytester.path / "suite")
    return pytester.path


def _pytest(
    pytester: pytest.Pytester, *args: str, freeze: bool = False, basetemp: str = "t"
) -> subprocess.CompletedProcess[str]:
    project = pytester.path
    command = ["-q", "-rf", "test_cases.py"]
    command += [
        "--harness-backend",
        "embedded",
        "--harness-suite",
        str(project / "suite"),
        "--harness-baseline-dir",
        str(project / "b"),
    ]
    command += ["--basetemp", str(project / basetemp)]
    return inner_pytest(pytester, *command, *args, env={FREEZE_ENV: "1"} if freeze else {})


def _history(project: Path, basetemp: str) -> list[tuple[str, bool | None]]:
    """The (event, passed) lines a session wrote into its basetemp."""
    lines = (project / basetemp / FILE_NAME).read_text().splitlines()
    return [(e["event"], e.get("passed")) for e in map(json.loads, lines)]


def _failed_items(output: str) -> set[str]:
    """Case ids of the items pytest reports FAILED (`test_item[beliefs-embedded-bm25-<id>]`)."""
    return set(re.findall(r"^FAILED \S+\[beliefs-embedded-bm25-(.+?)\]", output, re.M))


def _drop_aliases(suite: Path) -> None:
    corpus = json.loads((suite / "corpus.json").read_text())
    for memory in corpus["memories"]:
        memory["aliases"] = []
    (suite / "corpus.json").write_text(json.dumps(corpus))


def test_freeze_then_check_fails_on_a_degraded_suite_naming_its_cases_and_passes_restored(
    pytester: pytest.Pytester, project: Path
) -> None:
    frozen = _pytest(pytester, freeze=True, basetemp="frozen")
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    assert "baseline suite / embedded / bm25: frozen in" in frozen.stdout
    assert (project / "b" / "suite" / "embedded-bm25.json").is_file()
    assert _history(project, "frozen") == [("freeze", None)]

    passed = _pytest(pytester, "--harness-check-baseline", basetemp="passed")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "baseline suite / embedded / bm25: passed (cases: 0 regressed, 0 missing" in passed.stdout
    assert f"baseline history: {project / 'passed' / FILE_NAME}" in passed.stdout
    assert _history(project, "passed") == [("check", True)]
    assert [p.name for p in (project / "b").rglob("*") if p.is_file()] == ["embedded-bm25.json"]

    original = (project / "suite" / "corpus.json").read_text()
    _drop_aliases(project / "suite")
    failed = _pytest(pytester, "--harness-check-baseline", basetemp="failed")
    assert failed.returncode == 1
    broken = _failed_items(failed.stdout)
    assert broken, "a corpus without aliases must fail some case, or this test shows nothing"
    regressed = set(re.findall(r"^  regressed  case (\S+?)(?:#\d+)? passed: passed -> failed$", failed.stdout, re.M))
    assert regressed == broken
    assert "baseline suite / embedded / bm25: FAILED" in failed.stdout

    (project / "suite" / "corpus.json").write_text(original)
    assert _history(project, "failed") == [("check", False)]
    restored = _pytest(pytester, "--harness-check-baseline")
    assert restored.returncode == 0, restored.stdout + restored.stderr


@pytest.mark.usefixtures("project")
def test_a_check_without_a_baseline_is_a_usage_error_not_a_pass(pytester: pytest.Pytester) -> None:
    run = _pytest(pytester, "--harness-check-baseline")
    assert run.returncode == pytest.ExitCode.USAGE_ERROR
    assert "harness: no baseline for suite / embedded / bm25" in run.stdout


def test_a_partial_run_neither_freezes_nor_checks(pytester: pytest.Pytester, project: Path) -> None:
    run = _pytest(pytester, "-k", "alias", freeze=True)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR
    assert re.search(
        r"harness: baseline freeze of suite on embedded in bm25 needs every item: \d+ of \d+ ran", run.stdout
    )
    assert not (project / "b").exists()


@pytest.mark.usefixtures("project")
def test_freeze_and_check_together_are_refused(pytester: pytest.Pytester) -> None:
    run = _pytest(pytester, "--harness-check-baseline", freeze=True)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR
    assert "HARNESS_FREEZE=1 freezes baselines and --harness-check-baseline checks them" in run.stderr


def test_a_haystack_suite_is_frozen_and_checked_question_by_question(pytester: pytest.Pytester) -> None:
    """The gate covers every kind's items, not only belief cases: dataset questions are frozen,
    checked, and a question whose evidence no longer matches is named as regressed."""
    pytester.makepyfile(test_cases=ITEM_TESTS)
    data = oracle_file(pytester.path / "data", miss=False).parent

    def pytest_run(*args: str, freeze: bool = False) -> subprocess.CompletedProcess[str]:
        command = ["-q", "-rf", "test_cases.py"]
        command += ["--harness-backend", "embedded", "--harness-suite", "haystack:longmemeval-oracle"]
        command += ["--harness-baseline-dir", str(pytester.path / "b"), *args]
        return inner_pytest(pytester, *command, env={DATA_DIR_ENV: str(data)} | ({FREEZE_ENV: "1"} if freeze else {}))

    key = "longmemeval-oracle-session / embedded / bm25"
    frozen = pytest_run(freeze=True)
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    assert f"baseline {key}: frozen in" in frozen.stdout
    passed = pytest_run("--harness-check-baseline")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert f"baseline {key}: passed" in passed.stdout

    oracle_file(data, shed_evidence="We finally finished the outbuilding: it is olive now.", miss=False)
    failed = pytest_run("--harness-check-baseline")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert re.search(r"^  regressed  case q-shed ", failed.stdout, re.M), failed.stdout
    assert f"baseline {key}: FAILED" in failed.stdout
