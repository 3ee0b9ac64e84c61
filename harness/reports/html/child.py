"""A run's page drawn in a process of its own, so drawing it never costs the run its memory:
Jinja2, the charts' pygal and the page's copies of the items live and die in the child (on
the full LongMemEval-S the run's peak went from 84 MB to 337 MB when it drew its page itself).

The child reads the report's JSON text on stdin and writes the page on stdout; the run waits for it
(the page is written with the report's other files, all or none). A child that fails gives the
note page of `page_or_note`, naming why, so the run's JSON is never lost to its page. A run starts
its child before it runs (`page_process`): the child imports what draws the page (about a second
on the full LongMemEval-S) while the run goes on, then waits for the report. It runs in a session
of its own, so the terminal's Ctrl-C, which the run turns into an incomplete report, cannot end
the process that is to draw that report's page.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import harness


def _environment() -> dict[str, str]:
    """The child imports this very `harness` package, wherever it was imported from (a checkout
    on PYTHONPATH, a test's sys.path, an installed wheel)."""
    root = str(Path(harness.__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}


def _note(why: str) -> str:
    from harness.reports.html.page import note_page  # the template engine is the child's, but for this

    return note_page(why)


@contextmanager
def page_process() -> Iterator[Callable[[str], str]]:
    """A child started now, and what hands it a report's JSON text and returns the page it draws
    (once). A child never handed a report is ended on leaving."""
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "harness.reports.html.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_environment(),
            start_new_session=True,
        )
    except OSError as exc:
        why = f"the page's process did not start ({exc.strerror or exc})"
        yield lambda _: _note(why)
        return

    def draw(report_json: str) -> str:
        out, err = child.communicate(report_json.encode())
        if child.returncode != 0:
            lines = err.decode(errors="replace").strip().splitlines()
            return _note(f"the page's process exited with {child.returncode}: {lines[-1] if lines else 'no message'}")
        return out.decode()

    with child:  # closes its pipes and waits for it
        try:
            yield draw
        finally:
            if child.returncode is None:
                child.kill()


def page_apart(report_json: str) -> str:
    """The page of a report (its JSON file's text), drawn by a child Python process."""
    with page_process() as draw:
        return draw(report_json)


def main() -> None:
    import pygal  # noqa: F401 - imported, with the template engine below, while the run still goes on

    from harness.reports.html.page import page_or_note

    document = json.loads(sys.stdin.buffer.read())
    sys.stdout.buffer.write(page_or_note(document).encode())


if __name__ == "__main__":
    main()
