"""`harness run --suite lifecycle:builtin` and `mnemonic:PATH` through the CLI, in process: the
scorecard, the reports, an exit code that follows the grades a user gated, and one-line input errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest


def _main(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *args: str) -> int:
    from harness.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "user-cache"))  # committed vectors only
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(sys, "argv", ["harness", "run", *args, "--out", str(tmp_path / "out")])
    with pytest.raises(SystemExit) as info:
        main()
    return int(info.value.code or 0)


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_builtin_run_prints_the_scorecard_and_exits_0_without_a_gate(monkeypatch, tmp_path, capsys, mode) -> None:
    """A grade is a measurement: a baseline mode that grades FAIL does not fail a run nobody gated."""
    code = _main(monkeypatch, tmp_path, "--suite", "lifecycle:builtin", "-m", mode)
    captured = capsys.readouterr()
    assert code == 0
    assert "overall grade" not in captured.err
    assert "lifecycle scenarios: lifecycle:builtin (rules harness) on embedded" in captured.out
    assert "Traceback" not in captured.err
    data = json.loads((tmp_path / "out" / "lifecycle-embedded-latest.json").read_text())
    markdown = (tmp_path / "out" / "lifecycle-embedded-latest.md").read_text()
    assert markdown.startswith("# Lifecycle scenarios")
    assert "Rules: harness (retrieval and judging" in markdown
    assert len(data["results"]) == 6


@pytest.mark.parametrize("gate", ["FAIL", "WARN"])
def test_a_gated_mode_fails_the_run_and_names_the_gate(monkeypatch, tmp_path, capsys, gate) -> None:
    """On the built-in scenarios bm25 grades FAIL and hybrid WARN: gated at FAIL the run fails for
    bm25 alone, gated at WARN for both, and each line says which gate."""
    args = ["--suite", "lifecycle:builtin", "-m", "bm25", "-m", "hybrid", "--fail-on-grade", gate]
    code = _main(monkeypatch, tmp_path, *args)
    err = capsys.readouterr().err
    grades = json.loads((tmp_path / "out" / "lifecycle-embedded-latest.json").read_text())["summary"]
    assert (grades["bm25"]["grade"], grades["hybrid"]["grade"]) == ("FAIL", "WARN")
    assert code == 1
    assert f"harness: embedded: lifecycle bm25: overall grade FAIL (precision) under --fail-on-grade {gate}" in err
    hybrid = [line for line in err.splitlines() if "lifecycle hybrid" in line]
    if gate == "FAIL":
        assert hybrid == []
    else:
        assert len(hybrid) == 1
        assert "overall grade WARN (" in hybrid[0]
        assert hybrid[0].endswith("under --fail-on-grade WARN")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--suite", "lifecycle:builtin", "--fail-under", "0.5"], "--fail-under does not apply"),
        (["--suite", "lifecycle:nope"], "no such built-in scenario set"),
        (["--suite", "mnemonic:missing.json"], "missing.json: no such file"),
    ],
)
def test_bad_lifecycle_input_is_one_line_and_exit_2(monkeypatch, tmp_path, capsys, args, message) -> None:
    assert _main(monkeypatch, tmp_path, *args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_kind_options_set_cycles_verbose_limit_and_shard() -> None:
    from harness.errors import HarnessError
    from harness.evaluation.kinds import KindOptions, kinds_for
    from harness.evaluation.kinds.lifecycle.spec import LifecycleOptions
    from harness.pipeline.settings import Mode
    from harness.shards import Shard

    def kind_of(common: KindOptions, own: LifecycleOptions | None = None):
        (planned,) = kinds_for(["lifecycle:builtin"], common, {"lifecycle": own or LifecycleOptions()})
        return planned.kind

    kind = kind_of(KindOptions([Mode.BM25], limit=2), LifecycleOptions(cycles=2, verbose=True))
    assert (kind.settings.cycles, kind.verbose, len(kind.suite.scenarios)) == (2, True, 2)
    halves = [kind_of(KindOptions([Mode.BM25], shard=Shard(i, 2))) for i in (1, 2)]
    names = [s.name for k in halves for s in k.suite.scenarios]
    assert sorted(names) == sorted(s.name for s in kind_of(KindOptions([Mode.BM25])).suite.scenarios)
    with pytest.raises(HarnessError, match="--cycles"):
        kind_of(KindOptions([Mode.BM25]), LifecycleOptions(cycles=-1))


def test_freeze_then_check_a_lifecycle_baseline(monkeypatch, tmp_path, capsys) -> None:
    base = ["--suite", "lifecycle:builtin", "-m", "hybrid", "--baseline-dir", str(tmp_path / "baselines")]
    frozen = _main(monkeypatch, tmp_path, *base, "--freeze-baseline")
    assert frozen in (0, 1)  # the run's own grade; the freeze happens either way
    assert "lifecycle:builtin / embedded / hybrid: frozen" in capsys.readouterr().out
    checked = _main(monkeypatch, tmp_path, *base, "--check-baseline")
    assert checked == frozen
    assert "lifecycle:builtin / embedded / hybrid: passed" in capsys.readouterr().out
