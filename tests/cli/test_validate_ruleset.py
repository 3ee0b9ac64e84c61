"""`harness cases validate` names the ruleset a suite is judged by and warns, one line per field,
about what a Tenure import drops (in process, through `harness.cli.main`)."""

from __future__ import annotations

import sys

import pytest

from harness.suites.resolve import cases_dir


def _validate(spec: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from harness.cli import main

    monkeypatch.setattr(sys, "argv", ["harness", "cases", "validate", spec])
    with pytest.raises(SystemExit) as info:
        main()
    captured = capsys.readouterr()
    return info.value.code, captured.out, captured.err


def test_tenure_suite_prints_its_ruleset_and_dropped_fields(monkeypatch, capsys) -> None:
    code, out, err = _validate(f"tenure:{cases_dir() / 'tenure-format' / 'head'}", monkeypatch, capsys)
    assert code == 0
    assert out.strip() == (
        "ok: tenure:head: 16 memories, 20 static cases, 2 session cases (5 turns), ruleset tenure@head"
    )
    lines = err.strip().splitlines()
    assert "warning: beliefs.seed.json: drops `expertise_domain` (1 of 16 beliefs): " in (
        line[: line.index("beliefs): ") + 10] for line in lines
    )
    assert all(line.startswith("warning: ") for line in lines)
    assert len(lines) == len(set(lines))


def test_version_named_in_the_spec_is_the_ruleset(monkeypatch, capsys) -> None:
    code, out, _ = _validate(f"tenure@head:{cases_dir() / 'tenure-format' / 'paper'}", monkeypatch, capsys)
    assert code == 0
    assert out.rstrip().endswith("ruleset tenure@head")


def test_builtin_has_no_warnings(monkeypatch, capsys) -> None:
    code, out, err = _validate("builtin", monkeypatch, capsys)
    assert code == 0
    assert out.rstrip().endswith("ruleset builtin")
    assert err == ""
