"""The README's commands are the ones CI runs, and the documented examples run as written.

Every command line of the `sh` blocks of the README and of the pages under `docs/` must be known
here: the set-up, test and Docker steps must appear verbatim in `.ci/run` (which runs them on a
fresh clone), the cheap examples are run here exactly as written, and the rest are listed with the
reason they are not run in the test suite (the public data they need is not in the repository, or
they take minutes); the `harness` invocations among those are still parsed here, so an option they
name must exist. A new documented command fails `test_every_documented_command_is_classified`
until it is put in one of those tables.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.containers.engine import docker_available
from tests.conftest import Main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
CI_RUN = ROOT / ".ci" / "run"

IN_CI = "set-up, tests and Docker steps: .ci/run runs them verbatim on a fresh clone"
RUN_HERE: dict[str, int] = {
    # command as written -> the exit code it documents
    "harness run -b embedded --freeze-baseline": 0,
    "harness run -b embedded --check-baseline": 0,
    "harness baseline show": 0,
    "harness run --suite nano-brain:cases/code-tasks/nano-brain-format/ledger/benchmarks/capability/dataset.json -m bm25": 0,
    # exit 0: a lifecycle grade fails a run only under --fail-on-grade (docs/lifecycle.md)
    "harness run --suite mnemonic:cases/lifecycle/builtin -m bm25": 0,
}
RUN_WITH_DOCKER: dict[str, int] = {
    "harness run --suite lifecycle:builtin -b postgres -m hybrid": 0,
}
_EXAMPLE = "needs the example memory service at that URL; tests/action runs these steps on a free port"
_BOARD = "minutes: four server containers, every built-in kind in every mode, the code tasks' embeddings"
NOT_RUN = {
    "harness run --suite code-tasks:builtin": "minutes: embeds about 540 records of its frozen code base for the vector modes",
    "harness run --dataset locomo --granularity turn": "needs ../shared/datasets and minutes of embedding",
    "python -m harness.benchmarks.fusion_grid": "needs ../shared/datasets and minutes of embedding per encoder",
    "harness run --dataset longmemeval-s -b postgres -m bm25 --limit 100 --sample stratified": (
        "needs ../shared/datasets and minutes of ingestion"
    ),
    "F=longmemeval_m_cleaned.json; M=all-MiniLM-L6-v2-int8": "the LongMemEval-M shard loop",
    "for i in 1 2 3 4; do harness embed --dataset longmemeval-m --file $F --model $M --shard $i/4 --out part$i & "
    "done; wait": "LongMemEval-M (several GB) is not in the repository",
    "mkdir -p cache && cp -r part*/. cache/": "the LongMemEval-M shard loop",
    "for i in 1 2 3 4; do": "the LongMemEval-M shard loop",
    "HARNESS_CACHE_DIR=cache harness run --dataset longmemeval-m --file $F -m bm25 -m hybrid --granularity turn "
    "--model $M --shard $i/4 --out reports/m &": "the LongMemEval-M shard loop",
    "done; wait": "the LongMemEval-M shard loop",
    "harness merge reports/m/dataset-longmemeval-m-turn-shard*of4-2*.json --out reports": "the LongMemEval-M shard loop",
    "harness run --system http:http://127.0.0.1:8080 -m bm25 -m hybrid": "needs a memory service at that URL",
    "harness run --system http:http://127.0.0.1:8080 --suite builtin": "needs a memory service at that URL",
    "harness run --system http:http://127.0.0.1:8080 --dataset locomo -m hybrid": (
        "needs a memory service at that URL and ../shared/datasets"
    ),
    "harness run --dataset longmemeval-s --system popoto --system reference -b redis -m bm25 -m hybrid "
    "--model all-MiniLM-L6-v2-static --limit 60 --sample stratified": "needs ../shared/datasets; 18 minutes here",
    "harness run --dataset locomo --system popoto --system reference -b redis -m bm25 -m hybrid "
    "--model all-MiniLM-L6-v2 --granularity turn": "needs ../shared/datasets; 12 minutes here",
    "harness run --dataset longmemeval-s --system popoto -b redis -m bm25": "needs ../shared/datasets; 15 minutes here",
    "harness run --dataset longmemeval-s --system popoto -b redis -m bm25 -m hybrid --model all-MiniLM-L6-v2-int8 "
    "--limit 100 --sample stratified": "needs ../shared/datasets and the int8 vectors of a cold run; 13 minutes here",
    "harness run --dataset longmemeval-s --system popoto -b redis -m hybrid --model all-MiniLM-L6-v2-int8": (
        "needs ../shared/datasets and the int8 vectors of a cold run; 55 minutes here"
    ),
    "harness run --dataset locomo --system popoto --system reference -b redis -m bm25 -m hybrid --haystack-rules popoto": (
        "needs ../shared/datasets; 9 minutes here"
    ),
    "harness run --dataset longmemeval-s --system popoto -b redis -m bm25 --haystack-rules popoto": (
        "needs ../shared/datasets; 15 minutes here"
    ),
    "harness run --dataset longmemeval-s --system reference -m bm25 --haystack-rules popoto": (
        "needs ../shared/datasets; under a minute here"
    ),
    "harness run --system reference --system http:http://127.0.0.1:8080 --dataset locomo -m hybrid": (
        "needs a memory service at that URL and ../shared/datasets"
    ),  # the leaderboard (docs/measurements): every built-in suite of every kind, each system on each backend
    "for b in embedded postgres redis valkey; do harness run --system reference -b $b "
    "-s builtin -s lifecycle:builtin -s conversation:builtin -s code-tasks:builtin -s haystack:builtin --out reports/board; done": _BOARD,
    "harness run --system popoto -b redis -m bm25 -m hybrid -s builtin -s lifecycle:builtin -s conversation:builtin -s code-tasks:builtin -s haystack:builtin --out reports/board": _BOARD,
    "harness run --system popoto -b valkey -m bm25 -m hybrid -s builtin -s lifecycle:builtin -s conversation:builtin -s code-tasks:builtin -s haystack:builtin --out reports/board": _BOARD,
    "harness run --system mem0 -b postgres -m hybrid -s builtin -s lifecycle:builtin -s conversation:builtin -s code-tasks:builtin -s haystack:builtin --out reports/board": _BOARD,
    "harness leaderboard --out reports/board": "reads the reports of the leaderboard's runs above",
    # docs/measurements/concurrency.md; tests/systems/test_concurrency_bench.py runs the command on the built-in dataset
    "harness bench --service-latency-ms 10 --dataset locomo": "needs ../shared/datasets; 4 minutes here",
    "harness bench --service-latency-ms 100 --dataset locomo --limit 200 --batch 64": (
        "needs ../shared/datasets; a minute here"
    ),
    **{
        f"harness bench --system {system} -b {backend} --dataset locomo --concurrency 1 --concurrency 2 "
        "--concurrency 4 --concurrency 8": (
            "needs ../shared/datasets and, but for embedded, Docker (and popoto, mem0 their extras): the lead's "
            "measurement on an idle machine (tests/systems/test_concurrency_bench.py runs it on the built-in dataset)"
        )
        for system, backend in (
            ("reference", "embedded"),
            ("reference", "redis"),
            ("reference", "postgres"),
            ("popoto", "redis"),
            ("mem0", "postgres"),
        )
    },
    "harness board --out reports/board": (
        "needs ../shared/datasets, Docker and the popoto and mem0 extras: minutes for PrecisionMemBench, "
        "hours for the full datasets (tests/cli/test_board.py runs its parts)"
    ),
    # docs/ci-action.md: tests/action runs these steps against the example service, on a free port
    "python examples/memory-service/memory_service.py --port 8080 &": _EXAMPLE,
    "harness run --system http:http://127.0.0.1:8080 -s builtin -s haystack:builtin -m bm25 --junit reports/junit.xml": _EXAMPLE,
    "harness baseline freeze --system http:http://127.0.0.1:8080 -s builtin -s haystack:builtin -m bm25 "
    "--baseline-dir baselines": _EXAMPLE,
    'git add baselines && git commit -m "harness baselines"': "commits to the reader's repository",
    'harness ci --systems http:http://127.0.0.1:8080 --suites "builtin haystack:builtin" --modes bm25 '
    "--baseline-dir baselines --summary summary.md": _EXAMPLE,
}


def documented_pages() -> list[Path]:
    """The README and every page of the manual."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def sh_blocks(page: Path) -> list[list[str]]:
    """Each `sh` block of a page as its command lines: continuations joined, comments and blanks dropped."""
    blocks = []
    for body in re.findall(r"```sh\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
        joined = re.sub(r"\\\n\s*", "", body)
        lines = [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines()]
        blocks.append([line for line in lines if line and not line.startswith("#")])
    return blocks


def readme_blocks() -> list[list[str]]:
    return sh_blocks(README)


def documented_commands() -> dict[str, list[str]]:
    """Every command line of the README and the manual, with the pages that show it."""
    pages: dict[str, list[str]] = {}
    for page in documented_pages():
        for line in (line for block in sh_blocks(page) for line in block):
            pages.setdefault(line, []).append(str(page.relative_to(ROOT)))
    return pages


def ci_lines() -> list[str]:
    return [line.strip() for line in CI_RUN.read_text(encoding="utf-8").splitlines()]


def quick_start_blocks() -> list[list[str]]:
    """The `sh` blocks of the README's Quick start: set-up + main job, set-up + tests, then the steps the tests
    need where they can (the Docker engine and images, Chromium)."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Quick start") :]
    section = section[: section.index("\n## ", 1)]
    return [
        [line.strip() for line in re.sub(r"\\\n\s*", "", body).splitlines() if line.strip()]
        for body in re.findall(r"```sh\n(.*?)```", section, re.S)
    ]


def in_ci() -> set[str]:
    return {line for block in quick_start_blocks() for line in block}


def harness_invocations(command: str) -> list[list[str]]:
    """The argument lists of the `harness` (and `python -m harness...`) calls in a shell line: split at `;`,
    `&`, `&&`, `|`, with loop keywords and leading `VAR=value` assignments dropped."""
    calls = []
    for segment in re.split(r"&&|\|\||[;&|]", command):
        words = shlex.split(segment)
        while words and (words[0] in ("do", "then", "else") or re.fullmatch(r"[A-Za-z_]\w*=\S*", words[0])):
            words = words[1:]
        if words[:1] == ["harness"] or (
            words[:2] == ["python", "-m"] and words[2:3] and words[2].startswith("harness")
        ):
            calls.append(words)
    return calls


def test_the_first_two_readme_blocks_are_the_setup_and_the_test_command() -> None:
    first, second = readme_blocks()[:2]
    assert len(first) == 1
    assert first[0].endswith("harness run")
    assert len(second) == 1
    assert second[0].endswith("pytest -n auto")
    assert first[0].rsplit(" && ", 1)[0] == second[0].rsplit(" && ", 1)[0], "one set-up for both commands"
    assert quick_start_blocks()[:2] == [first, second]


def test_ci_runs_the_readme_commands_verbatim_in_their_order() -> None:
    """The set-up and main job first, the test command after every step the tests need."""
    lines = ci_lines()
    setup_and_run, tests, *steps = quick_start_blocks()
    ordered = [*setup_and_run, *(line for step in steps for line in step), *tests]
    positions = []
    for command in ordered:
        assert command in lines, f".ci/run does not run the README's {command!r} as written"
        positions.append(lines.index(command))
    assert positions == sorted(positions), ".ci/run runs the README's commands in another order"


def test_every_documented_command_is_classified() -> None:
    """The manual's pages are held to the README's rule: a set-up or CI step they show is the README's own."""
    known = in_ci() | set(RUN_HERE) | set(RUN_WITH_DOCKER) | set(NOT_RUN)
    commands = documented_commands()
    unknown = {line: pages for line, pages in commands.items() if line not in known}
    assert not unknown, f"documented commands this test does not know (add each to a table here): {unknown}"
    stale = (set(RUN_HERE) | set(RUN_WITH_DOCKER) | set(NOT_RUN)) - set(commands)
    assert not stale, f"commands listed here that no page shows any more: {sorted(stale)}"


def test_the_readme_links_to_files_that_exist() -> None:
    """`mkdocs build --strict` checks the links of docs/ (.ci/run); the README is not a page of that site."""
    text = README.read_text(encoding="utf-8")
    targets = [m[1] for m in re.finditer(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text) if "://" not in m[1]]
    assert targets, "the README links into docs/"
    missing = [target for target in targets if not (ROOT / target).exists()]
    assert not missing, f"README links to files that do not exist: {missing}"


@pytest.mark.parametrize(
    "call",
    sorted({tuple(c) for command in [*NOT_RUN, *RUN_WITH_DOCKER] for c in harness_invocations(command)}),
    ids=" ".join,
)
def test_a_documented_command_not_run_here_parses(call: tuple[str, ...], harness_main: Main) -> None:
    """What is not run here is still parsed: `--help` after its arguments exits 0 only when every option it
    names exists and takes the values given (the values themselves are checked by a run). A `harness` call is
    parsed in this process (the parser is the point, not the console script); `python -m` in a child."""
    if call[0] == "harness":
        done = harness_main(*call[1:], "--help", cwd=ROOT, COLUMNS="200")
    else:
        done = subprocess.run(
            [sys.executable, *call[1:], "--help"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "COLUMNS": "200"},
        )
    assert done.returncode == 0, f"{' '.join(call)} --help: exit {done.returncode}\n{done.stderr[-2000:]}"


@pytest.fixture
def sandbox(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder to run README commands in, as a user in the checkout would, without writing into the checkout:
    `cases/` is a copy (a freeze writes its baselines there), reports land in the folder."""
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", cases)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HARNESS_CASES_DIR": str(cases),
        "HARNESS_STATE_DIR": str(tmp_path / "state"),
        "COLUMNS": "200",
    }
    return tmp_path, env


def _run_as_written(command: str, expected: int, sandbox: tuple[Path, dict[str, str]]) -> None:
    folder, env = sandbox
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == expected, (
        f"{command}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", list(RUN_HERE))
def test_readme_example_runs_as_written(command: str, sandbox: tuple[Path, dict[str, str]]) -> None:
    _run_as_written(command, RUN_HERE[command], sandbox)


@pytest.mark.parametrize("command", list(RUN_WITH_DOCKER))
def test_readme_server_example_runs_as_written(command: str, sandbox: tuple[Path, dict[str, str]]) -> None:
    if (reason := docker_available()) is not None:
        if os.environ.get("HARNESS_REQUIRE_DOCKER") == "1":
            pytest.fail(f"HARNESS_REQUIRE_DOCKER=1 but {reason}")
        pytest.skip(reason)
    _run_as_written(command, RUN_WITH_DOCKER[command], sandbox)
