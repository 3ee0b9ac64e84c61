"""Runs whole suites on one backend: what `harness run`, `harness bench` and reports share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from harness.backends.base import Backend, BackendInfo
from harness.evaluation.results import CaseResult
from harness.evaluation.runner import SuiteRunner
from harness.models import Suite
from harness.pipeline import Mode, PipelineSettings
from harness.pipeline.memory_layer import TextEmbedder
from harness.suites.resolve import cases_dir


@dataclass(frozen=True)
class Plan:
    suites: Sequence[Suite]
    modes: Sequence[Mode]
    settings: PipelineSettings = PipelineSettings()
    limit: int | None = None

    def limited(self) -> list[Suite]:
        if self.limit is None:
            return list(self.suites)
        return [
            replace(s, static_cases=s.static_cases[: self.limit], session_cases=s.session_cases[: self.limit])
            for s in self.suites
        ]

    @property
    def needs_vectors(self) -> bool:
        return any(mode.needs_vectors for mode in self.modes)

    def steps(self) -> int:
        """Progress units: one per static case and mode, one per session case (all its modes)."""
        return sum(len(s.static_cases) * len(self.modes) + len(s.session_cases) for s in self.limited())


def runnable_modes(modes: Sequence[Mode], info: BackendInfo) -> tuple[list[Mode], dict[Mode, str]]:
    """The modes this engine can run, and why each other one is not run (never faked)."""
    if info.vector_engine is not None:
        return list(modes), {}
    reason = f"no vector engine in {info.server_version}"
    return [m for m in modes if m is Mode.BM25], {m: reason for m in modes if m is not Mode.BM25}


def execute(
    plan: Plan,
    backend: Backend,
    embedder: TextEmbedder | None,
    advance: Callable[[str], None] = lambda _: None,
) -> list[CaseResult]:
    results: list[CaseResult] = []
    for suite in plan.limited():
        runner = SuiteRunner(backend, suite, settings=plan.settings, embedder=embedder)
        try:
            for mode in plan.modes:
                for case in suite.static_cases:
                    results.append(runner.run_static(case, mode))
                    advance(case.id)
            for position, case in enumerate(suite.session_cases):
                results += runner.run_session(position, plan.modes)
                advance(case.id)
        finally:
            runner.close()
    return results


def suite_embedder(model: str, device: str = "auto") -> TextEmbedder:
    """The embedder suites use: committed embeddings first, then the user cache, then the model."""
    from harness.embeddings.embedder import Embedder

    return Embedder(model, read_dirs=[cases_dir() / "embeddings"], device=device)
