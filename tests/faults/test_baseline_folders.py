"""A baselines folder that cannot hold a baseline, or a report folder that cannot hold the history (a file
where a folder should be, a folder where the history file should be) is one line and exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults.helpers import one_line, write_suite


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda root, _: (root / "suite").write_text("x"),
            "suite/embedded-bm25.json: its folder {root}/suite is a file",
        ),
        (
            lambda _, out: (out / "baseline-history.jsonl").mkdir(parents=True),
            "baseline history {out}/baseline-history.jsonl: cannot write: Is a directory",
        ),
    ],
    ids=["suite-folder-is-a-file", "history-is-a-folder"],
)
def test_a_baselines_folder_that_cannot_hold_them_is_one_line(cli, tmp_path: Path, make, message: str) -> None:
    root = tmp_path / "baselines"
    root.mkdir()
    out = tmp_path / "out"
    make(root, out)
    suite = write_suite(tmp_path / "suite", 3)
    code, _, err = cli(
        "run", "-s", str(suite), "-m", "bm25", "--freeze-baseline", "--baseline-dir", str(root),
        "--out", str(out),
    )  # fmt: skip
    line = one_line(err.split("\n", 1)[1] if err.startswith("embedded:") else err)
    assert code == 2, err
    assert message.format(root=root, out=out) in line, line
