"""`--system http:URL` against the test memory server: the bare PrecisionMemBench contract and
the harness-memory/1 extension, isolation and cleanup, a kind not applicable, and the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends.ledger import Ledger
from tests.datasets.builders import longmemeval_records
from tests.reports.pages import harness
from tests.systems.memory_server import Store, serving

FOREIGN = "someone-else"
"""A user of the service the harness never wrote: its record must be there after every run."""


def _seeded(store: Store) -> Store:
    store.records[FOREIGN] = {"f-1": {"text": "postgres orders database", "scopes": None}}
    return store


def _report(out: Path, stem: str) -> dict:
    (path,) = [p for p in out.glob(f"{stem}*.json") if "latest" not in p.name]
    return json.loads(path.read_text())


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))


def test_bare_wrapper_runs_the_builtin_suite_and_never_resets(tmp_path: Path) -> None:
    store = _seeded(Store(extended=False))
    with serving(store) as url:
        code = harness(tmp_path, "run", "--system", f"http:{url}", "--mode", "hybrid", "--out", "out")
        report = _report(tmp_path / "out", "run-embedded-http-127.0.0.1")
    assert code == 0
    assert report["system"]["name"] == f"http:{url}"
    assert report["system"]["modes"] == ["hybrid"]
    assert report["system"]["capabilities"] == ["users"]
    assert any("records stay" in note for note in report["system"]["notes"])
    cases = report["cases"]
    assert len(cases) == 115 + 16
    assert {c["mode"] for c in cases} == {"hybrid"}
    assert 0 < sum(c["passed"] for c in cases) < len(cases)  # judged by the harness: some pass, some fail
    assert ("DELETE", "/reset") not in store.calls  # the bare reset clears every user's records
    assert store.records[FOREIGN] == {"f-1": {"text": "postgres orders database", "scopes": None}}
    namespaces = {user.split("/")[0] for user in store.records if user != FOREIGN}
    assert namespaces
    assert all(ns.startswith("h") for ns in namespaces)


def test_extended_service_gets_scopes_and_leaves_only_foreign_data(tmp_path: Path) -> None:
    store = _seeded(Store(extended=True))
    with serving(store) as url:
        code = harness(tmp_path, "run", "--system", f"http:{url}", "--mode", "bm25", "--out", "out")
        report = _report(tmp_path / "out", "run-embedded-http")
        ledger = Ledger(url)
        assert ledger.entries() == []  # recorded while the run lasted, forgotten once dropped
    assert code == 0
    assert report["system"]["capabilities"] == ["replace", "scopes", "users"]
    assert report["system"]["version"] == "1.0"
    (page,) = [p for p in (tmp_path / "out").glob("run-embedded-http*.html") if "latest" not in p.name]
    assert f'"Run":{{"system":{{"name":"http:{url}"' in page.read_text()  # the page shows the system under 'Run'
    assert list(store.records) == [FOREIGN]  # each namespace dropped through DELETE /namespaces/<ns>
    assert any(method == "DELETE" and path.startswith("/namespaces/h") for method, path in store.calls)
    failed = [c for c in report["cases"] if not c["passed"]]
    # a case resting on what the service does not declare says so, after the judge's reasons
    assert any("needs 'pinned', which system" in r for c in failed for r in c["reasons"])
    assert not any("needs 'scopes'" in r for c in failed for r in c["reasons"])


def test_mode_the_system_lacks_is_not_run_and_said(tmp_path: Path) -> None:
    """Every mode (none named): the one it offers runs, the others are reported not run; a mode
    named that it does not offer is refused before the run (issue 45: it would run nothing)."""
    with serving(Store(extended=True, modes=("bm25",))) as url:
        code = harness(tmp_path, "run", "--system", f"http:{url}", "--limit", "2", "--out", "out")
        report = _report(tmp_path / "out", "run-embedded-http")
        assert harness(tmp_path, "run", "--system", f"http:{url}", "--mode", "bm25", "--mode", "vector") == 2
    assert code == 0
    assert report["modes"] == ["bm25"]
    assert "offers no such retrieval" in report["unsupported_modes"]["vector"]


def test_a_kind_without_a_protocol_path_is_not_applicable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with serving(Store(extended=True)) as url:
        code = harness(
            tmp_path,
            "run",
            "--system",
            f"http:{url}",
            "--suite",
            "code-tasks:builtin",
            "--mode",
            "bm25",
            "--out",
            "out",
        )
        report = _report(tmp_path / "out", "code-tasks")
    assert code == 0
    assert report["not_applicable"].startswith("Code tasks need a code graph (symbols looked up by name, with their")
    assert report["not_applicable"].endswith(
        "which the memory-system protocol does not offer (it gives ranked records for a text query): "
        "only the reference pipeline answers them."
    )
    assert report["results"] == []
    assert "NOT APPLICABLE" in capsys.readouterr().out


def test_dataset_questions_through_the_service(tmp_path: Path) -> None:
    data = tmp_path / "lme.json"
    data.write_text(json.dumps(longmemeval_records()))
    store = Store(extended=True)
    with serving(store) as url:
        code = harness(
            tmp_path,
            "run",
            "--system",
            f"http:{url}",
            "--dataset",
            "longmemeval-s",
            "--file",
            str(data),
            "--mode",
            "bm25",
            "--out",
            "out",
        )
        report = _report(tmp_path / "out", "dataset-longmemeval-s-session")
    assert code == 0
    asked = [q for q in report["questions"] if q["status"] == "ok"]
    assert asked
    assert all(q["levels"]["session"]["retrieved"] for q in asked)
    assert store.records == {}  # every haystack's namespace dropped


def test_reference_and_http_side_by_side_in_one_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with serving(Store(extended=True)) as url:
        code = harness(
            tmp_path, "run", "--system", "reference", "--system", f"http:{url}", "--mode", "bm25", "--out", "out"
        )
    assert code == 0
    reference = json.loads((tmp_path / "out" / "run-embedded-latest.json").read_text())
    assert reference["system"]["name"] == "reference"
    assert sum(c["passed"] for c in reference["cases"]) == len(reference["cases"])  # bm25 passes every built-in case
    (theirs,) = (tmp_path / "out").glob("run-embedded-http-*-latest.json")
    system = json.loads(theirs.read_text())["system"]
    assert (system["name"], system["declared_name"], system["version"]) == (f"http:{url}", "test-server", "1.0")
    capsys.readouterr()
    # compare's default picks the newest report of each system: both, side by side and tested on shared cases,
    # each named as it declares itself, the service's URL a detail
    assert harness(tmp_path, "compare", "--out", "out") == 0
    assert "paired randomization" in capsys.readouterr().out
    compared = (tmp_path / "out" / "compare-latest.md").read_text()
    assert f"| beliefs | builtin · system-provides-tiers | test-server 1.0 ({url}) | embedded | bm25 |" in compared
    assert (
        f"| beliefs | builtin · system-provides-tiers | reference pipeline {reference['system']['version']} | embedded | bm25 |"
        in compared
    )
    assert harness(tmp_path, "leaderboard", "--out", "out") == 0
    assert f"| test-server 1.0 ({url}) | bm25 |" in (tmp_path / "out" / "leaderboard-latest.md").read_text()


def test_down_url_drops_a_killed_runs_namespace_only(tmp_path: Path) -> None:
    store = _seeded(Store(extended=True))
    with serving(store) as url:
        store.records["hdeadbeef0001/alice"] = {"m-1": {"text": "left by a killed run", "scopes": None}}
        # a run that recorded its namespace and died: its pid is gone
        recorder = "from harness.backends.ledger import Ledger, NAMESPACE; import sys; Ledger(sys.argv[1]).record('http', NAMESPACE, 'hdeadbeef0001')"
        env = os.environ | {"PYTHONPATH": str(Path(__file__).parents[2])}
        subprocess.run([sys.executable, "-c", recorder, url], check=True, env=env)
        code = harness(tmp_path, "down", "--url", url)
    assert code == 0
    assert list(store.records) == [FOREIGN]
    assert ("DELETE", "/namespaces/hdeadbeef0001") in store.calls


def test_unknown_system_and_bad_url_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness(tmp_path, "run", "--system", "nosuch") == 2
    assert "unknown system 'nosuch'" in capsys.readouterr().err
    assert harness(tmp_path, "run", "--system", "http:ftp://x") == 2
    assert "not an http:// or https:// URL" in capsys.readouterr().err
    for url in ("http://127.0.0.1:9", "https://user:secret@127.0.0.1:9/memory"):
        assert harness(tmp_path, "run", "--system", url) == 2
        err = capsys.readouterr().err
        assert f"a service is named by http: and its URL: --system http:{url.replace('secret', '***')}" in err
        assert "secret" not in err


def test_unreachable_service_fails_before_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with serving(Store()) as url:
        pass  # closed: nothing listens there now
    assert harness(tmp_path, "run", "--system", f"http:{url}", "--mode", "bm25", "--out", "out") == 3
    err = capsys.readouterr().err
    assert "harness:" in err
    assert "Traceback" not in err


def test_baselines_are_keyed_by_system(tmp_path: Path) -> None:
    with serving(Store(extended=True)) as url:
        args = ["run", "--system", f"http:{url}", "--mode", "bm25", "--out", "out", "--baseline-dir", "bl"]
        assert harness(tmp_path, *args, "--freeze-baseline") == 0
        assert harness(tmp_path, *args, "--check-baseline") == 0
        # the reference system has no baseline in this folder: its check is missing one (exit 2)
        assert (
            harness(tmp_path, "run", "--mode", "bm25", "--out", "out", "--baseline-dir", "bl", "--check-baseline") == 2
        )
    (frozen,) = (tmp_path / "bl" / "builtin").glob("*.json")
    assert frozen.name.startswith("embedded-bm25--http-")
    assert json.loads(frozen.read_text())["system"] == f"http:{url}"


def test_ids_the_service_was_never_given_are_errors_not_dropped(tmp_path: Path) -> None:
    with serving(Store(extended=True, mangle=True)) as url:
        code = harness(tmp_path, "run", "--system", f"http:{url}", "--mode", "bm25", "--out", "out")
        report = _report(tmp_path / "out", "run-embedded-http")
    assert code == 1  # errors over --error-threshold 0
    errored = [c for c in report["cases"] if c["error"]]
    assert errored
    assert "returned ids it was never given" in errored[0]["error"]
