"""pytest items for every kind, run as a user runs them: pytest on the item tests (in this process;
with xdist, its workers). Collection lists every built-in suite's items, of all five kinds; a
failing lifecycle scenario or haystack question fails its own item with the judge's reasons where
its mode is asserted, and a scenario is an xfail where it is measured; a conversation turn is held
to its committed baseline."""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from harness.evaluation.kinds import KindOptions, kinds_for
from harness.pipeline.settings import Mode
from harness.suites.datasets import DATA_DIR_ENV
from harness.suites.resolve import cases_dir
from tests.plugin.builtin import builtin_items
from tests.plugin.inner import ITEM_TESTS, inner_pytest

UNANSWERABLE = {
    "name": "unanswerable",
    "memories": [
        {"id": "s1", "label": "signal", "summary": "tomato staking in june", "salience": 0.8, "state": "active"},
        {"id": "s2", "label": "signal", "summary": "vault token rotation", "salience": 0.8, "state": "active"},
        {"id": "n1", "label": "noise", "summary": "office plant watering", "salience": 0.3, "state": "active"},
    ],
    "queries": [{"query": "tomato staking", "expected_ids": ["s2"]}],
}
"""Nothing answers the query with the memory it expects: P@5 and MRR are 0, the grade FAIL."""


def _pytest(
    pytester: pytest.Pytester, *args: str, items: tuple[str, ...] = (), data: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """pytest on the item tests in `pytester.path`: all of them, or the `items` named (their ids);
    `data`: the folder datasets are read from (HARNESS_DATA_DIR)."""
    pytester.makepyfile(test_items=ITEM_TESTS)
    selected = [f"test_items.py::test_item[{i}]" for i in items] or ["test_items.py"]
    env = {DATA_DIR_ENV: str(data)} if data is not None else {}
    return inner_pytest(pytester, "-q", "-rfx", *selected, "--harness-backend", "embedded", *args, env=env)


def _outcomes(output: str) -> dict[str, str]:
    """Item id -> FAILED / XFAIL, from the short test summary."""
    return dict((m[1], m[0]) for m in re.findall(r"^(FAILED|XFAIL) test_items\.py::test_item\[(.+?)\]", output, re.M))


def test_collection_lists_every_item_of_the_five_built_in_kinds_under_xdist(pytester: pytest.Pytester) -> None:
    run = _pytest(pytester, "-n", "2", "--collect-only", "-o", "harness_collect=builtin")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    ids = re.findall(r"^test_items\.py::test_item\[(.+)\]$", run.stdout, re.M)
    kinds = Counter(re.match(r"(beliefs|haystack|lifecycle|conversation|code-tasks)-embedded-bm25-", i)[1] for i in ids)
    assert kinds == builtin_items()
    assert "haystack-embedded-bm25-hb-commute" in ids
    assert "lifecycle-embedded-bm25-multi-hop-chains" in ids
    assert "conversation-embedded-bm25-salt-road#1" in ids


def _session(session_id: str, *lines: str) -> tuple[str, list[dict[str, object]]]:
    return session_id, [{"role": "user", "content": line, "has_answer": False} for line in lines]


def oracle_file(
    folder: Path, shed_evidence: str = "I painted the garden shed a deep green colour last weekend.", miss: bool = True
) -> Path:
    """A LongMemEval-format file named as the oracle, written for this test: `q-shed` asks in the
    words of its evidence (bm25 finds it, unless `shed_evidence` says it otherwise); `q-violin`
    (with `miss`), whose evidence shares no word with the question while a distractor shares three."""

    def record(qid: str, question: str, gold: str, sessions: list[tuple[str, list[dict[str, object]]]]) -> dict:
        return {
            "question_id": qid,
            "question_type": "single-session-user",
            "question": question,
            "answer": "-",
            "question_date": "2024/01/10 (Wed) 10:00",
            "haystack_session_ids": [sid for sid, _ in sessions],
            "haystack_dates": ["2024/01/08 (Mon) 09:00"] * len(sessions),
            "haystack_sessions": [turns for _, turns in sessions],
            "answer_session_ids": [gold],
        }

    distractors = [
        _session("d-tyres", "I bought new tyres for the car."),
        _session("d-rye", "The bakery sells rye bread."),
    ]
    shed = [
        record(
            "q-shed",
            "Which colour did I paint the garden shed?",
            "e-shed",
            [distractors[0], _session("e-shed", shed_evidence), distractors[1]],
        )
    ]
    violin = [
        record(
            "q-violin",
            "What instrument did my daughter start learning?",
            "e-violin",
            [
                _session("d-garden", "My daughter and I want to start learning how to grow a vegetable garden."),
                _session("e-violin", "Maya began violin lessons at school on Tuesday."),
                *distractors,
            ],
        )
    ]
    records = shed + violin if miss else shed
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "longmemeval_oracle.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_a_missed_haystack_question_fails_its_own_item_with_its_reasons(pytester: pytest.Pytester) -> None:
    data = oracle_file(pytester.path / "data").parent
    run = _pytest(pytester, "-n", "2", "--harness-suite", "haystack:longmemeval-oracle", data=data)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    assert _outcomes(run.stdout) == {"haystack-embedded-bm25-q-violin": "FAILED"}, run.stdout[-3000:]
    assert "q-violin: session: ranked below the top: gold e-violin not in the top 1 (ranked first: d-garden" in run.stdout
    assert "1 failed, 1 passed" in run.stdout


@pytest.fixture(scope="module")
def broken_scenarios(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scenario file written for these tests, its texts embedded here first (into the user's cache,
    as `harness embed` would): the lifecycle kind embeds them, and a session in this process must
    find them cached, never import the model's torch itself (pytester unloads what a session
    imported, and torch cannot be imported twice in one process)."""
    path = tmp_path_factory.mktemp("scenarios") / "scenarios.json"
    path.write_text(json.dumps({"source": "written for this test", "scenarios": [UNANSWERABLE]}), encoding="utf-8")
    (planned,) = kinds_for([f"mnemonic:{path}"], KindOptions([Mode.BM25]))
    planned.kind.prepare()
    return path


def test_a_failing_scenario_fails_its_own_item_with_its_reasons_where_its_mode_is_asserted(
    pytester: pytest.Pytester, broken_scenarios: Path
) -> None:
    run = _pytest(pytester, "-n", "2", "--harness-suite", f"mnemonic:{broken_scenarios}", "--harness-mode", "bm25")
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    assert _outcomes(run.stdout) == {"lifecycle-embedded-bm25-unanswerable": "FAILED"}, run.stdout[-3000:]
    assert "precision: ranking quality: 0.00 grades FAIL (PASS at 0.7, WARN at 0.5)" in run.stdout
    assert "mrr: ranking quality: 0.00 grades FAIL (PASS at 0.6, WARN at 0.4)" in run.stdout
    assert "1 failed" in run.stdout


def test_a_failing_scenario_in_a_mode_not_asserted_is_an_xfail_with_its_reasons(
    pytester: pytest.Pytester, broken_scenarios: Path
) -> None:
    run = _pytest(pytester, "--harness-suite", f"mnemonic:{broken_scenarios}")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert _outcomes(run.stdout) == {"lifecycle-embedded-bm25-unanswerable": "XFAIL"}, run.stdout[-3000:]
    assert "bm25 not asserted for lifecycle, no baseline: precision: ranking quality: 0.00 grades FAIL" in run.stdout


def test_a_turn_is_held_to_its_committed_baseline(pytester: pytest.Pytester) -> None:
    """The bm25 baseline records harbor-log#14 failing and #13 passing: recorded the other way
    round, #14 is a regression (it fails) and #13 passes as it did."""
    frozen = cases_dir() / "baselines" / "conversation-builtin-0fec47cdfa" / "embedded-bm25.json"
    data = json.loads(frozen.read_text())
    assert data["cases"]["harbor-log#14"] == {"passed": False}
    assert data["cases"]["harbor-log#13"] == {"passed": True}
    turns = ("conversation-embedded-bm25-harbor-log#13", "conversation-embedded-bm25-harbor-log#14")
    as_committed = _pytest(pytester, "--harness-suite", "conversation:builtin", items=turns)
    assert as_committed.returncode == 0, as_committed.stdout[-3000:]
    assert _outcomes(as_committed.stdout) == {"conversation-embedded-bm25-harbor-log#14": "XFAIL"}
    assert "1 passed, 1 xfailed" in as_committed.stdout

    data["cases"]["harbor-log#14"], data["cases"]["harbor-log#13"] = {"passed": True}, {"passed": False}
    changed = pytester.path / "baselines" / frozen.parent.name / frozen.name
    changed.parent.mkdir(parents=True)
    changed.write_text(json.dumps(data))
    run = _pytest(
        pytester,
        "--harness-suite",
        "conversation:builtin",
        "--harness-baseline-dir",
        str(changed.parents[1]),
        items=turns,
    )
    assert run.returncode == 1, run.stdout[-3000:]
    assert _outcomes(run.stdout) == {"conversation-embedded-bm25-harbor-log#14": "FAILED"}
    assert "harbor-log#14: not recorded failing in the baseline" in run.stdout
    assert "1 failed, 1 passed" in run.stdout


def test_a_system_that_does_not_run_on_the_backend_is_a_usage_error_as_in_harness_run(
    pytester: pytest.Pytester,
) -> None:
    """The session checks its backends and systems with `harness run`'s own check (`matrix_axes`):
    mem0 stores in PostgreSQL, so on the embedded backend it is refused before anything is collected."""
    run = _pytest(pytester, "--harness-system", "mem0")
    assert run.returncode == 4, run.stdout[-2000:] + run.stderr[-2000:]  # pytest's usage error
    assert "harness: system 'mem0' does not run on embedded (it runs on: postgres)" in run.stderr
