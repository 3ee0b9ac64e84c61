"""A hostile memory service (`--system http:URL`): one that hangs, drips, floods, redirects, lies
about its capabilities, answers values that are no score, fails to drop a namespace or dies. Each
run ends in one clear line naming the service and the right exit code, within a bound: the
limits (docs/system-protocol.md) are made small here through their environment variables, a
0.5 s deadline per request and 2 failures in a row, so every run takes a few seconds and the
whole file well under 60 s. The service stops at the end of each test, every request it held
released and its thread joined."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from harness.backends.ledger import STATE_DIR_ENV, Ledger
from harness.evaluation import runner
from harness.systems.http_client import DEADLINE_ENV, MAX_BYTES_ENV, MAX_FAILURES_ENV
from tests.faults.helpers import one_line, reports, write_suite
from tests.faults.hostile_service import Hostile, answer, die, drip, flood, hang, in_turn, serving
from tests.systems.memory_server import JsonHandler, Store, handler, served

DEADLINE_S = 0.5
CASES = 5
"""Static cases of the suite each run searches for: one `POST /search` each."""
BOUND_S = 15.0
"""The longest any one run here may take: 2 deadlines and a run's own cost on a loaded machine."""
SECRET = "s3cret"

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def _limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Small limits; and no HTML page (its charts cost a run about 0.3 s of CPU, more on a loaded
    machine; the page is not what is tested here: the report's other files are written as ever)."""
    monkeypatch.setattr(runner, "page_process", lambda: nullcontext(lambda _json: "<p>not drawn here</p>"))
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    monkeypatch.setenv(DEADLINE_ENV, str(DEADLINE_S))
    monkeypatch.setenv(MAX_FAILURES_ENV, "2")
    monkeypatch.setenv(MAX_BYTES_ENV, "65536")


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "suite", CASES)


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    service = Hostile()
    yield service
    assert service.released.is_set()  # served, and stopped: nothing of it runs any more


def _run(cli: Cli, tmp_path: Path, system: str, suite: Path, mode: str = "bm25") -> tuple[int, str, str]:
    """A run of `suite` on the system in `mode`; its exit code, output and errors, within BOUND_S."""
    started = time.monotonic()
    result = cli("run", "--system", system, "--suite", str(suite), "-m", mode, "--out", str(tmp_path / "out"))
    took = time.monotonic() - started
    assert took < BOUND_S, f"the run took {took:.1f} s"
    return result


def said(err: str) -> list[str]:
    """What the CLI said on stderr (its `harness:` lines; the progress bar left out), no traceback."""
    assert "Traceback" not in err, err
    return [line for line in err.splitlines() if line.startswith("harness:")]


def _searches(service: Hostile) -> int:
    return sum(1 for method, path, _ in service.seen if (method, path) == ("POST", "/search"))


def test_a_search_that_never_answers_loses_the_service(cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile) -> None:
    """Two searches wait out the deadline; then the service counts as lost (exit 3), and no later
    case waits at all: the run's cost is bounded by deadline x failures, not by its cases."""
    hostile.faults[("POST", "/search")] = hang
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
        (line,) = said(err)
        assert code == 3, err
        assert f"system http:{url}: POST /search: no whole answer within {DEADLINE_S:g} s" in line
        assert "2 requests in a row failed, so the service counts as lost" in line
        assert "-incomplete-" in line  # what ran is reported, and never as -latest
        assert _searches(hostile) == 2  # no later case reached it
        # its records stay where the run left them, and the ledger names them for `harness down --url`
        assert [e.name for e in Ledger(url).entries()] == [u.split("/")[0] for u in hostile.store.records]
    assert reports(tmp_path / "out", "*-latest.json") == []


def test_an_answer_dripped_byte_by_byte_meets_the_deadline(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile
) -> None:
    """One byte every 0.1 s never idles a socket read for long, yet no answer takes more than the
    deadline from connect to last byte."""
    hostile.faults[("POST", "/search")] = drip(b'{"results": []}', 0.1)  # 1.5 s in all
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
    (line,) = said(err)
    assert code == 3, err
    assert f"POST /search: no whole answer within {DEADLINE_S:g} s" in line
    assert _searches(hostile) == 2


def test_a_tls_handshake_that_never_ends_meets_the_deadline(cli: Cli, tmp_path: Path, suite: Path) -> None:
    """A port that takes connections and never answers (the kernel's backlog accepts them): the
    TLS handshake is within the request's deadline too."""
    with socket.create_server(("127.0.0.1", 0)) as silent:
        url = f"https://127.0.0.1:{silent.getsockname()[1]}"
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
    assert code == 3, err
    assert f"system http:{url}: GET /capabilities: no whole answer within {DEADLINE_S:g} s" in one_line(err)


def test_an_answer_over_the_size_cap_is_refused_unread(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """50 MB answers, in turn with their Content-Length (refused on it) and without (refused once
    64 KiB are read): each its case's error, the run reported whole."""
    monkeypatch.setenv(MAX_FAILURES_ENV, str(CASES + 1))  # each case's error, the service never lost
    hostile.faults[("POST", "/search")] = in_turn(flood(50_000_000, True), flood(50_000_000, False))
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
        first, over = said(err)
        assert code == 1, err
        cap = f"system http:{url}: POST /search: an answer over 65536 bytes (limit: {MAX_BYTES_ENV}), not read"
        assert f"{CASES} of {CASES} results errored (2 distinct); first: HttpSystemError: {cap}" in first
        assert "over --error-threshold" in over
        assert _errors(tmp_path) == {f"HttpSystemError: {cap}: it declares 50000000", f"HttpSystemError: {cap}"}
        assert list(hostile.store.records) == []  # the run's namespaces dropped


def _errors(tmp_path: Path) -> set[str]:
    (latest,) = reports(tmp_path / "out", "*-latest.json")
    cases = json.loads(latest.read_text())["cases"]
    assert len(cases) == CASES
    return {c["error"] for c in cases}


def test_a_redirected_search_is_an_error_naming_where_it_pointed(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile
) -> None:
    """A 302 is never followed: followed, each POST would reach the other port as a bodiless GET,
    answered there with no results."""
    elsewhere = Hostile(faults={("GET", "/*"): answer(200, '{"results": []}')})
    with serving(elsewhere) as other, serving(hostile) as url:
        hostile.faults[("POST", "/search")] = answer(302, "", Location=f"{other}/search")
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
        assert elsewhere.seen == []
        first, _ = said(err)
        assert code == 1, err
        assert f"POST /search: HTTP 302 redirects to '{other}/search', which the harness does not follow" in first
        assert list(hostile.store.records) == []


def test_redirected_capabilities_stop_the_run_before_it_starts(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile
) -> None:
    """Followed, a 307 would make the service whatever answers there (here: a bare wrapper)."""
    elsewhere = Hostile(faults={("GET", "/*"): answer(200, "{}")})
    with serving(elsewhere) as other, serving(hostile) as url:
        hostile.faults[("GET", "/capabilities")] = answer(307, "", Location=f"{other}/capabilities")
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
        assert elsewhere.seen == []
    line = one_line(err)
    assert code == 3, err
    assert f"system http:{url}: GET /capabilities: HTTP 307 redirects to '{other}/capabilities'" in line
    assert [(m, p) for m, p, _ in hostile.seen] == [("GET", "/capabilities")]
    assert list((tmp_path / "out").rglob("*")) == []


def _bare(out: Path) -> dict:
    """The system a run's one complete report names, checked to be a bare wrapper's."""
    (latest,) = reports(out, "*-latest.json")
    system = json.loads(latest.read_text())["system"]
    assert (system["capabilities"], system["modes"]) == (["users"], ["hybrid"])
    return system


@pytest.mark.parametrize("status", [404, 405, 501])
def test_no_capabilities_route_is_a_bare_wrapper(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile, status: int
) -> None:
    """No such route (404), no such method for it (405), no GET at all (501): each says the same,
    so the run goes on under the bare contract, never stops on it."""
    hostile.faults[("GET", "/capabilities")] = answer(status, '{"error": "no such route"}')
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite, mode="hybrid")
    assert code == 0, err
    _bare(tmp_path / "out")
    assert _searches(hostile) == CASES
    assert not [path for method, path, _ in hostile.seen if method == "DELETE"]  # no namespace, never a reset


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_server_error_to_capabilities_stops_the_run_before_it_starts(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile, status: int
) -> None:
    """Any other 5xx is the service failing, not saying it is bare: taken as bare, an extended
    service would be run without its extension (and its records never dropped)."""
    hostile.faults[("GET", "/capabilities")] = answer(status, '{"error": "down"}')
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite, mode="hybrid")
    assert code == 3, err
    assert f"system http:{url}: GET /capabilities: HTTP {status}" in one_line(err)
    assert [(m, p) for m, p, _ in hostile.seen] == [("GET", "/capabilities")]
    assert list((tmp_path / "out").rglob("*")) == []


def test_a_wrapper_on_http_server_without_do_get_runs_as_bare(cli: Cli, tmp_path: Path, suite: Path) -> None:
    """A PrecisionMemBench wrapper on Python's http.server, with do_POST and do_DELETE only: the
    server itself answers its GET /capabilities with 501, and the run goes on."""
    store = Store(extended=False)
    served_by = handler(store)

    class PostOnly(JsonHandler):
        do_POST = served_by.do_POST
        do_DELETE = served_by.do_DELETE

    with served(PostOnly) as url:
        probe = http.client.HTTPConnection(urlsplit(url).netloc, timeout=5)
        probe.request("GET", "/capabilities")
        assert probe.getresponse().status == 501  # http.server's own answer to a method it has no do_ for
        probe.close()
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite, mode="hybrid")
    assert code == 0, err
    _bare(tmp_path / "out")
    assert store.calls.count(("POST", "/search")) == CASES


@pytest.mark.parametrize(
    ("declared", "why"),
    [
        ({"capabilities": 5}, "capabilities: Input should be a valid tuple (got 5)"),
        ({"capabilities": None}, "capabilities: Input should be a valid tuple (got None)"),
        ({"capabilities": ["telepathy"]}, "capabilities.0: Input should be 'users', 'scopes'"),
        ({"modes": []}, "modes: Tuple should have at least 1 item after validation, not 0 (got [])"),
        ({"modes": ["fuzzy"]}, "modes.0: Input should be 'bm25', 'vector' or 'hybrid' (got 'fuzzy')"),
        ({"protocol": "harness-memory/2"}, "protocol: Input should be 'harness-memory/1' or 'harness-memory/1.1'"),
        ({"protocol": "harness-memory/1.1", "batch_add": 0}, "batch_add: Input should be greater than or equal to 1"),
        ({"version": 4}, "version: Input should be a valid string (got 4)"),
    ],
    ids=["capabilities-5", "capabilities-null", "unknown", "no-modes", "bad-mode", "protocol-2", "batch-0", "version"],
)
def test_capabilities_that_do_not_fit_are_refused_before_any_work(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile, declared: dict, why: str
) -> None:
    body = {"protocol": "harness-memory/1", "capabilities": ["scopes"], "modes": ["bm25"]} | declared
    hostile.faults[("GET", "/capabilities")] = answer(200, json.dumps(body))
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
    line = one_line(err)
    assert code == 2, err
    assert f"system http:{url}: GET /capabilities does not fit the protocol (docs/system-protocol.md): {why}" in line
    assert [(m, p) for m, p, _ in hostile.seen] == [("GET", "/capabilities")]  # nothing added, nothing searched
    assert list((tmp_path / "out").rglob("*")) == []  # no report, no -latest


BAD_RESULTS = {
    '{"id": "m-0", "score": NaN}': "results.0.score: Input should be a finite number (got nan)",
    '{"id": "m-0", "score": 1e999}': "results.0.score: Input should be a finite number (got inf)",
    '{"id": "m-0", "score": "high"}': "results.0.score: Input should be a valid number (got 'high')",
    '{"id": 7, "score": 1.0}': "results.0.id: Input should be a valid string (got 7)",
    '"m-0"': "results.0: Input should be a valid dictionary or instance of Hit (got 'm-0')",
}
"""A search result that is no result, one per case, and the error it is."""


def test_a_bad_value_is_an_error_of_its_case_naming_the_service(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run goes on and is reported whole; each case's error names the service and the field."""
    monkeypatch.setenv(MAX_FAILURES_ENV, "1")  # an answer, however bad, is no failure to lose the service by
    faults = [answer(200, f'{{"results": [{result}]}}') for result in BAD_RESULTS]
    hostile.faults[("POST", "/search")] = in_turn(*faults)
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
        first, _ = said(err)
        assert code == 1, err
        errors = {f"HttpSystemError: system http:{url}: POST /search: {why}" for why in BAD_RESULTS.values()}
        assert f"{CASES} of {CASES} results errored ({CASES} distinct); first: " in first
        assert first.split("first: ", 1)[1] in errors
        assert _errors(tmp_path) == errors
        assert list(hostile.store.records) == []


def test_a_failing_namespace_drop_before_the_run_is_one_line(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile
) -> None:
    """The probe's namespace cannot be dropped: the service is not fit to run on (exit 3)."""
    hostile.faults[("DELETE", "/namespaces/*")] = answer(500, '{"error": "disk full"}')
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
    line = one_line(err)
    assert code == 3, err
    assert f"system http:{url}: DELETE /namespaces/h" in line
    assert '_probe: HTTP 500: \'{"error": "disk full"}\'' in line
    assert list((tmp_path / "out").rglob("*")) == []


def test_a_failing_namespace_drop_after_the_run_keeps_it_in_the_ledger(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile
) -> None:
    """The run's own namespace cannot be dropped: exit 3, its report incomplete, and the ledger
    still names the namespace so `harness down --url` removes it once the service can."""
    run_namespace = "/namespaces/h" + "[0-9a-f]" * 12  # not the probe's (`_probe` after it)
    hostile.faults[("DELETE", run_namespace)] = answer(500, '{"error": "disk full"}')
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
        (line,) = said(err)
        assert code == 3, err
        assert f"system http:{url}: DELETE /namespaces/h" in line
        assert 'HTTP 500: \'{"error": "disk full"}\'' in line
        assert "-incomplete-" in line
        (left,) = Ledger(url).entries()
        assert [u.split("/")[0] for u in hostile.store.records] == [left.name]
    assert reports(tmp_path / "out", "*-latest.json") == []


def test_a_service_that_dies_mid_run_is_lost_at_once(cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile) -> None:
    """It stops listening during the first search: refused from then on, lost after the second."""
    hostile.faults[("POST", "/search")] = die
    with serving(hostile) as url:
        code, _, err = _run(cli, tmp_path, f"http:{url}", suite)
    (line,) = said(err)
    assert code == 3, err
    assert f"system http:{url}: POST /search: cannot connect: connection refused" in line
    assert "2 requests in a row failed, so the service counts as lost" in line
    assert _searches(hostile) == 1


def test_credentials_in_the_url_are_sent_as_basic_auth_and_never_shown(
    cli: Cli, tmp_path: Path, suite: Path, hostile: Hostile
) -> None:
    hostile.authorization = "Basic " + base64.b64encode(f"ann:{SECRET}".encode()).decode()
    with serving(hostile) as url:
        with_password = url.replace("http://", f"http://ann:{SECRET}@")
        code, out, err = _run(cli, tmp_path, f"http:{with_password}", suite)
        assert code == 0, err
        assert {auth for _, _, auth in hostile.seen} == {hostile.authorization}
        assert _searches(hostile) == CASES
        shown = url.replace("http://", "http://ann:***@")
        (latest,) = reports(tmp_path / "out", "*-latest.json")
        assert json.loads(latest.read_text())["system"]["name"] == f"http:{shown}"
        assert f"system: http:{shown}" in out
        assert SECRET not in out + err
        # a wrong password: refused at once, never taken for a bare wrapper that refuses its adds
        wrong = url.replace("http://", f"http://ann:{SECRET}x@")
        code, out, err = _run(cli, tmp_path, f"http:{wrong}", suite)
        assert code == 3, err
        assert f"system http:{shown}: GET /capabilities: HTTP 401: the service refuses the harness" in one_line(err)
        assert SECRET not in out + err
    written = [p for p in tmp_path.rglob("*") if p.is_file() and not p.is_relative_to(tmp_path / "suite")]
    assert any(p.is_relative_to(tmp_path / "state") for p in written)  # the ledger was written to
    assert [p for p in written if SECRET.encode() in p.read_bytes()] == []


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:1/a b", "'http://127.0.0.1:1/a b': a URL has no spaces or control characters"),
        ("http://[::1", "'http://[::1': Invalid IPv6 URL"),
        (f"http://ann:{SECRET}@[::1", "'http://ann:***@[::1': Invalid IPv6 URL"),
        ("http://127.0.0.1:99999", "'http://127.0.0.1:99999': Port out of range 0-65535"),
        ("http://127.0.0.1:1/?k=v", "'http://127.0.0.1:1/?k=v': a base URL has no ?query or #fragment"),
        ("http://a..b:1", "'http://a..b:1': 'a..b' is not a host name"),
    ],
    ids=["space", "ipv6", "ipv6-password", "port", "query", "host"],
)
def test_a_url_that_names_no_service_is_one_masked_line(
    cli: Cli, tmp_path: Path, suite: Path, url: str, why: str
) -> None:
    code, out, err = _run(cli, tmp_path, f"http:{url}", suite)
    line = one_line(err)
    assert code == 2, err
    assert f"--system http:{why}" in line
    assert SECRET not in out + err


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        (DEADLINE_ENV, "soon", "not a number"),
        (DEADLINE_ENV, "0", "expected seconds > 0"),
        (MAX_BYTES_ENV, "1e6", "not a number"),
        (MAX_FAILURES_ENV, "0", "expected a whole number >= 1"),
    ],
)
def test_a_limit_that_is_no_limit_is_one_line(
    cli: Cli, tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, why: str
) -> None:
    monkeypatch.setenv(name, value)
    code, _, err = _run(cli, tmp_path, "http:http://127.0.0.1:1", suite)
    assert code == 2, err
    assert one_line(err) == f"harness: error: {name}={value!r}: {why}"
