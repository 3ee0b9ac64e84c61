"""A public suite is known by its content (issue 43): the sha256 of its published files, whatever
the folder or file names a user gives them; a changed file is another suite and says so; a
subset of a suite is none."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from harness.evaluation.kind import KindOptions
from harness.evaluation.kinds import kinds_for
from harness.pipeline.settings import Mode
from harness.suites.public import PUBLIC_SUITES, placement

SHARED = Path(__file__).parents[3] / "shared" / "datasets"
BY_NAME = {s.name: s for s in PUBLIC_SUITES}


def _digest(suite: str, file: str) -> str:
    (found,) = [next(iter(f.digests)) for f in BY_NAME[suite].files if f.name == file]
    return found


def _report(inputs: dict[str, str], **settings: Any) -> dict[str, Any]:
    return {"kind": "beliefs", "inputs": [{"path": p, "sha256": d} for p, d in inputs.items()], "settings": settings}


SEED = _digest("precisionmembench-static", "beliefs.seed.json")
STATIC = _digest("precisionmembench-static", "retrieval.cases.json")
SESSION = _digest("precisionmembench-session", "session-retrieval.cases.json")


def test_pmbs_fixtures_in_a_folder_of_any_name_are_its_two_suites() -> None:
    placed = placement(_report({"/x/mine/a.json": SEED, "/x/mine/b.json": STATIC, "/x/mine/c.json": SESSION}))
    assert [s.name for s in placed.suites] == ["precisionmembench-static", "precisionmembench-session"]
    assert placed.notes == ()


def test_the_static_files_alone_are_the_static_suite_alone() -> None:
    placed = placement(_report({"seed.json": SEED, "cases.json": STATIC}))
    assert [s.name for s in placed.suites] == ["precisionmembench-static"]


def test_a_changed_file_is_another_suite_and_the_placement_says_so() -> None:
    placed = placement(_report({"pmb/beliefs.seed.json": SEED, "pmb/retrieval.cases.json": "0" * 64}))
    assert placed.suites == ()
    (note,) = placed.notes
    assert note.startswith("PrecisionMemBench static: retrieval.cases.json differ")
    assert "ec8347b358cc" in note


def test_a_subset_of_a_public_suite_is_none() -> None:
    placed = placement(_report({"a": SEED, "b": STATIC}, limit=10))
    assert placed.suites == ()
    assert placed.notes == ("PrecisionMemBench static: a subset (--limit 10), not the whole suite",)


def test_a_sampling_method_without_a_limit_is_the_whole_suite() -> None:
    """A dataset run records its sampling method (`head`) even when it asks every question."""
    placed = placement(_report({"a": SEED, "b": STATIC}, limit=None, sample="head"))
    assert [s.name for s in placed.suites] == ["precisionmembench-static"]


def test_another_kinds_suite_is_never_met() -> None:
    assert placement(_report({"a": SEED, "b": STATIC}) | {"kind": "haystack"}).suites == ()


@pytest.mark.parametrize(
    ("suite", "path"),
    [
        ("precisionmembench-static", "precisionmembench/beliefs.seed.json"),
        ("precisionmembench-static", "precisionmembench/retrieval.cases.json"),
        ("precisionmembench-session", "precisionmembench/session-retrieval.cases.json"),
        ("locomo", "locomo10.json"),
        ("longmemeval-s", "longmemeval_s.json.xz"),
    ],
)
def test_the_recorded_digests_are_the_files_as_published(suite: str, path: str) -> None:
    """The digests are those of the files `../shared/datasets` holds (PrecisionMemBench's at
    18c7955, byte for byte those of ec8347b; shared/datasets/README.md)."""
    file = SHARED / path
    if not file.is_file():
        pytest.skip(f"{file} is absent (a clone without ../shared)")
    digest = hashlib.sha256(file.read_bytes()).hexdigest()
    assert digest in {d for f in BY_NAME[suite].files for d in f.digests}


def test_two_suites_of_one_kind_are_two_kinds_and_two_reports() -> None:
    """Two belief suites in one run never make one report, hence never one column."""
    planned = kinds_for(["builtin", "builtin"], KindOptions([Mode.BM25]))
    assert [p.spec.name for p in planned] == ["beliefs", "beliefs"]
    assert [p.kind.baseline_suite for p in planned] == ["builtin", "builtin"]


def _of(kind: str, **inputs: str) -> dict[str, Any]:
    return _report(inputs) | {"kind": kind}


ACERVO = {f.name: next(iter(f.digests)) for f in BY_NAME["acervo"].files}


def test_mnemonics_scenarios_go_is_its_benchmark_whatever_its_folder() -> None:
    (scenarios,) = BY_NAME["mnemonic-benchmark-quality"].files
    placed = placement(_of("lifecycle", **{"/mine/peer.go": next(iter(scenarios.digests))}))
    assert [s.name for s in placed.suites] == ["mnemonic-benchmark-quality"]
    assert (
        placement(_of("lifecycle", **{"/x/scenarios.go": "0" * 64}))
        .notes[0]
        .startswith("Mnemonic benchmark-quality: scenarios.go differ")
    )


def test_acervos_project_files_alone_are_its_suite_and_with_its_chat_only_files_are_not() -> None:
    """Acervo's category scores count its three project files' turns: its chat-only scenarios,
    in the same folder, would add theirs."""
    assert [s.name for s in placement(_of("conversation", **ACERVO)).suites] == ["acervo"]
    placed = placement(_of("conversation", **ACERVO, **{"c1_multi_project.yaml": "1" * 64}))
    assert placed.suites == ()
    assert placed.notes == (
        "Acervo indexed projects: read together with c1_multi_project.yaml; its measures count its own items "
        "alone, so this is another suite",
    )


def test_nano_brains_tasks_with_the_agent_block_are_its_suite_with_a_caveat() -> None:
    (tasks,) = BY_NAME["nano-brain-capability"].files
    frozen, agent = tasks.digests
    assert placement(_of("code-tasks", **{"dataset.json": frozen})).caveats == ()
    placed = placement(_of("code-tasks", **{"dataset.json": agent}))
    assert [s.name for s in placed.suites] == ["nano-brain-capability"]
    assert placed.caveats == (f"nano-brain capability: dataset.json {tasks.digests[agent]}",)
