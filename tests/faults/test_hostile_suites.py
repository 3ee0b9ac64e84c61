"""Suites that try to escape, hang or exhaust the machine: each is one stderr line and exit 2 at
load (`harness run`, in process), or a project file skipped with its reason, never a traceback."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from harness.limits import MAX_ARCHIVE_BYTES, MAX_PATH_BYTES, MAX_TEXT_CHARS, MAX_WORD_CHARS
from harness.suites.acervo import load_acervo
from harness.suites.projects.ingest import ingest
from tests.faults.helpers import harness, one_line

TURN = "  - turn: 1\n    user: what is in the project?\n    category: RESOLVE\n"


def _suite(folder: Path, text: str, project: str | None = "p") -> Path:
    """An Acervo suite folder holding `s.yaml` (`text`) and, when named, a small project beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    if project:
        (folder / "projects" / project).mkdir(parents=True, exist_ok=True)
        (folder / "projects" / project / "notes.md").write_text("# Notes\nThe harbor opens at dawn.\n")
    (folder / "s.yaml").write_text(text, encoding="utf-8")
    return folder


def _run(cli, suite: Path, tmp_path: Path, suffix: str = "") -> tuple[int, str]:
    code, _, err = cli("run", "-s", f"acervo:{suite}{suffix}", "-m", "bm25", "--out", str(tmp_path / "out"))
    return code, one_line(err)


@pytest.mark.parametrize("fixture", ["../../../../../../../../etc", "/", "/proc"])
def test_a_project_fixture_outside_the_suite_is_refused(cli, tmp_path: Path, fixture: str) -> None:
    suite = _suite(tmp_path / "suite", f"name: s\nproject_fixture: {fixture}\nturns:\n{TURN}", project=None)
    code, line = _run(cli, suite, tmp_path)
    assert code == 2, line
    assert "s.yaml: project_fixture:" in line, line
    assert "outside the suite's folders" in line, line
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir()), "nothing may run"


def test_a_symlinked_project_fixture_pointing_out_is_refused(cli, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    suite = _suite(tmp_path / "suite", f"name: s\nproject_fixture: p\nturns:\n{TURN}", project=None)
    (suite / "projects").mkdir()
    (suite / "projects" / "p").symlink_to(outside)
    code, line = _run(cli, suite, tmp_path)
    assert code == 2, line
    assert "outside the suite's folders" in line, line


def test_a_projects_folder_named_by_the_user_is_accepted(tmp_path: Path) -> None:
    projects = tmp_path / "mine"
    (projects / "p").mkdir(parents=True)
    suite = _suite(tmp_path / "suite", f"name: s\nproject_fixture: p\nturns:\n{TURN}", project=None)
    loaded = load_acervo(suite, projects=projects)
    assert loaded.scenarios[0].project == (projects / "p").resolve()


BILLION_LAUGHS = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    + f"name: s\nproject_fixture: p\nturns:\n{TURN}"
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BILLION_LAUGHS, "line 2: aliases (*name) are not accepted"),
        ("name: s\n" + "x: " + "[" * 5000 + "]" * 5000 + "\n", "nested deeper than 64 levels"),
        ("x:\n" + "".join("  " * i + "- \n" for i in range(1, 3000)), "nested deeper than 64 levels"),
        (f"name: s\nproject_fixture: p\nname: t\nturns:\n{TURN}", "line 3: duplicate key 'name'"),
        (f"name: s\nproject_fixture: p\nturns:\n{TURN}    category: GROUND\n", "line 7: duplicate key 'category'"),
    ],
    ids=["billion-laughs", "deep-flow", "deep-block", "duplicate-key", "duplicate-key-in-a-turn"],
)
def test_hostile_yaml_is_refused(cli, tmp_path: Path, text: str, message: str) -> None:
    code, line = _run(cli, _suite(tmp_path / "suite", text), tmp_path)
    assert code == 2, line
    assert "s.yaml" in line, line
    assert message in line, line


@pytest.mark.parametrize("field", ["user", "assistant_sim"])
def test_a_turn_over_the_text_limit_is_refused(cli, tmp_path: Path, field: str) -> None:
    huge = "word " * (MAX_TEXT_CHARS // 5 + 1)
    turn = f"  - turn: 1\n    user: hi\n    {field}: {huge}\n    category: RESOLVE\n"
    if field == "user":
        turn = f"  - turn: 1\n    user: {huge}\n    category: RESOLVE\n"
    code, line = _run(cli, _suite(tmp_path / "suite", f"name: s\nproject_fixture: p\nturns:\n{turn}"), tmp_path)
    assert code == 2, line
    assert f"turns[0].{field}" in line, line
    assert f"at most {MAX_TEXT_CHARS} characters" in line, line


def test_a_turn_with_a_word_over_the_limit_is_refused(cli, tmp_path: Path) -> None:
    turn = f"  - turn: 1\n    user: tell me about {'x' * (MAX_WORD_CHARS + 1)}\n    category: RESOLVE\n"
    code, line = _run(cli, _suite(tmp_path / "suite", f"name: s\nproject_fixture: p\nturns:\n{turn}"), tmp_path)
    assert code == 2, line
    assert "turns[0].user" in line, line
    assert f"words are at most {MAX_WORD_CHARS}" in line, line


def _skipped(folder: Path) -> dict[str, str]:
    return {s.path: s.reason for s in ingest(folder).skipped}


def test_an_epub_that_expands_past_the_budget_is_skipped_unread(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    with zipfile.ZipFile(project / "bomb.epub", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/epub+zip")
        with archive.open("OEBPS/zeros.xhtml", "w", force_zip64=True) as member:
            block = b"\0" * 2**20
            for _ in range(MAX_ARCHIVE_BYTES // 2**20 + 1):
                member.write(block)
    assert (project / "bomb.epub").stat().st_size < 1_000_000
    reason = _skipped(project)["bomb.epub"]
    assert f"over {MAX_ARCHIVE_BYTES}" in reason, reason


def test_files_beyond_the_engine_limits_are_skipped_with_their_reason(tmp_path: Path) -> None:
    project = tmp_path / "p"
    deep = project.joinpath(*["d" * 200] * 6)  # 1,206 bytes of folders: under PATH_MAX, over the limit
    deep.mkdir(parents=True)
    (deep / "a.md").write_text("# A\nshort words only\n")
    (project / "long.md").write_text(f"# Long\nthe word {'w' * 3000} is long\n")
    (project / "fine.md").write_text(f"# Fine\nthe word {'w' * MAX_WORD_CHARS} fits\n")
    skipped = _skipped(project)
    (deep_path,) = [p for p in skipped if p.endswith("a.md")]
    assert f"over {MAX_PATH_BYTES}" in skipped[deep_path]
    assert skipped["long.md"] == f"a word of 3000 characters, over {MAX_WORD_CHARS}"
    assert "fine.md" not in skipped


def test_deeply_nested_javascript_is_skipped_not_a_traceback(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "deep.js").write_text("const x = " + "[" * 20000 + "]" * 20000 + ";\nfunction ok() { return 1; }\n")
    (project / "fine.js").write_text("function ok() { return 1; }\n")
    skipped = _skipped(project)
    assert skipped.get("deep.js") == "javascript nested too deeply to parse", skipped
    assert "fine.js" not in skipped


def test_a_file_name_that_is_not_utf8_is_skipped(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "ok.md").write_text("# Ok\nfine\n")
    (project / os.fsdecode(b"caf\xe9.md")).write_text("# Cafe\ntext\n")
    result = ingest(project)
    assert [(s.path, s.reason) for s in result.skipped] == [("caf\ufffd.md", "name not UTF-8")]
    assert all(r.path != "caf\ufffd.md" for r in result.records)


def test_a_fifo_in_a_project_folder_never_blocks_a_run(tmp_path: Path) -> None:
    """Ingest skips it, and so does the scripted agent that measures what reading the folder costs."""
    suite = _suite(tmp_path / "suite", f"name: s\nproject_fixture: p\nturns:\n{TURN}")
    os.mkfifo(suite / "projects" / "p" / "pipe.md")
    done = harness(
        "run", "-s", f"acervo:{suite}", "-m", "bm25", "--out", str(tmp_path / "out"), cwd=tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "conversation-embedded-latest.json").is_file()
