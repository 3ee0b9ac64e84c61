"""The Acervo turn-YAML importer: fields mapped onto checks, project folders found, notes kept,
unknown fields reported, and every malformed file refused in one located line."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import CaseFileError
from harness.models.conversation import Category, Intent
from harness.models.project import RecordKind
from harness.suites.acervo import load_acervo

FOLDER = Path(__file__).parent / "acervo"


def test_fixture_maps_every_field() -> None:
    suite = load_acervo(FOLDER)
    (scenario,) = suite.scenarios
    assert scenario.name == "kiln"
    assert scenario.project == (FOLDER / "fixtures" / "kiln-controller").resolve()
    assert [t.number for t in scenario.turns] == [1, 2, 3, 4, 5, 6, 7]
    first, second, third = scenario.turns[:3]
    assert first.category is Category.ADAPT
    assert first.checks.intent is Intent.OVERVIEW
    assert first.checks.activate_kinds == (RecordKind.OVERVIEW,)  # Acervo's `synthesis`
    assert first.checks.not_activate_kinds == (RecordKind.SYMBOL,)
    assert second.checks.activate_labels == ("safety",)
    assert second.checks.not_activate_labels == ("glaze",)
    assert (second.checks.min_nodes, second.checks.max_nodes) == (1, 8)
    assert (second.checks.warm_tokens_min, second.checks.warm_tokens_max) == (10, 400)
    assert second.checks.contains == ("safetylimitc",)
    assert second.checks.contains_any == ("thermocouple", "open")
    assert second.checks.not_contains == ("celadon",)
    assert second.notes["agent_comparison"]["agent_with_tools"]["steps"] == 2
    assert second.notes["effectiveness"] == {"stateless_can_answer": False}
    assert third.checks.fact_terms == ("hamid", "thursdays")
    assert scenario.turns[4].checks.activate_kinds == (RecordKind.FACT,)  # Acervo's `entity`
    assert suite.dropped == ("kiln.yaml: field 'owner' not used",)


def _write(folder: Path, text: str, project: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if project:
        (folder / "projects" / "p").mkdir(parents=True, exist_ok=True)
        (folder / "projects" / "p" / "a.md").write_text("# A\n\ntext\n")
    (folder / "s.yaml").write_text(text)
    return folder


GOOD_TURN = "  - turn: 1\n    user: hi\n    category: FOCUS\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("name: s\nproject_fixture: p\nturns: [\n", "invalid YAML at line"),
        ("- a\n- b\n", "expected a YAML mapping, got list"),
        ("name: s\nturns:\n" + GOOD_TURN, "project_fixture: Field required"),
        ("name: s\nproject_fixture: missing\nturns:\n" + GOOD_TURN, "project folder 'missing' not found"),
        ("name: s\nproject_fixture: p\nturns: []\n", "turns: List should have at least 1 item"),
        ("name: s\nproject_fixture: p\nturns:\n  - turn: 1\n    user: hi\n    category: DRIFT\n", "turns[0].category"),
        (
            "name: s\nproject_fixture: p\nturns:\n" + GOOD_TURN + "    s3:\n      context_contain: [x]\n",
            "turns[0].s3.context_contain: unknown field",
        ),
        (
            "name: s\nproject_fixture: p\nturns:\n" + GOOD_TURN + "    s2:\n      activate_kinds: [module]\n",
            "unknown node kind 'module'",
        ),
        (
            "name: s\nproject_fixture: p\nturns:\n"
            + GOOD_TURN
            + "    s3:\n      warm_tokens_min: 9\n      warm_tokens_max: 5\n",
            "turns[0].s3.warm_tokens_min: minimum above maximum",
        ),
        ("name: s\nproject_fixture: p\nturns:\n" + GOOD_TURN + GOOD_TURN, "turn numbers must be unique and increasing"),
    ],
)
def test_malformed_files_are_refused(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(CaseFileError) as raised:
        load_acervo(_write(tmp_path, body))
    assert message in str(raised.value)
    assert "s.yaml" in str(raised.value)


def test_not_a_folder_or_no_turn_files(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="not a folder"):
        load_acervo(tmp_path / "nowhere")
    with pytest.raises(CaseFileError, match="no turn files"):
        load_acervo(tmp_path)


def test_not_utf8(tmp_path: Path) -> None:
    _write(tmp_path, "")
    (tmp_path / "s.yaml").write_bytes(b"name: \xff\n")
    with pytest.raises(CaseFileError, match="not UTF-8"):
        load_acervo(tmp_path)


def test_project_found_one_folder_up(tmp_path: Path) -> None:
    (tmp_path / "fixtures" / "p").mkdir(parents=True)
    _write(tmp_path / "scenarios", "name: s\nproject_fixture: p\nturns:\n" + GOOD_TURN, project=False)
    suite = load_acervo(tmp_path / "scenarios")
    assert suite.scenarios[0].project == (tmp_path / "fixtures" / "p").resolve()


# -- Acervo's repository layout, chat-only scenarios, other formats ------------------------------

TURN = (
    "  - turn: 1\n    user: How is the pump primed?\n    category: RESOLVE\n    s3:\n      context_contains: [valve]\n"
)
CHAT = (
    "name: c\ntype: conversation\ndescription: talk only\nturns:\n"
    "  - turn: 1\n    user: Our boat is called Kestrel.\n    category: RESOLVE\n    phase: dump\n"
    "    expected_entities:\n      - {label: Kestrel, type: project}\n    graph_assertions:\n      min_nodes: 1\n"
    "  - turn: 2\n    user: What is the boat called?\n    category: RECALL\n    phase: ask\n"
    "    expected_s2:\n      seeds: [kestrel]\n    s3:\n      context_contains: [kestrel]\n"
)


def _repository(root: Path) -> Path:
    """A repository laid out as Acervo's: scenarios under tests/integration, projects under tests/fixtures."""
    (root / "pyproject.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    scenarios = root / "tests" / "integration" / "scenarios"
    scenarios.mkdir(parents=True)
    (root / "tests" / "fixtures" / "pumps").mkdir(parents=True)
    (root / "tests" / "fixtures" / "pumps" / "pump.md").write_text("# Pump\n\nThe valve opens at three bar.\n")
    (scenarios / "p_bench.yaml").write_text("name: p\nproject_fixture: pumps\nturns:\n" + TURN)
    (scenarios / "c_chat.yaml").write_text(CHAT)
    (scenarios / "old.yaml").write_text("name: old\nturns:\n  - user_msg: hello\n    assistant_msg: hi\n")
    return root


@pytest.mark.parametrize("where", [".", "tests/integration/scenarios"])
def test_the_repository_layout_loads_as_published(tmp_path: Path, where: str) -> None:
    root = _repository(tmp_path / "repo")
    suite = load_acervo(root / where)
    assert suite.source == root / "tests" / "integration" / "scenarios"
    chat, bench = suite.scenarios  # name order: c_chat.yaml, p_bench.yaml; old.yaml left out
    assert bench.project == (root / "tests" / "fixtures" / "pumps").resolve()
    assert chat.project is None
    assert [t.checks.contains for t in chat.turns] == [(), ("kestrel",)]
    assert suite.unjudged == (
        "old.yaml: not loaded: Acervo's older scenario format (turns of user_msg and assistant_msg, run by its "
        "run_benchmarks.py), not a benchmark turn file",
        "c_chat.yaml: expected_entities (turn 1) not judged: typed entities Acervo's S1 model extracts from the "
        "message (the harness stores the user's stated sentences, not typed entities)",
        "c_chat.yaml: graph_assertions (turn 1) not judged: node and edge counts, and their change per turn, of "
        "the graph Acervo's model builds",
        "c_chat.yaml: expected_s2 (turn 2) not judged: seed and warm-layer node ids of Acervo's walk over its "
        "model-built graph",
        "c_chat.yaml: a conversation scenario (no project_fixture): played over an empty memory; the harness "
        "judges intent, budgets and context terms against the facts it stores from the user's messages, not "
        "Acervo's model-built graph",
    )
    assert suite.dropped == (
        "c_chat.yaml: field 'description' not used",
        "c_chat.yaml: field 'phase' not used (turns 1, 2)",
    )


def test_fixtures_are_not_looked_up_beyond_the_repository(tmp_path: Path) -> None:
    root = _repository(tmp_path / "outer" / "repo")
    (tmp_path / "outer" / "fixtures" / "elsewhere").mkdir(parents=True)
    (root / "tests" / "integration" / "scenarios" / "p_bench.yaml").write_text(
        "name: p\nproject_fixture: elsewhere\nturns:\n" + TURN
    )
    with pytest.raises(CaseFileError, match="project folder 'elsewhere' not found"):
        load_acervo(root)


def test_a_scenario_without_a_project_must_say_it_is_chat_only(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text("name: s\ntype: other\nturns:\n" + TURN)
    with pytest.raises(CaseFileError, match="project_fixture: Field required \\(or type: conversation"):
        load_acervo(tmp_path)


def test_a_folder_of_older_format_files_only_has_no_turn_files(tmp_path: Path) -> None:
    (tmp_path / "old.yaml").write_text("name: old\nturns:\n  - user_msg: hello\n")
    with pytest.raises(CaseFileError, match="no turn files"):
        load_acervo(tmp_path)
