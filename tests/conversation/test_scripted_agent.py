"""The scripted agent: lists, searches, opens the files the searches found (most words matched
first), then the rest in path order, until every answer group has a term in what it has read."""

from __future__ import annotations

from pathlib import Path

from harness import tokens
from harness.evaluation.kinds.conversation.agent import SEARCH_LINES, ScriptedAgent


def _project(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "src" / "pump.py").write_text("def prime_pump():\n    # valve opens at 3 bar\n    return 3\n")
    (root / "src" / "valve.py").write_text("VALVE = 'brass'\n# the pump valve is brass\n")
    (root / "notes" / "history.md").write_text("# History\n\nThe first pump was built in 1911.\n")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "x.js").write_text("pump pump pump 1911\n")
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00pump")
    return root


def test_search_output_can_answer(tmp_path: Path) -> None:
    agent = ScriptedAgent(_project(tmp_path / "p"))
    run = agent.run("", "What is the pump valve made of?", [("brass",)])
    assert run.steps == ("list_directory .", "file_search pump")  # the search printed the brass line
    assert run.answered


def test_files_matching_more_words_are_read_first(tmp_path: Path) -> None:
    agent = ScriptedAgent(_project(tmp_path / "p"))
    run = agent.run("", "pump valve", [("return 3",)])
    # src/pump.py and src/valve.py match both words, notes/history.md one: pump.py comes first
    assert run.steps == ("list_directory .", "file_search pump", "file_search valve", "read_file src/pump.py")
    assert run.answered


def test_reads_files_until_the_terms_appear(tmp_path: Path) -> None:
    agent = ScriptedAgent(_project(tmp_path / "p"))
    run = agent.run("earlier talk", "How does priming work?", [("return 3",)])
    # the search for "priming" finds nothing; then every file is opened in path order
    assert run.steps == (
        "list_directory .",
        "file_search priming",
        "file_search work",
        "list_directory notes",
        "read_file notes/history.md",
        "list_directory src",
        "read_file src/pump.py",
    )
    assert run.answered
    listing = "blob.bin\nnotes/\nsrc/"
    read = ["earlier talk", "How does priming work?", listing, "", "", "history.md"]
    read += [(tmp_path / "p" / "notes" / "history.md").read_text(), "pump.py\nvalve.py"]
    read.append((tmp_path / "p" / "src" / "pump.py").read_text())
    assert run.tokens == tokens.count("\n".join(read))


def test_the_answer_is_earned_from_the_project(tmp_path: Path) -> None:
    agent = ScriptedAgent(_project(tmp_path / "p"))
    # the history says "brass", but the project must: the search for "valve" prints the brass line
    run = agent.run("the valve is brass", "what is the valve made of?", [("brass",)])
    assert run.steps == ("list_directory .", "file_search valve")
    assert run.answered
    # a term of the question is no evidence of an answer: "pump" leaves the group, "brass" must be found
    run = agent.run("", "what is the pump valve made of?", [("pump", "brass")])
    assert run.steps == ("list_directory .", "file_search pump")
    # ... and a group of the question's own words only leaves the turn with nothing to look for
    assert agent.run("", "is the valve brass?", [("brass",), ("valve",)]) is None
    assert agent.run("", "anything", []) is None
    lost = agent.run("", "Who built it?", [("zeppelin",)])
    assert not lost.answered
    assert "read_file src/valve.py" in lost.steps
    assert not any("node_modules" in step or "blob.bin" in step for step in lost.steps)


def test_search_output_is_capped(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    (root / "log.txt").write_text("".join(f"line {i} has the word kestrel\n" for i in range(100)))
    run = ScriptedAgent(root).run("", "kestrel", [("line 99 ",)])
    assert run.steps[:2] == ("list_directory .", "file_search kestrel")
    assert run.steps[2] == "read_file log.txt"  # line 99 is past the search's first SEARCH_LINES lines
    assert SEARCH_LINES < 100
