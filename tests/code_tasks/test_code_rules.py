"""The code-task rulesets on an original fixture (rules_fixture.py): every task scores what its
ruleset implies, derived by hand; flip one rule of nano-brain-2 and exactly the tasks written for
it change; the report says which record matched each expected item."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness.backends import registry
from harness.evaluation.kind import Engine
from harness.evaluation.kinds.code_tasks.results import CodeTaskResult
from harness.evaluation.kinds.code_tasks.runner import CodeTasksKind
from harness.models.project import Project
from harness.pipeline.code_rules import (
    CODE_RULESETS,
    HARNESS_RULES,
    NANO_BRAIN_1_RULES,
    NANO_BRAIN_2_RULES,
    CodeTaskRules,
    IdentifierPass,
    code_rules,
)
from harness.pipeline.settings import Mode
from harness.suites.code_tasks import load_nano_brain
from harness.suites.projects import ingest
from tests.code_tasks.rules_fixture import EXPECTED, write_shop

Scores = dict[str, tuple[float, float]]


@pytest.fixture(scope="module")
def task_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_shop(tmp_path_factory.mktemp("rules"))


@pytest.fixture(scope="module")
def shop(task_file: Path) -> Project:
    tasks = load_nano_brain(f"{task_file}")
    return ingest(tasks.codebase, exclude=tasks.exclude)


def results(task_file: Path, shop: Project, rules: CodeTaskRules) -> dict[str, CodeTaskResult]:
    kind = CodeTasksKind(load_nano_brain(f"{task_file}"), shop)
    kind.rules = rules
    backend = registry.connect("embedded")
    try:
        steps = list(kind.execute(Engine(backend, None, (Mode.BM25,))))  # type: ignore[arg-type]
    finally:
        backend.close()
    rows = {r.task_id: r for step in steps for r in step.results}
    assert [r.error for r in rows.values() if r.error] == []
    return rows


def scores(rows: dict[str, CodeTaskResult]) -> Scores:
    return {task: (r.recall or 0.0, r.fixed_recall or 0.0) for task, r in rows.items()}


@pytest.fixture(scope="module")
def nano_brain(task_file: Path, shop: Project) -> dict[str, CodeTaskResult]:
    return results(task_file, shop, NANO_BRAIN_2_RULES)


def test_the_file_is_judged_by_nano_brains_second_runner(task_file: Path) -> None:
    assert load_nano_brain(f"{task_file}").rules == "nano-brain-2"
    assert code_rules("nano-brain-1") is NANO_BRAIN_1_RULES
    assert set(CODE_RULESETS) == {"harness", "nano-brain-1", "nano-brain-2"}


def test_every_task_scores_what_nano_brains_rules_imply(nano_brain: dict[str, CodeTaskResult]) -> None:
    assert scores(nano_brain) == {task: pair[0] for task, pair in EXPECTED.items()}


def test_every_task_scores_what_the_harness_rules_imply(task_file: Path, shop: Project) -> None:
    assert scores(results(task_file, shop, HARNESS_RULES)) == {task: pair[1] for task, pair in EXPECTED.items()}


FLIPS: list[tuple[str, Any, set[str]]] = [
    # the dataset's agent block runs (version 2's runner); version 1 calls the task's tools only
    ("agent_pass", False, {"agent-looks-up-the-type", "eight-lookups-at-most"}),
    # a search result's snippet counts among the names
    ("snippet_names", False, {"snippet-credits-body"}),
    # a flow gives names, not paths
    ("flow_paths", True, {"flow-gives-names-only"}),
    # a trace names the calls it passes outside the project
    ("trace_externals", False, {"trace-lists-outside-calls"}),
    # only the tools a task names are called
    ("category_tools", True, {"no-tools-no-category-default"}),
    # identifierQueries: a lowercase dotted name is no identifier
    ("identifiers", IdentifierPass.HARNESS, {"dotted-lowercase-name"}),
    # at most 8 identifier lookups when the agent block sets none
    ("default_symbol_queries", None, {"eight-lookups-at-most"}),
    # a graph tool walks the depth nano-brain's server grants (impact over 3: 1)
    ("server_depths", False, {"impact-depth-as-served"}),
    # a flow follows only the first 8 callee names, by name, of each function it expands
    ("flow_fanout", None, {"flow-fans-out-eight"}),
]


@pytest.mark.parametrize(("field", "flipped", "tasks"), FLIPS, ids=[f for f, _, _ in FLIPS])
def test_each_rule_decides_its_tasks(
    task_file: Path, shop: Project, nano_brain: dict[str, CodeTaskResult], field: str, flipped: Any, tasks: set[str]
) -> None:
    changed = scores(results(task_file, shop, replace(NANO_BRAIN_2_RULES, **{field: flipped})))
    before = scores(nano_brain)
    assert {task for task in changed if changed[task] != before[task]} == tasks


def test_every_rule_that_differs_is_flipped() -> None:
    differing = {f for f in NANO_BRAIN_2_RULES.to_json() if f != "name"}
    assert {field for field, _, _ in FLIPS} == differing


def test_the_result_names_what_matched_each_item(nano_brain: dict[str, CodeTaskResult]) -> None:
    assert nano_brain["trace-lists-outside-calls"].matched_by == {"Itoa": "strconv.Itoa (outside the project) [trace]"}
    assert nano_brain["flow-gives-names-only"].matched_by == {"ListInvoices": "billing/handlers.go#ListInvoices [flow]"}
    assert nano_brain["snippet-credits-body"].matched_by == {"retryBudget": "dispatch/dispatch.go#Dispatch [query]"}
    assert nano_brain["agent-looks-up-the-type"].matched_by == {
        "billing/store.go": "billing/store.go#InvoiceStore [symbols_identifiers]"
    }
