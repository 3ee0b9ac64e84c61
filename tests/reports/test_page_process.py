"""A run draws its page in a child process (issue 22, issue 20's memory target): the template engine
and the charts' pygal never enter the run's own process, the page is the one `render_html`
draws, and a child that fails costs the run nothing but a note in place of the page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.reports.html.child import page_apart
from harness.reports.html.page import GENERATOR, render_html

RUN_AND_LIST_MODULES = """
import json, sys
from harness.cli import main
sys.argv = ["harness", "run", "-m", "bm25", "--suite", "lifecycle:builtin", "--out", sys.argv[1]]
try:
    main()
except SystemExit:
    pass
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in ("jinja2", "pygal"))))
"""


def test_the_run_never_imports_what_draws_its_page(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST_MODULES, str(tmp_path / "reports")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == [], done.stderr
    page = (tmp_path / "reports" / "lifecycle-embedded-latest.html").read_text()
    assert 'id="report-data"' in page
    assert "could not be drawn" not in page


def test_the_child_draws_the_page_render_html_draws(report_of_kind: dict[str, Path]) -> None:
    text = report_of_kind["beliefs"].read_text()
    assert page_apart(text) == render_html(json.loads(text))


@pytest.mark.parametrize(
    ("executable", "why"),
    [("/bin/false", "process exited with 1"), ("/nonexistent/python", "did not start")],
)
def test_a_failed_child_leaves_a_note_in_place_of_the_page(
    report_of_kind: dict[str, Path], monkeypatch: pytest.MonkeyPatch, executable: str, why: str
) -> None:
    monkeypatch.setattr(sys, "executable", executable)
    page = page_apart(report_of_kind["lifecycle"].read_text())
    assert GENERATOR in page
    assert why in page
    assert "harness report render</code> draws the page again" in page


CTRL_C_WHILE_THE_RUN_GOES_ON = """
import os, signal, sys, time
from harness.reports.html.child import page_process
signal.signal(signal.SIGINT, signal.default_int_handler)  # a terminal's Python, even under a pytest run in the background
with page_process() as draw:
    try:
        os.killpg(os.getpgrp(), signal.SIGINT)  # the terminal's Ctrl-C reaches every process of the run's group
        time.sleep(10)
    except KeyboardInterrupt:
        pass  # the run turns it into an incomplete report, whose page its child must still draw
    sys.stdout.write(draw(open(sys.argv[1]).read()))
"""


def test_the_page_process_started_before_the_run_outlives_its_ctrl_c(report_of_kind: dict[str, Path]) -> None:
    """A run starts its page's process before it runs; an interrupted run still writes its report
    and page, so the terminal's SIGINT to the run's process group must not end that process."""
    report = report_of_kind["beliefs"]
    done = subprocess.run(
        [sys.executable, "-c", CTRL_C_WHILE_THE_RUN_GOES_ON, str(report)],
        capture_output=True,
        text=True,
        start_new_session=True,  # its own group: the SIGINT stays in it
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == render_html(json.loads(report.read_text()))
