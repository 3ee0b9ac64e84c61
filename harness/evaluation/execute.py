"""Runs whole suites on one backend: what `harness run`, `harness bench` and reports share."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from harness.backends.base import Backend, BackendInfo
from harness.evaluation.model_check import load_model
from harness.evaluation.results import CaseResult
from harness.evaluation.runner import SuiteRunner
from harness.models import Suite
from harness.pipeline import Mode, PipelineSettings
from harness.pipeline.memory_layer import TextEmbedder
from harness.suites.resolve import cases_dir
from harness.suites.texts import suite_texts


@dataclass(frozen=True)
class Plan:
    suites: Sequence[Suite]
    modes: Sequence[Mode]
    settings: PipelineSettings = field(default_factory=PipelineSettings)
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


def steps(plan: Plan, backend: Backend, embedder: TextEmbedder | None) -> Iterator[tuple[str, list[CaseResult]]]:
    """(case id, its results) per progress step, as they finish: an interrupted run keeps what it yielded."""
    for suite in plan.limited():
        runner = SuiteRunner(backend, suite, settings=plan.settings, embedder=embedder)
        try:
            for mode in plan.modes:
                for case in suite.static_cases:
                    yield case.id, [runner.run_static(case, mode)]
            for position, case in enumerate(suite.session_cases):
                yield case.id, runner.run_session(position, plan.modes)
        finally:
            runner.close()


def execute(
    plan: Plan,
    backend: Backend,
    embedder: TextEmbedder | None,
    advance: Callable[[str], None] = lambda _: None,
) -> list[CaseResult]:
    results: list[CaseResult] = []
    for case_id, step in steps(plan, backend, embedder):
        results += step
        advance(case_id)
    return results


def suite_embedder(model: str, device: str = "auto") -> TextEmbedder:
    """The embedder suites use: committed embeddings first, then the user cache, then the model.

    The model is loaded only if some text is not cached, through `load_model`'s exit-code rule.
    """
    from harness.embeddings.embedder import Embedder

    return Embedder(model, read_dirs=[cases_dir() / "embeddings"], device=device, loader=load_model)


def embed_ahead(plan: Plan, embedder: TextEmbedder) -> None:
    """Embed every text the plan's suites will ask for, so a model that cannot load fails before the run."""
    texts: Iterable[str] = (t for s in plan.limited() for t in suite_texts(s, plan.settings.fields))
    embedder.embed(list(dict.fromkeys(texts)))
