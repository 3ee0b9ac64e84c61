"""`evaluation.matrix.run_matrix`, the library entry point `harness run` calls: it runs and reports
without printing, shows itself only through its callbacks, and refuses bad input before anything
runs; the backend URL rules it applies are the backends' own (`registry.check_url`)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from harness.backends import registry
from harness.backends.embedded import EmbeddedBackend
from harness.errors import HarnessError
from harness.evaluation import runner
from harness.evaluation.matrix import Gated, MatrixRequest, MatrixUI, run_matrix
from harness.pipeline import Mode
from harness.systems.bound import bind_on_engine
from harness.systems.reference import SPEC as REFERENCE_SPEC


def test_a_run_reports_through_its_callbacks_and_prints_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events: list[str] = []

    @contextmanager
    def progress() -> Any:
        events.append("session")

        def start(description: str, total: int | None) -> Any:
            events.append(f"start {description} {total}")
            return lambda _item: events.append("step")

        yield start

    def reported(backend: str, finished: runner.Finished[Any]) -> None:
        events.append(f"reported {backend} {finished.paths[0].name.split('-')[0]}")

    def judged(backend: str, verdict: runner.Verdict) -> None:
        events.append(f"judged {backend} {verdict.exit_code}")

    def gated(backend: str, _gated: Gated) -> None:
        events.append(f"gated {backend}")

    ui = MatrixUI(progress=progress, reported=reported, judged=judged, gated=gated)
    out = tmp_path / "out"
    outcome = run_matrix(MatrixRequest(["builtin"], modes=[Mode.BM25, Mode.BM25], out=out, limit=3), ui)

    assert capsys.readouterr() == ("", "")
    (ran,) = outcome.runs
    assert (ran.system, ran.backend, ran.exit_code, outcome.exit_code) == ("reference", "embedded", 0, 0)
    assert ran.finished.paths[0].parent == out
    assert ran.finished.paths[0].is_file()
    assert set(ran.finished.report.scores) == {"bm25"}  # a mode asked twice runs once
    steps = events.count("step")
    assert steps > 0
    assert events == [
        "session",
        f"start embedded: cases {steps}",  # the bar's total is the steps it advanced
        *["step"] * steps,
        "reported embedded run",
        "judged embedded 0",
    ]


def test_bad_input_is_refused_before_anything_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(HarnessError, match="unknown backend 'nosuch'"):
        run_matrix(MatrixRequest(["builtin"], backends=["nosuch"], out=out))
    with pytest.raises(HarnessError, match="--url needs exactly one --backend"):
        run_matrix(MatrixRequest(["builtin"], backends=["redis", "valkey"], url="redis://h:1/0", out=out))
    with pytest.raises(HarnessError, match="--check-baseline and --freeze-baseline: pick one"):
        run_matrix(MatrixRequest(["builtin"], out=out, check_baseline=True, freeze_baseline=True))
    assert not list(out.glob("*"))  # no report, no baseline history


@pytest.mark.parametrize(
    ("backend", "url", "refusal"),
    [
        ("postgres", "host=127.0.0.1 port=5433 dbname=d", None),
        ("postgres", "postgres://u@h:5432/d", None),
        ("postgres", "host=h port=x", "port 'x' is not a port number"),
        ("postgres", "redis://h:6379/0", "is not a postgres URL (expected postgresql://HOST:PORT...)"),
        ("redis", "host=h port=6379", "is not a redis URL"),  # a connection string is postgres's alone
        ("embedded", "redis://h:6379/0", "the embedded backend runs in process (drop --url)"),
    ],
)
def test_a_backend_checks_its_urls_by_its_descriptor(backend: str, url: str, refusal: str | None) -> None:
    if refusal is None:
        registry.check_url(backend, url)
    else:
        with pytest.raises(HarnessError, match=refusal.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
            registry.check_url(backend, url)


def test_the_reference_system_binds_as_a_system_its_kinds_answer_through_their_reference_adapters() -> None:
    backend = EmbeddedBackend()
    try:
        assert bind_on_engine(REFERENCE_SPEC, backend, "embedded", None, None).reference
    finally:
        backend.close()
