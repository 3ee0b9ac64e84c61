"""Whole-run container lifecycle: nothing outlives a pytest run, an absent engine skips or fails
as configured, and a server killed mid-run turns its cases into errors without stopping the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import docker
import pytest

from harness.backends.provision import start_server
from harness.backends.registry import connect
from harness.evaluation.kind import Engine
from harness.evaluation.kinds.beliefs import report as belief_report
from harness.evaluation.kinds.beliefs.plan import Plan
from harness.evaluation.kinds.beliefs.report import summarize
from harness.evaluation.kinds.beliefs.results import CaseResult
from harness.evaluation.kinds.beliefs.spec import BeliefKind
from harness.evaluation.runner import run
from harness.pipeline import Mode
from harness.reports.writer import report_json, write_run_files
from harness.suites import BUILTIN, load_suite
from tests.containers.conftest import ROOT, require_docker_or_skip

BELIEFS_ONLY = ("--harness-suite", "builtin")
"""The built-in belief suite, where the `alias-short` cases the nested runs select are: collecting
every kind's built-in suite (code tasks ingest a project) would cost each process a second more."""


def _nested_pytest(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """pytest ARGS in processes of its own (the plugin's sessions, servers and exit are the point).
    Assertions are not rewritten there: every process would compile the harness's modules again
    (the plugin's distribution is rewritten whole) for messages these tests never read; a failed
    assert fails the same."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--assert=plain", "-q", *args],
        cwd=ROOT,
        env={**clean, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.mark.usefixtures("local_images")
def test_no_container_of_a_run_outlives_it() -> None:
    run = _nested_pytest(
        "-n",
        "2",
        "tests/test_suite_cases.py",
        *BELIEFS_ONLY,
        "--harness-backend",
        "redis",
        "--harness-backend",
        "valkey",
        "-k",
        "alias-short",
    )
    output, _ = run.communicate(timeout=300)
    assert run.returncode == 0, output
    assert "passed" in output, output
    assert "skipped" not in output, output
    client = docker.from_env()
    try:
        owned = client.containers.list(all=True, filters={"label": f"harness.pid={run.pid}"})
        assert owned == [], f"left behind: {[c.name for c in owned]}"
        networks = client.networks.list(filters={"label": f"harness.pid={run.pid}"})
        assert networks == [], f"left behind: {[n.name for n in networks]}"
    finally:
        client.close()


_SHARED_SERVER_PROBE = """
import os
import stat
from pathlib import Path


def _probe(server_url, tmp_path_factory, pytestconfig, name):
    url = server_url("redis")
    leaked = sorted(k for k in os.environ if k.startswith("HARNESS_PYTEST"))
    assert leaked == [], f"the plugin changed the environment: {leaked}"
    base = tmp_path_factory.getbasetemp()
    worker = getattr(pytestconfig, "workerinput", {}).get("workerid", "main")
    folder = (base.parent if worker != "main" else base) / "harness-servers"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    (record,) = folder.glob("*.json")
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert url in record.read_text()
    Path(os.environ["PROBE_OUT"], f"{worker}-{name}").write_text(url)


def test_one(server_url, tmp_path_factory, pytestconfig):
    _probe(server_url, tmp_path_factory, pytestconfig, "one")


def test_two(server_url, tmp_path_factory, pytestconfig):
    _probe(server_url, tmp_path_factory, pytestconfig, "two")
"""


@pytest.mark.usefixtures("local_images")
@pytest.mark.parametrize(
    ("xdist", "options"),
    [
        (("-n", "2", "--dist", "each"), ("--harness-backend", "redis")),
        (("-p", "no:xdist"), ("--harness-backend", "redis")),
        (("-n", "2", "--dist", "each"), ()),
    ],
    ids=["xdist", "no-xdist", "xdist-no-option"],
)
def test_one_server_per_run_recorded_privately_under_basetemp(
    xdist: tuple[str, ...], options: tuple[str, ...], tmp_path: Path
) -> None:
    """Every process of a run gets the same server from 0600 records under the controller's basetemp,
    handed over through xdist's workerinput (the environment is left alone); the records go at the end.
    Without a harness option the harness is set up only in the workers, when `server_url` is first
    requested: the controller hands its run over all the same, and removes what they started."""
    probe, out, basetemp = tmp_path / "test_probe.py", tmp_path / "out", tmp_path / "basetemp"
    probe.write_text(_SHARED_SERVER_PROBE)
    out.mkdir()
    run = _nested_pytest(*xdist, str(probe), *options, "--basetemp", str(basetemp), env={"PROBE_OUT": str(out)})
    output, _ = run.communicate(timeout=300)
    assert run.returncode == 0, output
    urls = {path.name: path.read_text() for path in out.iterdir()}
    processes = {name.rsplit("-", 1)[0] for name in urls}
    assert processes == ({"gw0", "gw1"} if "-n" in xdist else {"main"}), urls
    assert len(urls) == 2 * len(processes), urls
    assert len(set(urls.values())) == 1, f"one server for the whole run: {urls}"
    assert list((basetemp / "harness-servers").glob("*.json")) == [], "the records outlived the run"


@pytest.mark.parametrize(("require", "expected"), [("0", "skipped"), ("1", "failed")])
def test_without_an_engine_server_items_skip_or_fail(require: str, expected: str, tmp_path: Path) -> None:
    run = _nested_pytest(
        "tests/test_suite_cases.py",
        *BELIEFS_ONLY,
        "--harness-backend",
        "redis",
        "-k",
        "alias-short-k8s",
        "-rsf",
        env={"DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock", "HARNESS_REQUIRE_DOCKER": require},
    )
    output, _ = run.communicate(timeout=120)
    assert f"1 {expected}" in output, output
    assert "no Docker engine" in output, output
    assert run.returncode == (0 if expected == "skipped" else 1), output


@pytest.mark.usefixtures("local_images")
def test_a_server_killed_mid_run_fails_its_cases_and_the_run_finishes(tmp_path: Path) -> None:
    require_docker_or_skip()
    suite = load_suite(BUILTIN)
    url, container = start_server("redis", "test-killed-mid-run")
    try:
        backend = connect("redis", url)
        seen: list[str] = []

        def kill_after_ten(case_id: str) -> None:
            seen.append(case_id)
            if len(seen) == 10:
                container.stop()

        outcome = run(BeliefKind(Plan([suite], [Mode.BM25])), Engine(backend, None, (Mode.BM25,)), kill_after_ten)
        results = [r for r in outcome.results if isinstance(r, CaseResult)]
    finally:
        container.stop()
    static = [r for r in results if r.kind == "static"]
    assert len(static) == len(suite.static_cases), "the run must go on after the server died"
    assert all(r.error is None and r.passed for r in static[:10])
    after = static[10:]
    errored = [r for r in after if r.error is not None]
    # a query naming no known phrase never reaches the engine; every other case must error
    assert all(r.retrieved["relevant"] == [] for r in after if r.error is None)
    assert len(errored) > len(after) / 2
    assert all(not r.passed and r.reasons[0].startswith("error: ") for r in errored)
    report = belief_report.build(
        {"created_at": "now", "harness_version": "t", "python": "3", "platform": "p"}, summarize(results), results
    )
    paths = write_run_files(
        tmp_path, "run-redis", {"json": report_json(report), "md": belief_report.to_markdown(report)}
    )
    assert all(p.stat().st_size > 0 for p in paths)
    assert summarize(results)[0].errors == len(errored) + sum(
        r.error is not None for r in results if r.kind == "session"
    )
