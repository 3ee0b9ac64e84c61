"""The GitHub Action (action.yml) run as a caller's workflow runs it, outside GitHub: its `run:` steps
in order, each with bash as GitHub runs a `shell: bash` step, its `env:` filled from the inputs, and
a temporary GITHUB_STEP_SUMMARY, GITHUB_OUTPUT and GITHUB_ACTION_PATH; its `uses:` steps are only
checked (pinned), not run. Against the example memory service, with baselines frozen in the
caller's workspace: a clean run passes, and a run of the service made worse fails on the regression."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import junitparser
import pytest
import yaml

from tests.action.service import ROOT, example_service, free_port

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
EXAMPLE = yaml.safe_load((ROOT / "examples" / ".github" / "workflows" / "memory-ci.yml").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
INPUT = re.compile(r"\$\{\{ inputs\.([a-z-]+) \}\}")
PINNED = re.compile(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}")


@dataclass(frozen=True)
class Ran:
    exit_code: int
    summary: str
    outputs: dict[str, str]
    stderr: str


def step_env(step: dict[str, Any], inputs: dict[str, str]) -> dict[str, str]:
    """A step's `env:`, each value exactly one input, as the runner expands it (defaults where not given)."""
    declared = ACTION["inputs"]
    env = {}
    for name, value in (step.get("env") or {}).items():
        match = INPUT.fullmatch(value)
        assert match, f"{name}: {value!r} is not one input"
        key = match.group(1)
        env[name] = inputs.get(key, str(declared[key].get("default", "")))
    return env


def run_action(inputs: dict[str, str], workspace: Path, path: str | None = None) -> Ran:
    """The `run:` steps in order until one fails, as GitHub runs them; `path`: the PATH they see."""
    summary, outputs = workspace / "summary.md", workspace / "output.txt"
    summary.write_text("", encoding="utf-8")
    outputs.write_text("", encoding="utf-8")
    base = {
        **os.environ,
        "PATH": path or f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "HARNESS_STATE_DIR": str(workspace / "state"),
        "COLUMNS": "200",
    }
    code, stderr = 0, ""
    for step in (s for s in STEPS if "run" in s):
        assert step["shell"] == "bash"
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env={**base, **step_env(step, inputs)},
            capture_output=True,
            text=True,
            timeout=300,
        )
        stderr += done.stderr
        if done.returncode != 0:
            code = done.returncode
            break
    pairs = (line.split("=", 1) for line in outputs.read_text(encoding="utf-8").splitlines())
    return Ran(code, summary.read_text(encoding="utf-8"), dict(pairs), stderr)


def test_the_action_is_pinned_and_expands_no_input_in_a_script() -> None:
    uses = [s["uses"] for s in STEPS if "uses" in s]
    assert [u.split("@")[0] for u in uses] == ["actions/setup-python", "actions/upload-artifact"]
    assert all(PINNED.fullmatch(u) for u in uses)
    (upload,) = (s for s in STEPS if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()"  # the reports of a failed check too
    assert upload["with"]["path"] == "${{ inputs.out }}"
    assert not any("${{" in s["run"] for s in STEPS if "run" in s)
    outputs = {name: o["value"] for name, o in ACTION["outputs"].items()}
    assert set(outputs) == {"reports", "junit", "pass-rate", "regressed-baselines", "regressed-cases"}
    assert all(value == f"${{{{ steps.run.outputs.{name} }}}}" for name, value in outputs.items())


def test_the_example_workflow_uses_only_inputs_the_action_declares() -> None:
    (step,) = (s for s in EXAMPLE["jobs"]["harness"]["steps"] if "memory-retrieval-harness" in s.get("uses", ""))
    assert PINNED.fullmatch(step["uses"])
    assert set(step["with"]) <= set(ACTION["inputs"])
    assert {name for name, i in ACTION["inputs"].items() if i.get("required")} <= set(step["with"])


@pytest.mark.parametrize(
    ("extras", "installed"), [("", str(ROOT)), ("containers,postgres", f"{ROOT}[containers,postgres]")]
)
def test_the_install_step_installs_the_action_s_own_checkout(tmp_path: Path, extras: str, installed: str) -> None:
    """With a `python` on PATH that records its arguments and `harness` absent, the run stops after the
    install step: what it ran is pip installing the action's own folder, with the extras asked."""
    shims = tmp_path / "bin"
    shims.mkdir()
    (shims / "python").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {tmp_path}/argv\n', encoding="utf-8")
    (shims / "python").chmod(0o755)
    ran = run_action({"systems": "reference", "extras": extras}, tmp_path, path=f"{shims}{os.pathsep}/usr/bin:/bin")
    assert (tmp_path / "argv").read_text(encoding="utf-8").splitlines() == ["-m", "pip", "install", installed]
    assert ran.exit_code == 127  # then `harness ci`, not on this PATH
    not_installed = run_action({"systems": "reference", "install": "false"}, tmp_path, path=f"{shims}:/usr/bin:/bin")
    assert not_installed.exit_code == 127
    assert (tmp_path / "argv").read_text(encoding="utf-8").splitlines()[-1] == installed  # not run again


def junit_failed(path: Path) -> tuple[set[str], set[str]]:
    """(every case, the failed cases) of a JUnit file by name, read with a JUnit reader."""
    cases = [case for suite in junitparser.JUnitXml.fromfile(str(path)) for case in suite]
    failed = {c.name for c in cases if c.result and isinstance(c.result[0], junitparser.Failure)}
    return {c.name for c in cases}, failed


FREEZE = ("-s", "builtin", "-m", "bm25", "--baseline-dir", "baselines", "--out", "frozen")


def test_a_clean_run_passes_and_a_regression_fails_the_step(tmp_path: Path) -> None:
    port = free_port()
    system = f"http:http://127.0.0.1:{port}"
    inputs = {"systems": system, "suites": "builtin", "modes": "bm25", "install": "false"}
    with example_service(port=port):
        frozen = subprocess.run(
            [Path(sys.executable).parent / "harness", "baseline", "freeze", "--system", system, *FREEZE],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "HARNESS_STATE_DIR": str(tmp_path / "state")},
        )
        assert frozen.returncode == 0, frozen.stderr[-2000:]
        clean = run_action(inputs, tmp_path)
    assert clean.exit_code == 0, clean.stderr[-3000:]
    assert clean.summary.startswith("## memory-retrieval-harness: passed")
    assert "Regressed" not in clean.summary
    assert "| embedded | bm25 |" in clean.summary  # the scorecard, as a table
    assert (clean.outputs["regressed-baselines"], clean.outputs["regressed-cases"]) == ("0", "0")
    cases, failed = junit_failed(tmp_path / clean.outputs["junit"])
    assert float(clean.outputs["pass-rate"]) == pytest.approx(1 - len(failed) / len(cases), abs=1e-4)

    with example_service("--max-results", "1", port=port):  # the same system, made worse
        worse = run_action(inputs, tmp_path)
    assert worse.exit_code == 1, worse.stderr[-3000:]
    assert worse.summary.startswith("## memory-retrieval-harness: failed (exit 1)")
    _, failed_now = junit_failed(tmp_path / worse.outputs["junit"])
    regressed = len(failed_now - failed)  # passed at the baseline (the clean run), failed now
    assert regressed > 1
    assert (worse.outputs["regressed-baselines"], worse.outputs["regressed-cases"]) == ("1", str(regressed))
    assert f"**Regressed against the baseline**: {regressed} cases in 1 baseline" in worse.summary
    assert f"- `builtin / embedded / bm25 / {system}`: {regressed} cases regressed" in worse.summary
    assert f": FAILED (cases: {regressed} regressed, " in worse.summary
