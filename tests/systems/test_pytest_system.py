"""`pytest --harness-system http:URL`: the built-in belief cases as items of that system, the system in
their ids; its judged failures are xfails with their reasons (only `--harness-mode` asserts another
system), and a kind with no protocol path is skipped as not applicable, with its reason. pytest runs
in this process, the service in a thread of it."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.plugin.inner import ITEM_TESTS, inner_pytest
from tests.systems.memory_server import Store, serving


def _pytest(pytester: pytest.Pytester, *args: str) -> subprocess.CompletedProcess[str]:
    pytester.makepyfile(test_items=ITEM_TESTS)
    return inner_pytest(pytester, "-q", "-rsx", "test_items.py", "--harness-backend", "embedded", *args)


def test_items_of_a_system_under_test(pytester: pytest.Pytester) -> None:
    with serving(Store(extended=True)) as url:
        run = _pytest(
            pytester,
            "--harness-system",
            f"http:{url}",
            "--harness-suite",
            "builtin",
            "--harness-suite",
            "lifecycle:builtin",
        )
    out = run.stdout
    assert run.returncode == 0, out[-3000:] + run.stderr[-3000:]
    key = f"http-127.0.0.1-{url.rsplit(':', 1)[1]}"
    xfailed = re.findall(rf"^XFAIL test_items\.py::test_item\[beliefs-embedded-{key}-bm25-(.+?)\]", out, re.M)
    assert xfailed  # judged failures of a system under test are measured, not asserted, without --harness-mode
    assert re.search(
        r"SKIPPED .*not applicable: Lifecycle scenarios .* need the capabilities timestamps, clock, access and "
        r"consolidation; system 'http:[^']+' declares none of them\.",
        out,
    )
    passed = re.search(r"(\d+) passed", out)
    assert passed  # the cases the service's own retrieval gets right pass


def test_lifecycle_and_conversation_items_of_a_system_declaring_their_needs(pytester: pytest.Pytester) -> None:
    """Each scenario and each turn is an item of the system: a scenario judged by its grade (the
    test server's word-overlap retrieval FAILs on P@5: an xfail with the judge's reason, as no
    --mode asserts it), a turn by the turn judge."""
    store = Store(extended=True, capabilities=("timestamps", "clock", "access", "consolidation", "budget"))
    with serving(store) as url:
        run = _pytest(
            pytester,
            "--harness-system",
            f"http:{url}",
            "--harness-suite",
            "lifecycle:builtin",
            "--harness-suite",
            "conversation:builtin",
        )
    out = run.stdout
    assert run.returncode == 0, out[-3000:] + run.stderr[-3000:]
    key = f"http-127.0.0.1-{url.rsplit(':', 1)[1]}"
    scenarios = re.findall(
        rf"^XFAIL test_items\.py::test_item\[lifecycle-embedded-{key}-bm25-(.+?)\] - .*precision", out, re.M
    )
    assert len(scenarios) == 6
    turns = re.findall(rf"^XFAIL test_items\.py::test_item\[conversation-embedded-{key}-bm25-(.+?)\]", out, re.M)
    counts = re.search(r"(\d+) passed, (\d+) xfailed", out)
    assert counts
    assert int(counts[1]) + len(turns) == 52  # every turn ran: those not xfailed passed
    assert int(counts[2]) == 6 + len(turns)
    assert "not applicable" not in out
    assert ("POST", "/consolidate") in store.calls


def test_harness_concurrency_runs_a_groups_cases_at_once_with_the_same_outcomes(pytester: pytest.Pytester) -> None:
    """The built-in belief suite's static cases are one group: at --harness-concurrency 4 they go
    to the service four at a time (in random order, after random delays), and every item ends as
    at 1."""
    outcomes = []
    for concurrency in ("1", "4"):
        store = Store(extended=True, delay=0.005, gather=int(concurrency))
        with serving(store) as url:
            args = (
                "--harness-system",
                f"http:{url}",
                "--harness-suite",
                "builtin",
                "--harness-concurrency",
                concurrency,
            )
            run = _pytest(pytester, *args)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        key = f"http-127.0.0.1-{url.rsplit(':', 1)[1]}"
        lines = re.findall(rf"^(\w+) test_items\.py::test_item\[beliefs-embedded-{key}-bm25-(.+?)\]", run.stdout, re.M)
        outcomes.append((sorted(lines), re.search(r"(\d+) passed, (\d+) xfailed", run.stdout)[0]))  # type: ignore[index]
        assert store.most_in_flight == int(concurrency)
        assert store.records == {}
    assert outcomes[0] == outcomes[1]


def test_harness_concurrency_below_one_is_a_usage_error(pytester: pytest.Pytester) -> None:
    run = _pytest(pytester, "--harness-concurrency", "0")
    assert run.returncode == 4, run.stdout[-3000:] + run.stderr[-3000:]
    assert "--harness-concurrency 0: expected 1 to 256" in run.stdout + run.stderr
