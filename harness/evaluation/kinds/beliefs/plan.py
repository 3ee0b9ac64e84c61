"""What a belief run runs: its suites in its modes, cut by `--limit`, `--shard` or a pytest group."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from harness.models import Suite
from harness.pipeline import Mode, PipelineSettings
from harness.shards import Shard


@dataclass(frozen=True)
class Plan:
    """Suites in modes: `limit` keeps the first N cases of each kind of each suite, `shard` the
    cases whose id hashes to it, `only` the cases of these ids (a session case still replays every
    earlier session, run or not)."""

    suites: Sequence[Suite]
    modes: Sequence[Mode]
    settings: PipelineSettings = field(default_factory=PipelineSettings)
    limit: int | None = None
    shard: Shard | None = None
    only: frozenset[str] | None = None

    def runs(self, case_id: str) -> bool:
        return (self.shard is None or self.shard.owns(case_id)) and (self.only is None or case_id in self.only)

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
        return sum(
            sum(map(self.runs, (c.id for c in s.static_cases))) * len(self.modes)
            + sum(map(self.runs, (c.id for c in s.session_cases)))
            for s in self.limited()
        )
