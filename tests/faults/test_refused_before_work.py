"""Refusals documented as "before anything runs" (docs/exit-codes.md) come before anything runs, for
every system of the run: context rules the reference system cannot take, and a mode that no system
of the run offers (a usage error, exit 2); and `--fail-under` over a run in which no case ran
fails it, since no pass rate is none above the bar."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness.backends.ledger import STATE_DIR_ENV
from tests.faults.helpers import one_line, write_suite
from tests.faults.hostile_service import Hostile, answer, serving

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "suite", 2)


@pytest.fixture
def bare() -> Iterator[tuple[Hostile, str]]:
    """A bare wrapper (no `GET /capabilities`: it offers its one retrieval, reported as hybrid)."""
    service = Hostile()
    service.faults[("GET", "/capabilities")] = answer(404, "")
    with serving(service) as url:
        yield service, url


def _worked(service: Hostile) -> list[tuple[str, str]]:
    """What the service was asked beyond its declaration: adds, searches, namespaces dropped."""
    return [(m, p) for m, p, _ in service.seen if m != "GET"]


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


@pytest.mark.parametrize("with_http", [False, True], ids=["reference", "http-then-reference"])
def test_context_rules_the_reference_cannot_take_are_refused_before_any_system_runs(
    cli: Cli, tmp_path: Path, suite: Path, bare: tuple[Hostile, str], with_http: bool
) -> None:
    service, url = bare
    systems = ["--system", f"http:{url}"] if with_http else []
    code, _, err = cli(
        "run", *systems, "--system", "reference", "-s", str(suite), "-m", "hybrid", "--out", str(tmp_path / "out"),
        "--context-rules", "precisionmembench",
    )  # fmt: skip
    assert code == 2, err
    assert one_line(err).startswith(
        "harness: error: --context-rules precisionmembench: an HTTP adapter's rules apply to a system under test"
    )
    assert _files(tmp_path / "out") == []  # no incomplete report, no HTTP system's run
    assert _worked(service) == []


def test_a_mode_no_system_offers_is_a_usage_error(
    cli: Cli, tmp_path: Path, suite: Path, bare: tuple[Hostile, str]
) -> None:
    service, url = bare
    out = tmp_path / "out"
    code, _, err = cli(
        "run", "--system", f"http:{url}", "-s", str(suite), "-m", "bm25", "--fail-under", "1", "--out", str(out)
    )
    assert code == 2, err
    assert one_line(err) == f"harness: error: mode bm25: no system of the run offers it (http:{url} offers hybrid)"
    assert _files(out) == []
    assert _worked(service) == []


def test_a_named_mode_no_system_offers_is_refused_beside_one_it_offers(
    cli: Cli, tmp_path: Path, suite: Path, bare: tuple[Hostile, str]
) -> None:
    """bm25 named beside hybrid: still no system offers bm25, so the run is refused as a whole."""
    _, url = bare
    code, _, err = cli(
        "run", "--system", f"http:{url}", "-s", str(suite), "-m", "hybrid", "-m", "bm25", "--out", str(tmp_path)
    )
    assert code == 2, err
    assert "mode bm25: no system of the run offers it" in one_line(err)


def test_fail_under_fails_a_run_in_which_no_case_ran(
    cli: Cli, tmp_path: Path, suite: Path, bare: tuple[Hostile, str]
) -> None:
    """The reference system offers bm25, so the run goes ahead; the bare wrapper runs no case of it."""
    service, url = bare
    code, _, err = cli(
        "run", "--system", "reference", "--system", f"http:{url}", "-s", str(suite), "-m", "bm25",
        "--fail-under", "0.5", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    assert code == 1, err
    lines = [line for line in err.splitlines() if line.startswith("harness:")]
    assert lines == ["harness: embedded: --fail-under 0.5: no case ran, so none passed"], err
    assert ("POST", "/search") not in [(m, p) for m, p, _ in service.seen]
