"""The built wheel runs without the checkout: cases, container specs and Dockerfiles travel inside it.

Builds the wheel from a copy of the source tree, installs it into a fresh virtual environment
(its dependencies come from the package index), and runs `harness` from a folder outside the
checkout with no PYTHONPATH, as a user who ran `pip install` would.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.resources import DATA_FOLDERS
from harness.suites import BUILTIN, load_suite

SOURCE = Path(__file__).resolve().parents[2]
_EVERYWHERE = shutil.ignore_patterns("__pycache__", "*.egg-info", ".*cache*")
_AT_TOP = {".git", ".venv", "build", "dist", "reports"}


def _not_source(folder: str, names: list[str]) -> set[str]:
    """What the copy leaves out: caches anywhere, and the checkout's own outputs at its top."""
    return set(_EVERYWHERE(folder, names)) | (_AT_TOP & set(names) if Path(folder) == SOURCE else set())


def _run(command: list[str | Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HARNESS_CASES_DIR", "VIRTUAL_ENV")}
    done = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def _install(root: Path) -> tuple[Path, Path]:
    """(the fresh venv's bin folder, a working folder outside the checkout)."""
    source, dist, work = root / "source", root / "dist", root / "work"
    shutil.copytree(SOURCE, source, ignore=_not_source)
    work.mkdir()
    _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", dist, source], root
    )
    (wheel,) = dist.glob("memory_retrieval_harness-*.whl")
    _run([sys.executable, "-m", "venv", root / "venv"], root)
    bin_dir = root / "venv" / "bin"
    _run([bin_dir / "pip", "install", "--quiet", "--prefer-binary", wheel], root)
    return bin_dir, work


def test_the_installed_wheel_runs_without_the_checkout(tmp_path: Path) -> None:
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed: no wheel can be built here")
    bin_dir, work = _install(tmp_path)
    _carries_the_data_folders(bin_dir, work)
    _validates_and_runs_the_builtin_suite(bin_dir, work)


def _carries_the_data_folders(bin_dir: Path, work: Path) -> None:
    code = "import harness.resources as r; print(r.data_root()); print(r.checkout_root())"
    data_root, checkout = _run([bin_dir / "python", "-c", code], work).stdout.split()
    assert Path(data_root).is_relative_to(bin_dir.parent)
    assert checkout == "None"
    assert all((Path(data_root) / name).is_dir() for name in DATA_FOLDERS)
    # every container spec's Dockerfile is where `harness images build` looks for it
    specs = list((Path(data_root) / "containers").glob("*.toml"))
    dockerfiles = [tomllib.loads(p.read_text(encoding="utf-8")).get("dockerfile") for p in specs]
    assert specs
    assert all((Path(data_root) / "docker" / d).is_file() for d in dockerfiles if d)
    assert any(dockerfiles)
    assert (Path(data_root) / "docker" / "make-base-image.sh").is_file()


def _validates_and_runs_the_builtin_suite(bin_dir: Path, work: Path) -> None:
    suite = load_suite(BUILTIN)
    validated = _run([bin_dir / "harness", "cases", "validate", "builtin"], work)
    assert (
        f"ok: builtin: {len(suite.corpus.memories)} memories, {len(suite.static_cases)} static cases"
        in validated.stdout
    )
    _run([bin_dir / "harness", "run", "-m", "bm25", "--fail-under", "1", "--out", work / "reports"], work)
    report = json.loads((work / "reports" / "run-embedded-latest.json").read_text(encoding="utf-8"))
    (summary,) = report["summary"]
    assert (summary["static_passed"], summary["static_total"]) == (len(suite.static_cases), len(suite.static_cases))
    assert report["meta"]["git_commit"] is None
