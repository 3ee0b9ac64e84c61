"""Every path a command writes (`--out`, `--junit`, `harness ci`'s `--summary` and `--outputs`, the
report commands' pages) is checked before any work, by one function (`files.check_output`): a
regular file or a new name in a writable folder, never a device, a FIFO or a symlink (a rename
would replace it), never a report's own file. Anything else is one line and exit 2, with nothing
run and nothing written; and no atomic write ever replaces what is not a regular file."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.backends.ledger import STATE_DIR_ENV
from harness.errors import HarnessError
from harness.files import atomic_write, check_output
from tests.faults.helpers import one_line, write_suite

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))


def _fifo(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "fifo")
    return tmp_path / "fifo"


def _symlink(tmp_path: Path) -> Path:
    (tmp_path / "kept.txt").write_text("kept", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "kept.txt")
    return tmp_path / "link"


def _under_a_file(tmp_path: Path) -> Path:
    (tmp_path / "afile").write_text("", encoding="utf-8")
    return tmp_path / "afile" / "j.xml"


def _a_folder(tmp_path: Path) -> Path:
    (tmp_path / "folder").mkdir()
    return tmp_path / "folder"


def _proc(_tmp_path: Path) -> Path:
    return Path("/proc/j.xml")


def _own_report(tmp_path: Path) -> Path:
    return tmp_path / "out" / "run-embedded-latest.json"


BAD = {
    "fifo": (_fifo, "a FIFO"),
    "symlink": (_symlink, "a symbolic link"),
    "under-a-file": (_under_a_file, "a part of the path is a file, not a folder"),
    "folder": (_a_folder, "a folder, not a file"),
    "proc": (_proc, "cannot write its folder there"),
    "own-report": (_own_report, "a report's name in the report folder"),
}
"""A path no output may be, how to make it, and what the refusal says of it."""


def _unchanged(tmp_path: Path) -> None:
    """The special files are as they were: nothing replaced them, nothing ran."""
    if (tmp_path / "fifo").exists():
        assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo").st_mode)
    if (tmp_path / "link").exists():
        assert (tmp_path / "link").is_symlink()
        assert (tmp_path / "kept.txt").read_text(encoding="utf-8") == "kept"
    assert list((tmp_path / "out").glob("*.json")) == []


@pytest.mark.parametrize("case", list(BAD))
def test_a_junit_path_that_is_no_file_to_write_is_refused_before_the_run(cli: Cli, tmp_path: Path, case: str) -> None:
    make, why = BAD[case]
    path = make(tmp_path)
    suite = write_suite(tmp_path / "suite", 2)
    code, _, err = cli("run", "-s", str(suite), "-m", "bm25", "--out", str(tmp_path / "out"), "--junit", str(path))
    assert code == 2, err
    assert one_line(err).startswith(f"harness: error: --junit {path}: {why}")
    _unchanged(tmp_path)


@pytest.mark.parametrize("option", ["--summary", "--outputs"])
@pytest.mark.parametrize("case", ["fifo", "symlink", "under-a-file", "proc", "own-report"])
def test_a_ci_summary_or_outputs_path_that_is_no_file_to_write_is_refused_before_the_run(
    cli: Cli, tmp_path: Path, option: str, case: str
) -> None:
    make, why = BAD[case]
    path = make(tmp_path)
    suite = write_suite(tmp_path / "suite", 2)
    out = tmp_path / "out"
    code, _, err = cli(
        "ci", "--no-check-baseline", "--suites", str(suite), "--modes", "bm25", "--out", str(out), option, str(path)
    )
    assert code == 2, err
    assert one_line(err).startswith(f"harness: error: {option} {path}: {why}")
    _unchanged(tmp_path)


@pytest.mark.parametrize("case", ["fifo", "symlink"])
def test_an_atomic_write_never_replaces_what_is_not_a_regular_file(tmp_path: Path, case: str) -> None:
    path = BAD[case][0](tmp_path)
    with pytest.raises(FileExistsError, match="not replaced"):
        atomic_write(path, "<testsuites/>")
    _unchanged(tmp_path)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


@pytest.mark.parametrize(("path", "why"), [("/dev/null", "a device or socket"), ("/dev/full", "a device or socket")])
def test_a_device_is_no_output_file(path: str, why: str) -> None:
    """Checked without writing anything, so the device is safe whatever the check says (as root a
    rename over `/dev/full` made it a regular file holding the XML)."""
    with pytest.raises(HarnessError, match=f"^--junit {path}: {why}$"):
        check_output(Path(path), "--junit")
    assert stat.S_ISCHR(os.stat(path).st_mode)
