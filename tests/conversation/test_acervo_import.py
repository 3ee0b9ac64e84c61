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
