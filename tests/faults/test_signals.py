"""SIGINT and SIGTERM: one line saying what was interrupted, exit 130 / 143, the run's container
removed, and the finished part written as a report marked incomplete (never as `-latest`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness.suites.resolve import cases_dir
from tests.faults.helpers import Watched, containers_of, env, remove_containers_of, reports, write_suite

CASES = 3000
"""Enough that no run finishes before the signal: it is sent after 50 cases, and a run on the embedded
engine does about 60 a second here (a server's fewer), so 3000 take most of a minute. Every case is
loaded before the first runs, so more would only slow each run's start (30,000: 0.7 s of CPU)."""


@pytest.fixture(scope="module")
def big_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_suite(tmp_path_factory.mktemp("suite") / "big", CASES, memories=500)


def _check_incomplete_suite_report(out: Path, backend: str, signal_name: str, line: str) -> None:
    assert not reports(out, "*latest*"), "an incomplete run must never become -latest"
    (json_path,) = reports(out, f"run-{backend}-incomplete-*.json")
    report = json.loads(json_path.read_text())
    assert report["incomplete"] is True
    assert signal_name in report["incomplete_reason"]
    finished = len(report["cases"])
    assert 0 < finished < CASES
    assert f"after {finished} of {CASES} cases" in report["incomplete_reason"]
    assert str(json_path) in line
    assert "INCOMPLETE RUN" in json_path.with_suffix(".md").read_text()


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_writes_the_finished_cases_as_an_incomplete_report(
    big_suite: Path, tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    out = tmp_path / "out"
    run = Watched("run", "-m", "bm25", "-s", str(big_suite), "--out", str(out), cwd=tmp_path)
    run.wait_progress("cases", 50)
    run.process.send_signal(sig)
    assert run.finish() == code, run.stderr[-3000:]
    (line,) = run.harness_lines()
    assert line.startswith(f"harness: interrupted by {sig.name}: run on embedded after "), line
    assert "Traceback" not in run.stderr
    _check_incomplete_suite_report(out, "embedded", sig.name, line)


@pytest.mark.usefixtures("local_images")
def test_sigterm_removes_the_server_runs_container(server: str, big_suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with Watched("run", "-b", server, "-m", "bm25", "-s", str(big_suite), "--out", str(out), cwd=tmp_path) as run:
        run.wait_progress("cases", 50)
        assert containers_of(run.process.pid), "the run's container must exist while it runs"
        run.process.send_signal(signal.SIGTERM)
        assert run.finish() == 143, run.stderr[-3000:]
        assert containers_of(run.process.pid) == [], "SIGTERM must remove the run's container"
        (line,) = run.harness_lines()
        assert line.startswith(f"harness: interrupted by SIGTERM: run on {server} after "), line
        _check_incomplete_suite_report(out, server, "SIGTERM", line)


def test_sigterm_during_a_dataset_run_keeps_the_finished_questions(locomo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = Watched(
        "run",
        "--dataset",
        "locomo",
        "--file",
        str(locomo),
        "-m",
        "bm25",
        "--granularity",
        "turn",
        "--out",
        str(out),
        cwd=tmp_path,
    )
    run.wait_progress("questions", 1)
    run.process.send_signal(signal.SIGTERM)
    assert run.finish() == 143, run.stderr[-3000:]
    (line,) = run.harness_lines()
    assert line.startswith("harness: interrupted by SIGTERM: run on embedded after "), line
    assert " questions; finished part in " in line
    assert not reports(out, "*latest*")
    (json_path,) = reports(out, "dataset-locomo-turn-incomplete-*.json")
    report = json.loads(json_path.read_text())
    assert report["incomplete"] is True
    assert "SIGTERM" in report["incomplete_reason"]
    asked = {q["id"] for q in report["questions"]}
    assert 0 < len(asked) < report["selection"]["total"]
    assert str(json_path) in line
    assert "INCOMPLETE RUN" in json_path.with_suffix(".md").read_text()


def test_a_signal_during_the_second_kind_names_the_reports_written_before_it(tmp_path: Path) -> None:
    """Belief suites run first and their report is written; the lifecycle scenarios are stopped part
    way. The last line names both: the earlier kind's report and the incomplete one."""
    builtin = json.loads((cases_dir() / "lifecycle" / "builtin" / "debugging.json").read_text())
    scenario = builtin["scenarios"][0]
    many = tmp_path / "many.json"
    many.write_text(json.dumps(builtin | {"scenarios": [scenario | {"name": f"copy-{i}"} for i in range(2000)]}))
    out = tmp_path / "out"
    run = Watched("run", "-s", "builtin", "-s", f"mnemonic:{many}", "-m", "bm25", "--out", str(out), cwd=tmp_path)
    run.wait_progress("scenarios", 2)
    run.process.send_signal(signal.SIGINT)
    assert run.finish() == 130, run.stderr[-3000:]
    (line,) = run.harness_lines()
    (finished,) = reports(out, "run-embedded-2*.json")
    (incomplete,) = reports(out, "lifecycle-embedded-incomplete-*.json")
    assert line.startswith("harness: interrupted by SIGINT: run on embedded after "), line
    assert f"finished part in {incomplete}; reports written before it: {finished}" in line, line


TEARDOWN_SIGNAL = """
import os, signal, sys
from harness import cli
from harness.containers import runtime

first, again, args = signal.Signals[sys.argv[1]], sys.argv[2], sys.argv[3:]
remove = runtime._remove

def signalled_remove(container):
    os.kill(os.getpid(), first)  # arrives while the finished run's container is being removed
    remove(container)

runtime._remove = signalled_remove
if again != "none":
    line = cli._error

    def signalled_line(text):
        os.kill(os.getpid(), signal.Signals[again])  # a second signal at the run's last moment
        line(text)

    cli._error = signalled_line
sys.argv = ["harness", *args]
cli.main()
"""


def _networks_of(pid: int, remove: bool = False) -> list[str]:
    """The Docker networks labelled as owned by process `pid` (removed with `remove`)."""
    import docker

    from harness.containers.labels import PID

    client = docker.from_env()
    try:
        found = client.api.networks(filters={"label": f"{PID}={pid}"})
        for network in found if remove else []:
            client.api.remove_network(network["Id"])
        return [n["Name"] for n in found]
    finally:
        client.close()


@pytest.mark.usefixtures("local_images")
@pytest.mark.parametrize(
    ("first", "again", "code"),
    [("SIGTERM", "none", 143), ("SIGINT", "none", 130), ("SIGTERM", "SIGINT", 143), ("SIGINT", "SIGTERM", 130)],
)
def test_a_signal_during_teardown_leaves_nothing_and_says_so(tmp_path: Path, first: str, again: str, code: int) -> None:
    """A signal while the run's container was removed cut the removal short: the container or its
    network stayed. A second one while the last line was printed (the handlers already restored)
    gave a traceback (SIGINT) or killed the process with no line (SIGTERM)."""
    suite = write_suite(tmp_path / "suite", 3)
    args = ["run", "-b", "redis", "-m", "bm25", "-s", str(suite), "--out", str(tmp_path / "out")]
    process = subprocess.Popen(
        [sys.executable, "-c", TEARDOWN_SIGNAL, first, again, *args],
        cwd=tmp_path,
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _, stderr = process.communicate(timeout=300)
        left = (containers_of(process.pid), _networks_of(process.pid))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        remove_containers_of(process.pid)  # what the old code left: only this test's run's
        _networks_of(process.pid, remove=True)
    assert "Traceback" not in stderr, stderr
    assert process.returncode == code, stderr
    lines = [line for line in stderr.splitlines() if line.startswith("harness:")]
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"harness: interrupted by {first}: run on redis after 3 of 3 cases"), lines
    assert left == ([], []), "the run's container and network are removed"
