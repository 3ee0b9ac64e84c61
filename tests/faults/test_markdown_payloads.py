"""Names the harness did not write (a suite folder, case and memory ids; a system's, backend's and
suite's names in reports others hand `compare` and `leaderboard`; a benchmarked file's label)
carrying HTML and Markdown payloads reach every Markdown report as text: rendered by a CommonMark
renderer with raw HTML on, no tag, link or image of theirs survives."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from harness.benchmarks.datasets import ROW_METRICS, render_bench_markdown
from harness.reports.document import sealed
from harness.reports.escape import md, md_code, md_fenced
from harness.reports.tables import row
from tests.reports.browser import Browser, chromium_path

SCRIPT = "<img src=x onerror=window.ran=1>"
PAYLOADS = (SCRIPT, "<script>window.ran=2</script>", "[click](javascript:alert(3))", "**bold**", "`tick")


def _suite(folder: Path) -> Path:
    """A native suite in a folder named by a payload, whose cases and memories carry the others; every
    case fails (it expects a memory its query does not find), so the failures list names them."""
    suite = folder / SCRIPT
    suite.mkdir(parents=True)
    memories = [
        {"id": f"m {p}", "user": "u-ana", "type": "entity", "name": f"item {i}", "scopes": ["domain:code"]}
        for i, p in enumerate(PAYLOADS)
    ]
    cases = [
        {
            "id": f"case {p}",
            "scopes": ["domain:code"],
            "query": f"tell me about item {i}",
            "expect": {"relevant": {"must_include": [f"m {PAYLOADS[(i + 1) % len(PAYLOADS)]}"]}},
        }
        for i, p in enumerate(PAYLOADS)
    ]
    corpus = {"default_user": "u-ana", "memories": memories}
    (suite / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (suite / "static.json").write_text(json.dumps({"cases": cases}), encoding="utf-8")
    return suite


def assert_inert(markdown: str) -> None:
    """The page a CommonMark renderer (raw HTML allowed, as the spec has it) makes of `markdown` holds
    no element, link or emphasis that a payload asked for."""
    page = MarkdownIt("commonmark").render(markdown)
    for raw in ("<img", "<script", "<a href", "<strong>bold", "<h1>x"):
        assert raw not in page, f"{raw!r} rendered from a payload:\n{page}"
    assert "&lt;img src=x onerror=window.ran=1&gt;" in page, "the suite's name must still be shown, as text"


@pytest.mark.parametrize("payload", [*PAYLOADS, "a\n\n# x\n<img src=x>", "``` ``", "x | y \\"])
def test_every_escape_renders_the_payload_as_its_own_text(payload: str) -> None:
    page = MarkdownIt("commonmark").render(f"- {md(payload)} and {md_code(payload)}")
    assert page.count("<li>") == 1, page
    assert page.count("<code>") == 1, page
    assert_inert("\n".join([f"# {md(SCRIPT)}", "", row([payload, SCRIPT]), "", *md_fenced([payload, SCRIPT])]))
    flat = payload.replace("\n", " ")
    assert MarkdownIt("commonmark").render(md(payload)).strip() == f"<p>{_html_text(flat)}</p>"


def _html_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


@pytest.fixture
def browser() -> Iterator[Browser]:
    binary = chromium_path()
    if binary is None:
        pytest.skip("chromium is not installed here (apt-get install -y chromium)")
    with Browser(binary) as opened:
        yield opened


def test_a_suite_of_payload_names_renders_as_text(cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, err = cli("run", "-s", str(_suite(tmp_path)), "-m", "bm25", "--out", str(out))
    assert code == 0, err
    (report,) = out.glob("run-*-latest.md")
    markdown = report.read_text(encoding="utf-8")
    assert "## Failures (5)" in markdown, markdown
    assert_inert(markdown)


def test_the_rendered_report_runs_no_script_in_a_browser(
    cli: Callable[..., tuple[int, str, str]], tmp_path: Path, browser: Browser
) -> None:
    out = tmp_path / "out"
    code, _, err = cli("run", "-s", str(_suite(tmp_path)), "-m", "bm25", "--out", str(out))
    assert code == 0, err
    (report,) = out.glob("run-*-latest.md")
    _assert_no_script_runs(browser, tmp_path / "page.html", report.read_text(encoding="utf-8"))


def _assert_no_script_runs(browser: Browser, page: Path, markdown: str) -> None:
    """`markdown` rendered by CommonMark and opened in the browser: no payload's script ran, no image loaded."""
    page.write_text(MarkdownIt("commonmark").render(markdown), encoding="utf-8")
    browser.open(page)
    assert browser.evaluate("window.ran === undefined"), "a payload's script ran"
    assert browser.evaluate("document.images.length") == 0


def _others_markdown(cli: Callable[..., tuple[int, str, str]], tmp_path: Path) -> dict[str, str]:
    """The comparison's and the leaderboard's Markdown of a run beside a report of a system, backend
    and suite named by payloads (sealed, as its run would have written it)."""
    code, _, err = cli("run", "-s", str(_suite(tmp_path)), "-m", "bm25", "--out", str(tmp_path / "runs"))
    assert code == 0, err
    (source,) = (tmp_path / "runs").glob("run-*-latest.json")
    document = json.loads(source.read_text(encoding="utf-8"))
    document["suite"] = SCRIPT
    document["system"]["name"] = "<script>window.ran=2</script>"
    document["system"]["declared_name"] = "[click](javascript:alert(4))"
    document["system"]["version"] = SCRIPT
    document["backend"]["backend"] = "[click](javascript:alert(3))"
    theirs = tmp_path / f"{SCRIPT}.json"
    theirs.write_text(json.dumps(sealed(document)), encoding="utf-8")
    written = {}
    for command in ("compare", "leaderboard"):
        code, _, err = cli(command, str(source), str(theirs), "--out", str(tmp_path / command))
        assert code == 0, (command, err)
        written[command] = (tmp_path / command / f"{command}-latest.md").read_text(encoding="utf-8")
    return written


def test_compare_and_leaderboard_render_others_names_as_text(
    cli: Callable[..., tuple[int, str, str]], tmp_path: Path
) -> None:
    for command, markdown in _others_markdown(cli, tmp_path).items():
        assert "&lt;script&gt;" in markdown, command
        assert_inert(markdown)


def test_compare_and_leaderboard_run_no_script_in_a_browser(
    cli: Callable[..., tuple[int, str, str]], tmp_path: Path, browser: Browser
) -> None:
    for command, markdown in _others_markdown(cli, tmp_path).items():
        _assert_no_script_runs(browser, tmp_path / f"{command}.html", markdown)


def test_the_dataset_benchmark_renders_a_files_label_as_text() -> None:
    row = {
        "label": f"{SCRIPT} | x",
        "backend": "embedded",
        "mode": "bm25",
        "granularity": "session",
        "level": "session",
        "questions": 1,
        "errors": 0,
        "haystacks": 1,
        "turns": 2,
        "embed_s": 0.0,
        "metrics": dict.fromkeys(ROW_METRICS, 0.5),
        "ingest_s": 0.1,
        "p50_ms": 1.0,
        "p95_ms": 2.0,
        "peak_rss_mb": 100.0,
        "wall_s": 1.0,
    }
    machine = {"platform": "**bold**", "cpus": 2, "memory_gb": 4, "python": "3.11"}
    markdown = render_bench_markdown({"at": "now", "machine": machine, "rows": [row]})
    assert_inert(markdown)
    table = MarkdownIt("commonmark").enable("table").render(markdown)
    assert table.count("<tr>") == 2, "the header and the one row"
    assert table.count("<td>") == table.count("<th>"), "a `|` in the label adds no column"


def test_a_dataset_report_renders_a_servers_and_models_names_as_text(
    cli: Callable[..., tuple[int, str, str]], tmp_path: Path
) -> None:
    """What a server says of itself (engine, version) and a user's model name reach the dataset
    report's Markdown as text."""
    from harness.evaluation.kinds.haystack.report import render_markdown

    code, _, err = cli("run", "-s", "haystack:builtin", "-m", "bm25", "--out", str(tmp_path / "out"))
    assert code == 0, err
    (source,) = (tmp_path / "out").glob("dataset-*-latest.json")
    report = json.loads(source.read_text(encoding="utf-8"))
    report["backend"] |= {"engine": "**bold**", "server_version": SCRIPT}
    report["embedding_model"] = "[click](javascript:alert(3))"
    assert_inert(render_markdown(report))
