"""One module per kind of case, each implementing `harness.evaluation.kind.CaseKind`, and the
table that turns `--suite` arguments into kinds.

Belief suites (`builtin`, `tenure:DIR`, a suite folder) run together as one `BeliefKind`; every
other suite format names its kind by a prefix (`PREFIX:REST`), and `FORMATS` maps the prefix to
the function that loads `REST` and builds the kind. A new kind of case adds its module here, its
loader in `harness/suites/`, and one entry in `FORMATS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.evaluation.kind import CaseKind
from harness.evaluation.kinds.beliefs import BeliefKind, Plan
from harness.pipeline.settings import Mode, PipelineSettings
from harness.shards import Shard
from harness.suites import load_suite


@dataclass(frozen=True)
class KindOptions:
    """What `harness run` says about every kind of case; `extra` holds options of one kind only."""

    modes: Sequence[Mode]
    settings: PipelineSettings = field(default_factory=PipelineSettings)
    limit: int | None = None
    fail_under: float | None = None
    embedding_model: str | None = None
    shard: Shard | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


def _code_tasks(rest: str, options: KindOptions) -> CaseKind:
    from harness.evaluation.kinds.code_tasks import CodeTasksKind
    from harness.suites.code_tasks import load_builtin

    return CodeTasksKind.for_run(load_builtin(rest), options)


def _nano_brain(rest: str, options: KindOptions) -> CaseKind:
    from harness.evaluation.kinds.code_tasks import CodeTasksKind
    from harness.suites.code_tasks import load_nano_brain

    return CodeTasksKind.for_run(load_nano_brain(rest), options)


def _lifecycle(rest: str, options: KindOptions) -> CaseKind:
    from harness.evaluation.kinds.lifecycle import lifecycle_format

    return lifecycle_format(rest, options)


def _mnemonic(rest: str, options: KindOptions) -> CaseKind:
    from harness.evaluation.kinds.lifecycle import mnemonic_format

    return mnemonic_format(rest, options)


def _conversation(rest: str, options: KindOptions) -> CaseKind:
    from harness.evaluation.kinds.conversation import ConversationKind
    from harness.suites.resolve import load_conversation

    return ConversationKind.for_run(load_conversation(rest), options)


def _acervo(rest: str, options: KindOptions) -> CaseKind:
    from harness.evaluation.kinds.conversation import ConversationKind
    from harness.suites.acervo import load_acervo

    folder, _, projects = rest.partition(":")
    if not folder:
        raise HarnessError("--suite acervo:DIR: name the folder of turn files and fixture projects")
    suite = load_acervo(
        Path(folder).expanduser(), name=f"acervo:{rest}", projects=Path(projects).expanduser() if projects else None
    )
    return ConversationKind.for_run(suite, options)


FORMATS: Mapping[str, Callable[[str, KindOptions], CaseKind]] = {
    "code-tasks": _code_tasks,
    "nano-brain": _nano_brain,
    "lifecycle": _lifecycle,
    "mnemonic": _mnemonic,
    "conversation": _conversation,
    "acervo": _acervo,
}
"""`--suite PREFIX:REST` formats of kinds other than belief suites: prefix -> builder(REST, options)."""

BUILTIN_SUITES = ("builtin", "lifecycle:builtin", "conversation:builtin", "code-tasks:builtin")
"""The built-in suite of every kind with pytest items (haystack datasets are benchmarks: not items)."""


def prefix_of(spec: str) -> str | None:
    """The registered format prefix `spec` starts with, if any."""
    head, sep, _ = spec.partition(":")
    return head if sep and head in FORMATS else None


def kinds_for(specs: Sequence[str], options: KindOptions) -> list[CaseKind]:
    """The kinds a run's `--suite` arguments name, belief suites first (together, one report)."""
    beliefs = [s for s in specs if prefix_of(s) is None]
    kinds: list[CaseKind] = []
    if beliefs:
        plan = Plan([load_suite(s) for s in beliefs], options.modes, options.settings, options.limit, options.shard)
        kinds.append(BeliefKind(plan, options.fail_under, options.embedding_model))
    for spec in specs:
        if (prefix := prefix_of(spec)) is not None:
            kinds.append(FORMATS[prefix](spec.partition(":")[2], options))
    return kinds
