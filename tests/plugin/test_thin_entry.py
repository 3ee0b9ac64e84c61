"""The plugin's entry loads in every pytest session of an environment that has the harness
installed: in a folder of someone else's tests, given no `--harness-*` option, it imports no
harness module beyond itself, collects no harness item and adds no option without the `--harness-`
prefix. Run in a subprocess from a folder with no conftest and no ini, as a memory-system author's
repository would be."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ENTRY = {"harness", "harness.pytest_plugin", "harness.pytest_plugin.run"}
"""What the entry may import of the harness: its package, itself and its module of names."""

PROBE = """
import json, sys
import pytest
code = pytest.main(sys.argv[1:])
print(json.dumps({"code": int(code), "modules": sorted(m for m in sys.modules if m.split(".")[0] == "harness")}))
"""
"""pytest in process, then the harness modules it left in `sys.modules`, as the last line."""


def _env() -> dict[str, str]:
    unset = {"PYTEST_ADDOPTS", "PYTEST_PLUGINS", "HARNESS_FREEZE"}
    return {k: v for k, v in os.environ.items() if k not in unset}


def _session(folder: Path, *args: str) -> tuple[int, set[str], str]:
    """pytest in `folder` (Popoto's plugin off: it flushes a Redis database): exit code, harness modules, output."""
    command = [sys.executable, "-c", PROBE, "-q", "-p", "no:cacheprovider", "-p", "no:popoto", "-rs", *args]
    run = subprocess.run(command, cwd=folder, env=_env(), capture_output=True, text=True, timeout=300)
    last = json.loads(run.stdout.strip().splitlines()[-1])
    return last["code"], set(last["modules"]), run.stdout + run.stderr


def test_a_session_of_other_tests_imports_only_the_entry(tmp_path: Path) -> None:
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    code, modules, output = _session(tmp_path)
    assert code == 0, output
    assert "harness.pytest_plugin" in modules, "the entry point did not load: this test would show nothing"
    assert modules <= ENTRY, f"imported beyond the entry: {sorted(modules - ENTRY)}"


def test_a_harness_option_sets_the_harness_up(tmp_path: Path) -> None:
    """The other side of the test above: asked for, the harness is imported (the probe sees it); `-k`
    leaves out the items the option adds (tests/plugin/test_author_route.py runs them)."""
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n", encoding="utf-8")
    code, modules, output = _session(tmp_path, "--harness-backend", "embedded", "-k", "test_one")
    assert code == 0, output
    assert {"harness.pytest_plugin.session", "harness.evaluation.kinds", "harness.pipeline"} <= modules


def test_an_item_test_without_a_selected_suite_is_skipped_saying_how_to_select_one(tmp_path: Path) -> None:
    items = "def test_item(harness_item, harness_check):\n    harness_check(harness_item)\n"
    (tmp_path / "test_items.py").write_text(items, encoding="utf-8")
    code, modules, output = _session(tmp_path)
    assert code == 0, output
    assert "1 skipped" in output, output
    assert "no suite selected: give a --harness-* option (--harness-suite SPEC" in output, output
    assert "or set harness_collect = builtin in the ini" in output, output
    assert modules <= ENTRY, f"imported beyond the entry: {sorted(modules - ENTRY)}"


def test_help_names_every_harness_option_with_its_prefix(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pytest", "--help", "-p", "no:popoto"]
    run = subprocess.run(command, cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    section = run.stdout.split("memory retrieval harness", 1)[1].split("\n\n", 1)[0]
    options = re.findall(r"^  (--[\w-]+)", section, re.M)
    assert "--harness-backend" in options, section
    assert [o for o in options if not o.startswith("--harness-")] == [], section
    for unprefixed in ("--backend", "--mode", "--suite", "--system", "--check-baseline", "--baseline-dir"):
        assert not re.search(rf"^\s+{unprefixed}\b", run.stdout, re.M), f"{unprefixed} in pytest --help"
    inis = re.findall(r"^  (\w+) \(", run.stdout, re.M)
    assert [i for i in inis if "harness" in i] == ["harness_collect"]
