"""`harness board`: the whole leaderboard from one command. Every built-in system (the reference
pipeline, Popoto, mem0, an HTTP service such as the example one) on every public suite it can run,
each under the rules its published figures were made under, one `harness run` per job in a process
of its own, into a folder of its own; then the leaderboard of them all.

Resumable: a job whose folder holds its complete report is done and is not run again (its time,
kept in `board-state.json`, still counts towards the estimate), so an interrupted board goes on
where it stopped. A job whose needs are missing (a suite's files, a system's package, Docker for a
server engine, the service's URL) is skipped with the reason, never counted as a zero. Progress
is one line per job: its place, what it is, and the time left, estimated from the jobs timed so far.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.files import atomic_write

STATE = "board-state.json"
"""Per job that finished, its wall time and exit code: what resuming and the estimate read."""


@dataclass(frozen=True, slots=True)
class Job:
    """One `harness run`, for one system on one public suite under one set of rules."""

    name: str
    """Its folder under the board's, and its key in the state."""
    title: str
    args: tuple[str, ...]
    """`harness run`'s arguments, without `--out`."""
    needs: tuple[str, ...] = ()
    """What it cannot run without: `docker`, `package:NAME`, `file:PATH`, `given:OPTION` (no path was
    given or found: the option that gives one), `url`."""
    staged: tuple[tuple[Path, str], ...] = ()
    """Files copied into its folder (as the name given) before it runs: a public suite that is
    part of a folder of the peer's (Acervo's three project files of its six)."""


@dataclass(frozen=True, slots=True)
class Sources:
    """Where the board finds the public suites and the service: None where the user has none."""

    pmb: Path | None
    """PrecisionMemBench's fixtures (its `fixtures/` folder, any name)."""
    longmemeval_s: Path | None
    locomo: Path | None
    service: str | None = None
    """An HTTP memory service to put on the board (`http:URL`), e.g. the example service."""
    mnemonic: Path | None = None
    """A checkout of Mnemonic's repository (its `cmd/benchmark-quality/scenarios.go` is read)."""
    acervo: Path | None = None
    """A checkout of Acervo's repository (`tests/integration/scenarios`, `tests/fixtures`)."""
    nano_brain: Path | None = None
    """A checkout of nano-brain's repository: its capability tasks, and the code base they ask about."""


@dataclass(frozen=True, slots=True)
class SystemOnBoard:
    name: str
    system: str
    backend: str
    modes: tuple[str, ...]
    needs: tuple[str, ...]
    belief_rules: str
    """The context rules a PrecisionMemBench suite runs it under (the rules of its published rows)."""
    dataset_rules: str
    """The haystack rules a dataset runs it under."""


def systems(service: str | None) -> list[SystemOnBoard]:
    """The built-in systems, each on the engine and modes it runs, under the rules of its peers'
    published rows: the reference under PrecisionMemBench's vector baseline's adapter (the row it
    stands in for) and the harness's dataset rules; Popoto under Popoto's; mem0 and an HTTP service
    under PrecisionMemBench's HTTP adapter."""
    found = [
        SystemOnBoard(
            "reference",
            "reference",
            "embedded",
            ("bm25", "vector", "hybrid"),
            (),
            "precisionmembench-vector",
            "harness",
        ),
        SystemOnBoard(
            "popoto", "popoto", "redis", ("bm25", "hybrid"), ("docker", "package:popoto"), "precisionmembench", "popoto"
        ),
        SystemOnBoard(
            "mem0", "mem0", "postgres", ("hybrid",), ("docker", "package:mem0"), "precisionmembench", "harness"
        ),
    ]
    if service is not None:
        found.append(SystemOnBoard("service", service, "embedded", (), ("url",), "precisionmembench", "harness"))
    return found


ACERVO_FILES = ("p1_benchmark.yaml", "p2_benchmark.yaml", "p3_benchmark.yaml")
"""Acervo's indexed-project turn files, the suite its category scores are published for."""


def peer_jobs(sources: Sources, each: SystemOnBoard, out: Path) -> list[Job]:
    """The system on the peers' own benchmarks, each under its peer's rules: Mnemonic's direct
    scenarios, Acervo's three project files (copied into the job's folder, as their folder holds
    its chat-only scenarios too) over its fixtures, and nano-brain's capability tasks over its
    checkout; a system that cannot run a kind is reported not applicable by its run."""
    modes = tuple(arg for m in each.modes for arg in ("-m", m))
    common = ("--system", each.system, "-b", each.backend, *modes)
    acervo = sources.acervo / "tests" / "integration" / "scenarios" if sources.acervo else None
    staged = out / f"{each.name}-acervo" / "scenarios"
    tasks = sources.nano_brain / "benchmarks" / "capability" / "dataset.json" if sources.nano_brain else None
    mnemonic = sources.mnemonic / "cmd" / "benchmark-quality" if sources.mnemonic else None
    return [
        Job(
            f"{each.name}-mnemonic",
            f"{each.name} on Mnemonic's benchmark-quality (mnemonic-8ecf3ab)",
            (*common, "--suite", f"mnemonic:{mnemonic}", "--lifecycle-rules", "mnemonic-8ecf3ab"),
            (*each.needs, _file(mnemonic and mnemonic / "scenarios.go", "--mnemonic")),
        ),
        Job(
            f"{each.name}-acervo",
            f"{each.name} on Acervo's indexed projects (acervo-v0.5)",
            (
                *common,
                "--suite",
                f"acervo:{staged}:{sources.acervo and sources.acervo / 'tests' / 'fixtures'}",
                "--turn-rules",
                "acervo-v0.5",
            ),
            (*each.needs, *(_file(acervo and acervo / name, "--acervo") for name in ACERVO_FILES)),
            tuple((acervo / name, f"scenarios/{name}") for name in ACERVO_FILES) if acervo else (),
        ),
        Job(
            f"{each.name}-nano-brain",
            f"{each.name} on nano-brain's capability tasks (nano-brain-1)",
            (*common, "--suite", f"nano-brain:{tasks}:{sources.nano_brain}", "--code-rules", "nano-brain-1"),
            (*each.needs, _file(tasks, "--nano-brain")),
        ),
    ]


def plan(sources: Sources, out: Path = Path("board")) -> list[Job]:
    """Every system on every public suite: PrecisionMemBench (static and session in one run of its
    fixtures), LongMemEval-S and LoCoMo, then the peers' own (`peer_jobs`); a suite the user has no
    files for is a job that needs them."""
    jobs = []
    for each in systems(sources.service):
        modes = tuple(arg for m in each.modes for arg in ("-m", m))
        common = ("--system", each.system, "-b", each.backend, *modes)
        jobs.append(
            Job(
                f"{each.name}-precisionmembench",
                f"{each.name} on PrecisionMemBench ({each.belief_rules})",
                (*common, "--suite", f"tenure:{sources.pmb}", "--context-rules", each.belief_rules),
                (*each.needs, _file(sources.pmb, "--pmb")),
            )
        )
        for dataset, path in (("longmemeval-s", sources.longmemeval_s), ("locomo", sources.locomo)):
            jobs.append(
                Job(
                    f"{each.name}-{dataset}",
                    f"{each.name} on {dataset} ({each.dataset_rules})",
                    (*common, "--dataset", dataset, "--file", str(path), "--haystack-rules", each.dataset_rules),
                    (*each.needs, _file(path, f"--{dataset}")),
                )
            )
        jobs += peer_jobs(sources, each, out)
    return jobs


@dataclass
class Progress:
    """What the board has done: per job, its wall time and exit code (read back to resume)."""

    done: dict[str, dict[str, float]] = field(default_factory=dict)

    @classmethod
    def read(cls, folder: Path) -> Progress:
        path = folder / STATE
        return cls(json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {})

    def write(self, folder: Path) -> None:
        atomic_write(folder / STATE, json.dumps(self.done, indent=2, sort_keys=True) + "\n")

    def left(self, jobs: Sequence[Job]) -> float | None:
        """Seconds the jobs not yet done should take, by the mean of those timed (None: none timed)."""
        timed = [entry["wall_s"] for entry in self.done.values()]
        if not timed:
            return None
        return sum(timed) / len(timed) * sum(1 for job in jobs if job.name not in self.done)


def eta(seconds: float | None) -> str:
    if seconds is None:
        return "time left: unknown until a job is timed"
    minutes, secs = divmod(round(seconds), 60)
    return f"time left: about {minutes} min {secs:02d} s"


def complete(folder: Path) -> bool:
    """Whether a job's folder holds a complete, unsharded report (the runner's `-latest` copy)."""
    return folder.is_dir() and any(folder.glob("*-latest.json"))


def make_board(
    jobs: Sequence[Job],
    out: Path,
    missing: Callable[[Job], str | None],
    run_job: Callable[[Job, Path], int],
    say: Callable[[str], None],
    clock: Callable[[], float] = time.monotonic,
) -> tuple[list[Path], list[str]]:
    """Run each job not yet done, in order; returns the folders with reports and the skipped jobs' lines."""
    out.mkdir(parents=True, exist_ok=True)
    progress = Progress.read(out)
    folders, skipped = [], []
    for place, job in enumerate(jobs, 1):
        head = f"[{place}/{len(jobs)}] {job.title}"
        folder = out / job.name
        if job.name in progress.done and complete(folder):
            say(f"{head}: done before, kept ({eta(progress.left(jobs))})")
            folders.append(folder)
            continue
        if (why := missing(job)) is not None:
            skipped.append(f"{job.title}: {why}")
            say(f"{head}: skipped: {why}")
            continue
        say(f"{head}: running ({eta(progress.left(jobs))})")
        for source, name in job.staged:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, folder / name)
        start = clock()
        code = run_job(job, folder)
        progress = Progress.read(out)  # another board on this folder may have finished jobs meanwhile
        progress.done.pop(job.name, None)
        if complete(folder):
            progress.done[job.name] = {"wall_s": clock() - start, "exit_code": float(code)}
            folders.append(folder)
        else:
            skipped.append(f"{job.title}: the run wrote no complete report (exit {code})")
        progress.write(out)
        say(f"{head}: exit {code} ({eta(progress.left(jobs))})")
    return folders, skipped


def _file(path: Path | None, option: str) -> str:
    """The need of a suite's file: the path, or the option that gives it where none was found."""
    return f"file:{path}" if path is not None else f"given:{option}"


def needs_missing(job: Job, have: Mapping[str, bool]) -> str | None:
    """The first of a job's needs that is not met, in words (`have`: what was checked, by need)."""
    for need in job.needs:
        if not have.get(need, False):
            kind, _, what = need.partition(":")
            return {
                "docker": "needs a Docker engine (bash docker/start-engine.sh)",
                "package": f"needs the {what} package (its extra)",
                "file": f"needs the suite's files ({what} is absent)",
                "given": f"needs the suite's files: give {what}, or put them in a data folder",
                "url": "needs the service's URL (--service http:URL)",
            }[kind]
    return None
