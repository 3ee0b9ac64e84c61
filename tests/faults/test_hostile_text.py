"""Text a memory service returns (ids, memories, error bodies) is checked before it reaches a report,
a terminal or a CI log: invalid Unicode is an error of its case naming the field, control bytes and
markup are shown as text, and no line the harness prints can begin with a GitHub workflow command
(`::error::`, `##[error]`), whatever the scorecard's wrapping does to a long id. Each run is a few
cases of bm25 against a service on 127.0.0.1 whose every search answers the hostile text."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

import pytest

from harness.backends.ledger import STATE_DIR_ENV
from harness.evaluation import runner
from harness.reports.writer import write_run_files
from harness.systems.http_client import MAX_FAILURES_ENV
from tests.faults.helpers import harness, write_suite
from tests.faults.hostile_service import Hostile, answer, serving

Cli = Callable[..., tuple[int, str, str]]
CASES = 3


@pytest.fixture(autouse=True)
def _quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No HTML page (not what is tested here), a state dir of the test's own, and a service never
    counted lost by its answers."""
    monkeypatch.setattr(runner, "page_process", lambda: nullcontext(lambda _json: "<p>not drawn here</p>"))
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    monkeypatch.setenv(MAX_FAILURES_ENV, "100")


def commands_at_line_start(text: str) -> list[str]:
    """Lines GitHub's runner would read as workflow commands (it trims leading blanks first)."""
    return [line for line in text.splitlines() if line.strip().startswith(("::", "##["))]


def empty_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and p.stat().st_size == 0]


def searched(cli: Cli, tmp_path: Path, body: str, *extra: str) -> tuple[int, str, str]:
    """A bm25 run whose every `POST /search` is answered `body` (JSON text); its JUnit file in the out folder."""
    suite = write_suite(tmp_path / "suite", CASES)
    hostile = Hostile()
    hostile.faults[("POST", "/search")] = answer(200, body)
    with serving(hostile) as url:
        out = tmp_path / "out"
        return cli("run", "--system", f"http:{url}", "-s", str(suite), "-m", "bm25", "--out", str(out), *extra)


@pytest.mark.parametrize(
    ("hit", "field"),
    [
        ('{"id": "bad\\ud800id", "score": 1.0}', "results.0.id"),
        ('{"id": "m-0", "memory": "\\udfff"}', "results.0.memory"),
    ],
    ids=["id", "memory"],
)
def test_a_lone_surrogate_is_an_error_of_its_case_naming_the_field(
    cli: Cli, tmp_path: Path, hit: str, field: str
) -> None:
    code, _, err = searched(cli, tmp_path, f'{{"results": [{hit}]}}', "--junit", str(tmp_path / "j.xml"))
    assert "Traceback" not in err, err
    assert code == 1, err
    (report,) = (tmp_path / "out").glob("*-latest.json")
    errors = {case["error"] for case in json.loads(report.read_text(encoding="utf-8"))["cases"]}
    assert len(errors) == 1, errors
    assert f"POST /search: {field}: not valid Unicode (a lone surrogate)" in errors.pop()
    assert empty_files(tmp_path) == []
    assert int(ET.parse(tmp_path / "j.xml").getroot().get("errors") or 0) == CASES


def test_a_workflow_command_in_an_id_never_starts_a_line(cli: Cli, tmp_path: Path) -> None:
    """Stdout is no terminal here, so the scorecard wraps at 160 columns: an id of 140 letters then
    a blank puts what follows on a line of its own; a line break in an id would too."""
    ids = ["a" * 140 + " ::error::INJECTED", "x\n::warning::INJECTED", "b" * 150 + " ##[error]INJECTED"]
    body = json.dumps({"results": [{"id": i} for i in ids]})
    code, out, err = searched(cli, tmp_path, body)
    assert code == 1, err
    assert "INJECTED" in out  # shown, as the service's own text
    assert "INJECTED" in err
    assert commands_at_line_start(out) == []
    assert commands_at_line_start(err) == []


def test_control_bytes_and_markup_from_a_service_are_shown_as_text(cli: Cli, tmp_path: Path) -> None:
    """An id with a terminal escape, a control byte and rich markup (an unmatched closing tag would
    stop the drawing of the scorecard): each is printed escaped or as it is, never acted on."""
    code, out, err = searched(cli, tmp_path, json.dumps({"results": [{"id": "x\x01\x1b[31mred [/x] [bold]b"}]}))
    assert "Traceback" not in err, err
    assert code == 1, err
    for shown in (out, err):
        assert "\x1b" not in shown
        assert "\x01" not in shown
        assert "x\\x01\\x1b[31mred [/x] [bold]b" in shown


def test_a_report_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    """A report body that fails while it is made leaves no file behind, not even a reserved 0-byte name."""

    def failing(_paths: object) -> str:
        raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")

    with pytest.raises(UnicodeEncodeError):
        write_run_files(tmp_path, "run-embedded", {"json": "{}\n", "md": failing})
    assert list(tmp_path.iterdir()) == []


def test_a_run_on_a_terminal_draws_its_bars_through_the_guarded_stderr(tmp_path: Path) -> None:
    """On a terminal rich's progress display stands in for stderr while it lasts: the guarded
    stderr writes past it to the real one (through it, each line came back to it: the run hung)."""
    suite = write_suite(tmp_path / "suite", 2)
    args = ("run", "-s", str(suite), "-m", "bm25", "--out", str(tmp_path / "out"))
    done = harness(*args, cwd=tmp_path, timeout=60, TTY_COMPATIBLE="1", **{STATE_DIR_ENV: str(tmp_path / "state")})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "2/2" in done.stderr  # the bar was drawn
