"""A run of each kind of case on the embedded backend (bm25), each with items that fail, written
into one temporary folder by `harness run` itself: the JSON reports and HTML pages the page tests
read. Each kind's failed items are read here from its JSON by the kind's own field, not the page's."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.resources import data_root
from tests.datasets.builders import longmemeval_record, longmemeval_records

Item = dict[str, Any]

FAILED: dict[str, tuple[str, Callable[[Item], bool]]] = {
    "beliefs": ("cases", lambda i: not i["passed"] or bool(i["error"])),
    "haystack": (
        "questions",
        lambda i: (
            i["status"] == "error" or (i["status"] == "ok" and i["levels"]["session"]["metrics"]["recall_all@10"] < 1)
        ),
    ),
    "code-tasks": ("results", lambda i: i["recall"] < 1 or bool(i["error"])),
    "lifecycle": ("results", lambda i: i["grade"] == "FAIL" or bool(i["error"])),
    "conversation": ("turns", lambda i: not i["passed"] or bool(i["error"])),
}
"""Per kind: where its report lists items, and which of them failed, by the report's own verdict field."""


def harness(tmp_path: Path, *args: str) -> int:
    """`harness ARGS` in this process, in `tmp_path`: its exit code."""
    from harness.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        patch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "user-cache"))
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setattr(sys, "argv", ["harness", *args])
        with pytest.raises(SystemExit) as info:
            main()
    return int(info.value.code or 0)


def belief_suite(root: Path, case: int = 0, wrong: str = "m-ent-k8s-cluster") -> Path:
    """The built-in belief suite, with one case (`case`) expecting another memory (`wrong`) than the one it finds."""
    suite = root / "beliefs"
    shutil.copytree(data_root() / "cases" / "builtin", suite)
    static = json.loads((suite / "static.json").read_text())
    static["cases"][case]["expect"]["relevant"]["should_only_include"] = [wrong]
    (suite / "static.json").write_text(json.dumps(static))
    return suite


def code_tasks(root: Path) -> Path:
    """The nano-brain example's tasks, with one task no answer satisfies."""
    capability = data_root() / "cases" / "code-tasks" / "nano-brain-format" / "ledger"
    shutil.copytree(capability, root / "ledger")
    tasks = root / "ledger" / "benchmarks" / "capability" / "dataset.json"
    data = json.loads(tasks.read_text())
    data["tasks"].insert(0, {"id": "impossible", "category": "search-qa", "question": "q", "input": {"query": "q"}})
    data["tasks"][0]["expect_files"] = ["nowhere/"]
    tasks.write_text(json.dumps(data))
    return tasks


def dataset_file(root: Path) -> Path:
    """Three LongMemEval questions and one whose answer shares no word with it (bm25 cannot find it)."""
    missed = longmemeval_record(
        "q4",
        "Which museum did I visit?",
        {
            "answer_4": [("user", "Spent Saturday looking at paintings at the Prado.", True)],
            "filler_4": [("user", "Which museum should a visitor see first in Madrid?", False)],
        },
        ["answer_4"],
    )
    path = root / "longmemeval_small.json"
    path.write_text(json.dumps([*longmemeval_records(), missed]))
    return path


def write_reports(root: Path) -> dict[str, Path]:
    """Run every kind into `root/reports`; per kind, the JSON report written."""
    runs = {
        "beliefs": (["--suite", str(belief_suite(root))], "run-embedded"),
        "haystack": (
            ["--dataset", "longmemeval-s", "--file", str(dataset_file(root))],
            "dataset-longmemeval-s-session",
        ),
        "code-tasks": (["--suite", f"nano-brain:{code_tasks(root)}"], "code-tasks-ledger-embedded"),
        "lifecycle": (["--suite", "lifecycle:builtin"], "lifecycle-embedded"),
        "conversation": (["--suite", "conversation:builtin"], "conversation-embedded"),
    }
    out = root / "reports"
    written = {}
    for kind, (args, stem) in runs.items():
        assert harness(root, "run", "-m", "bm25", "--out", str(out), *args) in (0, 1), kind  # 1: a failed gate
        written[kind] = out / f"{stem}-latest.json"
    return written


def failed_items(report: dict[str, Any]) -> list[Item]:
    key, failed = FAILED[report["kind"]]
    return [item for item in report[key] if failed(item)]
