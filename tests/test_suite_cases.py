"""The system under test must pass every case of the selected suites (default: builtin, bm25)."""

from harness.pytest_plugin import CaseParam


def test_static_case(static_case: CaseParam, harness_runner, harness_record) -> None:
    result = harness_runner(static_case).run_static(static_case.case, static_case.mode)
    harness_record(static_case, [result])
    assert result.passed, "\n".join(result.reasons)


def test_session_case(session_case: CaseParam, harness_runner, harness_record) -> None:
    turns = harness_runner(session_case).run_session(session_case.position, [session_case.mode])
    harness_record(session_case, turns)
    failures = [f"turn {t.turn} ({t.turn_label}): " + "; ".join(t.reasons) for t in turns if not t.passed]
    assert not failures, "\n".join(failures)
