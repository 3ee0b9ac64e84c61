"""The `harness` console script, in subprocesses: every bad input is exactly one stderr line with
the documented exit code and no traceback; good runs write timestamped reports and `latest` copies.

Exit codes (the docstring of harness/cli/__init__.py): 0 done; 1 a quality gate failed; 2 bad input; 3 backend unavailable.
Each bad input is checked in-process through `harness.cli.main` (fast) and, for one input per
kind of failure (usage error, case file, unknown name, compare input), also in a
real subprocess of the installed script. Subprocesses run concurrently once per module (each
costs an interpreter start); every test then checks its own result.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HARNESS = Path(sys.executable).with_name("harness")
STAMP = r"\d{8}T\d{6}Z(?:-\d+)?"


def _memory(memory_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "id": memory_id,
        "user": "u-ana",
        "type": "entity",
        "name": memory_id,
        "scopes": ["domain:code"],
        **fields,
    }


def _suite(
    folder: Path,
    *,
    memories: list | None = None,
    cases: list | None = None,
    static_text: str | None = None,
) -> Path:
    folder.mkdir(parents=True)
    corpus = {
        "default_user": "u-ana",
        "memories": [_memory("m-pg", aliases=["postgres"])] if memories is None else memories,
    }
    (folder / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    static = {
        "cases": cases
        if cases is not None
        else [
            {
                "id": "s-one",
                "scopes": ["domain:code"],
                "query": "postgres",
                "expect": {"relevant": {"should_only_include": ["m-pg"]}},
            }
        ]
    }
    (folder / "static.json").write_text(static_text or json.dumps(static), encoding="utf-8")
    return folder


@dataclass
class Call:
    args: list[str]
    cwd: Path
    env: dict[str, str]
    result: subprocess.CompletedProcess | None = None

    def run(self) -> subprocess.CompletedProcess:
        self.result = subprocess.run(
            [str(HARNESS), *self.args],
            check=False,
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return self.result


@dataclass(frozen=True)
class Bad:
    args: Callable[[Path], list[str]]
    names: Callable[[Path], list[str]]  # what the one stderr line must mention


def _bad_inputs() -> dict[str, Bad]:
    return {
        "missing-suite-folder": Bad(
            lambda t: [
                "run",
                "-m",
                "bm25",
                "-s",
                str(t / "absent"),
                "--out",
                str(t / "out"),
            ],
            lambda t: [str(t / "absent")],
        ),
        "malformed-json": Bad(
            lambda t: [
                "run",
                "-m",
                "bm25",
                "-s",
                str(t / "badjson"),
                "--out",
                str(t / "out"),
            ],
            # the second comma sits at column 20 of line 3 (4 spaces + `{"id": "s-one",` = 19)
            lambda t: [str(t / "badjson" / "static.json"), "line 3", "column 20"],
        ),
        "unknown-case-field": Bad(
            lambda t: ["cases", "validate", str(t / "unknownfield")],
            lambda t: [str(t / "unknownfield" / "static.json"), "s-one", "querry"],
        ),
        "unknown-backend": Bad(
            lambda t: ["run", "-b", "nosuchdb", "-m", "bm25", "--out", str(t / "out")],
            lambda _: ["nosuchdb"],
        ),
        "unknown-mode": Bad(lambda t: ["run", "-m", "bm42", "--out", str(t / "out")], lambda _: ["bm42"]),
        "empty-corpus": Bad(
            lambda t: [
                "run",
                "-m",
                "bm25",
                "-s",
                str(t / "emptycorpus"),
                "--out",
                str(t / "out"),
            ],
            lambda t: [str(t / "emptycorpus" / "corpus.json"), "memories"],
        ),
        "unknown-id": Bad(
            lambda t: [
                "run",
                "-m",
                "bm25",
                "-s",
                str(t / "unknownid"),
                "--out",
                str(t / "out"),
            ],
            lambda t: [str(t / "unknownid" / "static.json"), "s-one", "m-ghost"],
        ),
        "unknown-option": Bad(
            lambda t: ["run", "--frobnicate", "--out", str(t / "out")],
            lambda _: ["--frobnicate"],
        ),
        "limit-zero": Bad(
            lambda t: ["run", "-m", "bm25", "--limit", "0", "--out", str(t / "out")],
            lambda _: ["--limit"],
        ),
        "cycles-without-scenarios": Bad(
            lambda t: ["run", "-m", "bm25", "--cycles", "2", "--out", str(t / "out")],
            lambda _: ["--cycles", "lifecycle"],
        ),
        "cycles-on-a-dataset": Bad(
            lambda t: ["run", "--dataset", "locomo", "--cycles", "2", "--out", str(t / "out")],
            lambda _: ["--cycles", "dataset"],
        ),
        "compare-no-reports": Bad(lambda t: ["compare", "--out", str(t / "noreports")], lambda _: []),
        "compare-non-report": Bad(
            lambda t: ["compare", str(t / "other.json"), "--out", str(t / "out")],
            lambda t: [str(t / "other.json")],
        ),
    }


BAD = _bad_inputs()
SUBPROCESS_BAD = (
    "malformed-json",
    "unknown-backend",
    "unknown-option",
    "compare-non-report",
)


def _setup_bad(tmp: Path, name: str) -> None:
    if name == "malformed-json":
        _suite(
            tmp / "badjson",
            static_text='{\n  "cases": [\n    {"id": "s-one",,}\n  ]\n}\n',
        )
    elif name == "unknown-case-field":
        case = {
            "id": "s-one",
            "scopes": ["domain:code"],
            "query": "x",
            "querry": "x",
            "expect": {},
        }
        _suite(tmp / "unknownfield", cases=[case])
    elif name == "empty-corpus":
        _suite(tmp / "emptycorpus", memories=[])
    elif name == "unknown-id":
        _suite(
            tmp / "unknownid",
            cases=[
                {
                    "id": "s-one",
                    "scopes": ["domain:code"],
                    "query": "q",
                    "expect": {"pinned": {"must_include": ["m-ghost"]}},
                }
            ],
        )
    elif name == "compare-no-reports":
        (tmp / "noreports").mkdir()
    elif name == "compare-non-report":
        # valid JSON with a `summary` key, but not a harness run report (another tool's output)
        (tmp / "other.json").write_text(json.dumps({"summary": [{"model": "x", "score": 0.5}]}), encoding="utf-8")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every invocation of this module, run concurrently; returns the calls and their folders."""
    root = tmp_path_factory.mktemp("cli")
    env = {
        **os.environ,
        "HARNESS_CACHE_DIR": str(root / "user-cache"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }
    env.pop("HARNESS_CASES_DIR", None)
    calls: dict[str, list[Call]] = {}
    for name in SUBPROCESS_BAD:
        folder = root / name
        folder.mkdir()
        _setup_bad(folder, name)
        calls[name] = [Call(BAD[name].args(folder), folder, env)]

    good = root / "good"
    good.mkdir()
    calls["bm25-then-compare"] = [
        Call(
            ["run", "-m", "bm25", "--fail-under", "1.0", "--out", str(good / "out")],
            good,
            env,
        ),
        Call(["compare", "--out", str(good / "out")], good, env),
    ]
    vector = root / "vector"
    vector.mkdir()
    calls["vector"] = [
        Call(
            [
                "run",
                "-m",
                "vector",
                "--fail-under",
                "1.0",
                "--out",
                str(vector / "out"),
            ],
            vector,
            env,
        )
    ]
    calls["validate-builtin"] = [Call(["cases", "validate", "builtin"], root, env)]

    def chain(sequence: list[Call]) -> None:
        for call in sequence:
            call.run()

    with ThreadPoolExecutor(max_workers=min(16, len(calls))) as pool:
        list(pool.map(chain, calls.values()))
    return {"calls": calls, "root": root, "cache": root / "user-cache"}


# -- bad input ------------------------------------------------------------------------------------


def _check_bad(name: str, folder: Path, returncode: int, stderr: str) -> None:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one stderr line, got {len(lines)}:\n{stderr}"
    assert returncode == 2, (returncode, stderr)
    for part in BAD[name].names(folder):
        assert part in lines[0], f"{part!r} not in {lines[0]!r}"
    assert not (folder / "out").exists() or not any((folder / "out").iterdir()), "a failed run wrote a report"
    assert not (folder / "reports").exists(), "wrote into the default report folder"


@pytest.mark.parametrize("name", SUBPROCESS_BAD)
def test_bad_input_subprocess(runs: dict[str, Any], name: str) -> None:
    (call,) = runs["calls"][name]
    _check_bad(name, call.cwd, call.result.returncode, call.result.stderr)


@pytest.mark.parametrize("name", list(BAD))
def test_bad_input_in_process(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    from harness.cli import main

    _setup_bad(tmp_path, name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "user-cache"))
    monkeypatch.delenv("HARNESS_CASES_DIR", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # what main sets, undone after the test
    monkeypatch.setattr(sys, "argv", ["harness", *BAD[name].args(tmp_path)])
    with pytest.raises(SystemExit) as info:
        main()
    captured = capsys.readouterr()
    _check_bad(name, tmp_path, info.value.code, captured.err)


# -- good runs ------------------------------------------------------------------------------------


def test_bm25_run_exits_0_prints_scorecard_and_writes_reports(
    runs: dict[str, Any],
) -> None:
    run, _ = runs["calls"]["bm25-then-compare"]
    result = run.result
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    # the scorecard: a row for embedded / bm25 under the documented columns
    assert "embedded" in result.stdout
    assert "bm25" in result.stdout
    for column in ("static", "session", "precision", "recall"):
        assert column in result.stdout

    out = run.cwd / "out"
    names = sorted(p.name for p in out.iterdir() if p.name.startswith("run-"))  # compare writes here too
    stamped = [n for n in names if re.fullmatch(rf"run-embedded-{STAMP}\.(json|md|html)", n)]
    assert len(stamped) == 3
    assert {Path(n).suffix for n in stamped} == {".json", ".md", ".html"}
    assert len({Path(n).stem for n in stamped}) == 1  # one run, one name
    assert set(names) == {
        *stamped,
        "run-embedded-latest.json",
        "run-embedded-latest.md",
        "run-embedded-latest.html",
    }
    for ext in ("json", "md", "html"):
        (stamp_file,) = [n for n in stamped if n.endswith(ext)]
        assert (out / f"run-embedded-latest.{ext}").read_bytes() == (out / stamp_file).read_bytes()
        assert stamp_file in result.stdout  # the report paths are printed

    report = json.loads((out / "run-embedded-latest.json").read_text(encoding="utf-8"))
    (summary,) = report["summary"]
    assert summary["backend"] == "embedded"
    assert summary["mode"] == "bm25"
    assert summary["static_total"] >= 60
    assert summary["static_passed"] == summary["static_total"]
    assert not (runs["cache"]).exists() or not any(runs["cache"].rglob("*.npz")), "bm25 needed no embeddings"


def test_compare_after_a_run_writes_a_compare_file(runs: dict[str, Any]) -> None:
    run, compare = runs["calls"]["bm25-then-compare"]
    result = compare.result
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    out = run.cwd / "out"
    written = [p for p in out.iterdir() if re.fullmatch(rf"compare-{STAMP}\.md", p.name)]
    assert len(written) == 1
    text = written[0].read_text(encoding="utf-8")
    assert "bm25" in text
    assert "embedded" in text
    assert (out / "compare-latest.md").read_text(encoding="utf-8") == text
    (report,) = [p.name for p in out.glob("run-embedded-2*.json")]
    assert f"`{report}`" in text  # names the report it compared


def test_vector_baseline_fails_the_gate_with_committed_embeddings_only(
    runs: dict[str, Any],
) -> None:
    """README: vector always fills its 5 slots, so cases expecting nothing fail; exit 1 is the
    quality gate, not a crash. The user cache is an empty tmp folder and the hub is offline, so
    passing through to scoring proves the committed embeddings cover the built-in suite."""
    (call,) = runs["calls"]["vector"]
    result = call.result
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    assert "fail-under" in result.stderr
    report = json.loads((call.cwd / "out" / "run-embedded-latest.json").read_text(encoding="utf-8"))
    (summary,) = report["summary"]
    assert summary["mode"] == "vector"
    assert summary["errors"] == 0
    assert summary["static_passed"] < summary["static_total"]
    assert not any(runs["cache"].rglob("*.npz")) if runs["cache"].exists() else True


def test_cases_validate_builtin(runs: dict[str, Any]) -> None:
    (call,) = runs["calls"]["validate-builtin"]
    result = call.result
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""
    match = re.search(r"(\d+) static cases", result.stdout)
    assert match, result.stdout
    assert int(match.group(1)) >= 60, result.stdout
    assert "builtin" in result.stdout
