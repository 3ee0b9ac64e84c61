"""Bad input is one stderr line and exit 2, before anything runs: options that do not apply, `--url`
that cannot name the backend's server, `--out` that cannot hold reports, suite and dataset files
that are not plain, bounded, UTF-8 JSON."""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from harness.suites.jsonfile import MAX_FILE_BYTES
from tests.faults.helpers import one_line, write_suite


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--dataset", "locomo", "--fail-under", "0.5"], "--fail-under"),
        (["--dataset", "locomo", "--suite", "builtin"], "--suite"),  # the default value, given explicitly
        (["--dataset", "locomo", "--fields", "surface"], "--fields"),
        (["--granularity", "session"], "--granularity"),
        (["--sample", "head"], "--sample"),
        (["--seed", "0"], "--seed"),
        (["--file", "x.json"], "--file"),
        (["--dry-run"], "--dry-run"),
    ],
)
def test_an_option_that_does_not_apply_is_an_error(cli, tmp_path: Path, args: list[str], named: str) -> None:
    code, _, err = cli("run", "-m", "bm25", "--out", str(tmp_path / "out"), *args)
    line = one_line(err)
    assert code == 2, err
    assert named in line, line
    assert "does not apply" in line, line
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir()), "nothing may run"


@pytest.mark.parametrize(
    ("backend", "url", "named"),
    [
        ("embedded", "redis://127.0.0.1:6379", "embedded"),
        ("redis", "notaurl", "notaurl"),
        ("valkey", "notaurl", "notaurl"),
        ("postgres", "notaurl", "notaurl"),
        ("redis", "redis://127.0.0.1:99999999", "Port out of range"),
        ("postgres", "host=127.0.0.1 port", "connection string"),
        ("redis", "postgresql://127.0.0.1:5432/db", "not a redis URL"),
    ],
)
def test_a_url_that_cannot_name_the_server_is_an_error(cli, tmp_path: Path, backend: str, url: str, named: str) -> None:
    code, _, err = cli("run", "-b", backend, "--url", url, "-m", "bm25", "--out", str(tmp_path / "out"))
    line = one_line(err)
    assert code == 2, err
    assert named in line, line


def _file(tmp: Path) -> Path:
    (tmp / "afile").write_text("x")
    return tmp / "afile"


@pytest.mark.parametrize(
    ("make_out", "named"),
    [
        (lambda t: _file(t), "not a folder"),
        (lambda t: _file(t) / "reports", "is a file"),
        (lambda _: Path("/proc/harness-no-such/reports"), "cannot write"),
    ],
    ids=["a-file", "under-a-file", "not-creatable"],
)
def test_out_is_checked_before_the_run(cli, tmp_path: Path, make_out, named: str) -> None:
    suite = write_suite(tmp_path / "suite", 3)
    out = make_out(tmp_path)
    code, stdout, err = cli("run", "-m", "bm25", "-s", str(suite), "--out", str(out))
    line = one_line(err)
    assert code == 2, err
    assert str(out) in line, line
    assert named in line, line
    assert "static" not in stdout, "the run must not start: " + stdout


# -- suite files --------------------------------------------------------------------------------


def _limited_main(cwd: Path, args: Sequence[str], stderr: Path) -> None:
    """`harness ARGS` in `cwd`, its stderr to the file `stderr`, with 6 GiB of memory beyond what the
    process already maps: a reader that reads forever fails here instead of taking the machine's."""
    from harness.cli import main

    mapped = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + 6 * 2**30, mapped + 6 * 2**30))
    os.chdir(cwd)
    os.environ["HF_HUB_OFFLINE"] = "1"  # as `main` sets it
    sys.argv = ["harness", *args]
    sys.stdout, sys.stderr = open(os.devnull, "w"), stderr.open("w")  # flushed as the child ends
    main()


def _bad_input_line(cwd: Path, *args: str) -> str:
    """Run the harness with a memory limit and a timeout (the old readers blocked or read forever);
    it must exit 2 with one line, which is returned. It runs in a forked copy of this process, where
    the CLI is imported already: what the readers do does not depend on a fresh interpreter."""
    stderr = cwd / "stderr.txt"
    child = multiprocessing.get_context("fork").Process(target=_limited_main, args=(cwd, args, stderr))
    child.start()
    child.join(120)
    if child.exitcode is None:
        child.kill()
        child.join()
        raise AssertionError(f"`harness {' '.join(args)}` did not end in 120 s:\n{stderr.read_text()}")
    line = one_line(stderr.read_text())
    assert child.exitcode == 2, stderr.read_text()
    return line


def _bad_static(folder: Path, kind: str) -> Path:
    static = folder / "static.json"
    static.unlink()
    if kind == "invalid-utf8":
        static.write_bytes(b'{"cases": [{"id": "s-\xff\xfe", "scopes": [], "query": "x", "expect": {}}]}')
    elif kind == "nested-100000":
        static.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "fifo":
        os.mkfifo(static)
    elif kind == "dev-zero":
        static.symlink_to("/dev/zero")
    elif kind == "over-limit":
        with static.open("wb") as handle:  # sparse: costs no disk
            handle.truncate(MAX_FILE_BYTES + 1)
    return static


@pytest.mark.parametrize("command", ["run", "validate"])
@pytest.mark.parametrize(
    ("kind", "named"),
    [
        ("invalid-utf8", "not UTF-8"),
        ("nested-100000", "nested too deeply"),
        ("fifo", "not a regular file"),
        ("dev-zero", "not a regular file"),
        ("over-limit", "limit"),
    ],
)
def test_a_suite_file_that_is_not_plain_bounded_utf8_json(tmp_path: Path, command: str, kind: str, named: str) -> None:
    suite = write_suite(tmp_path / "suite", 2)
    static = _bad_static(suite, kind)
    args = ["cases", "validate", str(suite)] if command == "validate" else ["run", "-m", "bm25", "-s", str(suite)]
    line = _bad_input_line(tmp_path, *args, *(["--out", str(tmp_path / "out")] if command == "run" else []))
    assert str(static) in line, line
    assert named in line, line


@pytest.mark.parametrize(
    ("kind", "named"),
    [("fifo", "not a regular file"), ("dev-zero", "not a regular file"), ("nested-100000", "nested deeper")],
)
def test_a_dataset_file_that_cannot_be_streamed(tmp_path: Path, kind: str, named: str) -> None:
    data = tmp_path / "locomo10.json"
    if kind == "fifo":
        os.mkfifo(data)
    elif kind == "dev-zero":
        data.symlink_to("/dev/zero")
    else:
        data.write_text("[" * 100_000 + "]" * 100_000)
    line = _bad_input_line(
        tmp_path, "run", "--dataset", "locomo", "--file", str(data), "-m", "bm25", "--out", str(tmp_path / "o")
    )
    assert str(data.name) in line, line
    assert named in line, line


def test_a_report_folder_lost_during_the_run_never_loses_the_results(
    cli, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """`--out` passed the check, then became a file mid-run: the finished run's reports go to a new
    folder that the one error line names."""
    from harness.backends.embedded import EmbeddedIndex

    suite = write_suite(tmp_path / "suite", 3)
    out = tmp_path / "out"
    out.mkdir()
    lexical = EmbeddedIndex.lexical

    def replace_out_by_a_file(self, terms, filters, limit):
        if out.is_dir():
            out.rmdir()
            out.write_text("not a folder any more")
        return lexical(self, terms, filters, limit)

    monkeypatch.setattr(EmbeddedIndex, "lexical", replace_out_by_a_file)
    code, _, err = cli("run", "-m", "bm25", "-s", str(suite), "--out", str(out))
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.startswith("harness:")]  # besides the progress bar
    assert code == 2, err
    assert str(out) in line, line
    assert "written instead" in line, line
    written = [Path(p) for p in line.split("written instead: ")[1].split(", ")]
    request.addfinalizer(lambda: shutil.rmtree(written[0].parent, ignore_errors=True))
    assert [p.suffix for p in written] == [".json", ".md", ".html"]
    report = json.loads(written[0].read_text())
    assert [c["case_id"] for c in report["cases"]] == ["s-0", "s-1", "s-2"]
    assert all(c["passed"] for c in report["cases"])
