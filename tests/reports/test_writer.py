"""The report writer: `<stem>-<UTC timestamp>.<ext>`, never overwritten, written atomically, with a
`<stem>-latest.<ext>` copy of the newest run; a failed write leaves nothing half-written."""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from harness.reports import writer
from harness.reports.writer import write_run_files

NOW = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)


def listing(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def stamped(folder: Path, stem: str) -> set[str]:
    return {n for n in listing(folder) if n.startswith(f"{stem}-") and "-latest." not in n}


def test_one_write_gives_stamped_files_and_latest_copies(tmp_path: Path) -> None:
    out = tmp_path / "new" / "reports"  # created on demand
    paths = write_run_files(out, "run-embedded", {"json": "{}\n", "md": "# run\n"}, now=NOW)

    assert [p.suffix for p in paths] == [".json", ".md"]
    assert all(p.parent == out for p in paths)
    assert paths[0].stem == paths[1].stem  # the files of one run share one name
    assert paths[0].stem.startswith("run-embedded-20240506T070809")  # UTC date and time of `now`
    assert listing(out) == {p.name for p in paths} | {
        "run-embedded-latest.json",
        "run-embedded-latest.md",
    }
    assert paths[0].read_text(encoding="utf-8") == "{}\n"
    assert paths[1].read_text(encoding="utf-8") == "# run\n"
    assert (out / "run-embedded-latest.json").read_text(encoding="utf-8") == "{}\n"
    assert (out / "run-embedded-latest.md").read_text(encoding="utf-8") == "# run\n"


def test_stamp_is_utc_whatever_the_clock_zone(tmp_path: Path) -> None:
    plus_two = NOW.astimezone(timezone(timedelta(hours=2)))  # same instant, 09:08:09 local
    (path,) = write_run_files(tmp_path, "run-x", {"json": "{}"}, now=plus_two)
    assert "T070809" in path.name, path.name


def test_two_writes_in_the_same_second_keep_both(tmp_path: Path) -> None:
    first = write_run_files(tmp_path, "run-embedded", {"json": "first", "md": "first md"}, now=NOW)
    second = write_run_files(tmp_path, "run-embedded", {"json": "second", "md": "second md"}, now=NOW)

    assert {p.name for p in first}.isdisjoint({p.name for p in second})
    assert second[0].stem == second[1].stem
    assert [p.read_text(encoding="utf-8") for p in first] == ["first", "first md"]
    assert [p.read_text(encoding="utf-8") for p in second] == ["second", "second md"]
    assert len(stamped(tmp_path, "run-embedded")) == 4
    # latest is the newest
    assert (tmp_path / "run-embedded-latest.json").read_text(encoding="utf-8") == "second"
    assert (tmp_path / "run-embedded-latest.md").read_text(encoding="utf-8") == "second md"


def test_existing_file_with_the_stamped_name_is_never_overwritten(
    tmp_path: Path,
) -> None:
    (path,) = write_run_files(tmp_path, "run-x", {"json": "original"}, now=NOW)
    for i in range(3):
        write_run_files(tmp_path, "run-x", {"json": f"later {i}"}, now=NOW)
    assert path.read_text(encoding="utf-8") == "original"
    contents = sorted((tmp_path / n).read_text(encoding="utf-8") for n in stamped(tmp_path, "run-x"))
    assert contents == ["later 0", "later 1", "later 2", "original"]
    assert (tmp_path / "run-x-latest.json").read_text(encoding="utf-8") == "later 2"


def test_a_clash_on_one_extension_renames_the_whole_run(tmp_path: Path) -> None:
    """Only the .md name is taken: the run still gets one name for both of its files."""
    (taken,) = write_run_files(tmp_path, "run-x", {"md": "someone else's"}, now=NOW)
    paths = write_run_files(tmp_path, "run-x", {"json": "j", "md": "m"}, now=NOW)
    assert paths[0].stem == paths[1].stem != taken.stem
    assert taken.read_text(encoding="utf-8") == "someone else's"


def test_concurrent_writers_never_share_a_name(tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(5):
                write_run_files(tmp_path, "run-x", {"json": f"{n}-{i}", "md": f"{n}-{i}"}, now=NOW)
        except BaseException as exc:  # noqa: BLE001 - whatever a thread raises is collected and asserted on
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    names = stamped(tmp_path, "run-x")
    assert len(names) == 40
    jsons = sorted((tmp_path / n).read_text(encoding="utf-8") for n in names if n.endswith(".json"))
    assert jsons == sorted(f"{n}-{i}" for n in range(4) for i in range(5))
    for name in names:  # the two files of one run carry the same content
        if name.endswith(".json"):
            md = tmp_path / name.replace(".json", ".md")
            assert md.read_text(encoding="utf-8") == (tmp_path / name).read_text(encoding="utf-8")


def test_no_temp_files_are_left(tmp_path: Path) -> None:
    for _ in range(3):
        write_run_files(tmp_path, "run-x", {"json": "{}", "md": "x"}, now=NOW)
    leftovers = [n for n in listing(tmp_path) if n.startswith(".") or n.endswith(".tmp")]
    assert leftovers == []


def test_failed_rename_leaves_no_file_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_replace(_src: str, _dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(writer.os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space left on device"):
        write_run_files(tmp_path, "run-x", {"json": "{}"}, now=NOW)
    # neither the temp file nor an empty placeholder under the report's name
    assert listing(tmp_path) == set()


def test_failed_content_write_leaves_no_partial_file(tmp_path: Path) -> None:
    """The second file cannot be encoded: whatever is left must be complete, never empty or half."""
    contents = {"json": '{"ok": true}', "md": "bad \ud800 surrogate"}
    with pytest.raises(UnicodeError):
        write_run_files(tmp_path, "run-x", contents, now=NOW)
    for name in listing(tmp_path):
        assert not name.startswith("."), f"temp file left: {name}"
        assert not name.endswith(".tmp"), f"temp file left: {name}"
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert text in contents.values(), f"{name} holds {text!r}: a partial or empty report"


def test_failed_write_keeps_the_previous_latest_pair(tmp_path: Path) -> None:
    """`latest` must keep pointing at one complete run: a half-written newer run must not replace
    only some of its files."""
    write_run_files(tmp_path, "run-x", {"json": "old json", "md": "old md"}, now=NOW)
    with pytest.raises(UnicodeError):
        write_run_files(
            tmp_path,
            "run-x",
            {"json": "new json", "md": "new \ud800"},
            now=NOW + timedelta(seconds=1),
        )
    assert (tmp_path / "run-x-latest.json").read_text(encoding="utf-8") == "old json"
    assert (tmp_path / "run-x-latest.md").read_text(encoding="utf-8") == "old md"


def test_files_are_readable_by_others_like_any_output(tmp_path: Path) -> None:
    """mkstemp creates 0600 files; reports renamed from them would be private to the writer."""
    old = os.umask(0o022)
    try:
        (path,) = write_run_files(tmp_path, "run-x", {"json": "{}"}, now=NOW)
    finally:
        os.umask(old)
    assert path.stat().st_mode & 0o044 == 0o044
    assert (tmp_path / "run-x-latest.json").stat().st_mode & 0o044 == 0o044
