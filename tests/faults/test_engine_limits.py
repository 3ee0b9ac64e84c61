"""A project folder holds what every engine can store: files whose path (or a record id made from
it) or a word is beyond `harness.limits` are skipped at ingest, before any engine sees them, and
what is at the limits loads and is found on every local engine alike (PostgreSQL's btree keys,
`docs` and `terms`, were the first to break: a 3,000-character word, a 3.6 KB path)."""

from __future__ import annotations

from pathlib import Path

from harness.backends.base import Backend
from harness.limits import MAX_PATH_BYTES, MAX_WORD_CHARS
from harness.pipeline.project_memory import ProjectMemory
from harness.suites.projects.ingest import ingest
from tests.faults.helpers import WIDE


def _project(root: Path) -> tuple[Path, str]:
    """A project with one file exactly at the path limit (and a word at the word limit in it),
    one 3.6 KB path and one 3,000-character word; returns (folder, the at-limit file's path)."""
    folders = [WIDE * 60] * 4  # 4 x 241 bytes with their slashes
    name = "x" * (MAX_PATH_BYTES - 4 * 241 - len(".txt")) + ".txt"
    at_limit = "/".join([*folders, name])
    assert len(at_limit.encode()) == MAX_PATH_BYTES
    (root / Path(*folders)).mkdir(parents=True)
    (root / at_limit).write_text(f"lighthouse keeper {WIDE * MAX_WORD_CHARS} logbook\n", encoding="utf-8")
    deep = root.joinpath(*["d" * 240] * 15)  # 3,622 bytes with far.txt
    deep.mkdir(parents=True)
    (deep / "far.txt").write_text("lighthouse far away\n")
    (root / "long-word.txt").write_text(f"lighthouse {'w' * 3000}\n")
    return root, at_limit


def test_a_project_beyond_the_limits_loads_alike_on_every_engine(backend: Backend, tmp_path: Path) -> None:
    folder, at_limit = _project(tmp_path / "p")
    project = ingest(folder)
    reasons = {s.path: s.reason for s in project.skipped}
    assert reasons["long-word.txt"] == f"a word of 3000 characters, over {MAX_WORD_CHARS}"
    assert [r for p, r in reasons.items() if p.endswith("far.txt")] == [
        f"a path or symbol id of 3622 bytes, over {MAX_PATH_BYTES}"
    ]
    memory = ProjectMemory.open(backend, f"limits{abs(hash(tmp_path)) % 10**8}")
    try:
        memory.load(project)
        found = [f.record.path for f in memory.search("lighthouse keeper logbook", limit=5)]
        assert found[0] == at_limit, found
    finally:
        memory.index.drop()
