"""A run's page drawn in a process of its own, so drawing it never costs the run its memory:
Jinja2, the charts' matplotlib and the page's copies of the items live and die in the child (on
the full LongMemEval-S the run's peak went from 84 MB to 337 MB when it drew its page itself).

The child reads the report's JSON text on stdin and writes the page on stdout; the run waits for it
(the page is written with the report's other files, all or none). A child that fails gives the
note page of `page_or_note`, naming why, so the run's JSON is never lost to its page.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


def page_apart(report_json: str) -> str:
    """The page of a report (its JSON file's text), drawn by a child Python process."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "harness.reports.html.child"],
            input=report_json.encode(),
            capture_output=True,
            env=_environment(),
            check=False,
        )
    except OSError as exc:
        return _note(f"the page's process did not start ({exc.strerror or exc})")
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        return _note(f"the page's process exited with {done.returncode}: {lines[-1] if lines else 'no message'}")
    return done.stdout.decode()


def main() -> None:
    from harness.reports.html.page import page_or_note

    document = json.loads(sys.stdin.buffer.read())
    sys.stdout.buffer.write(page_or_note(document).encode())


if __name__ == "__main__":
    main()
