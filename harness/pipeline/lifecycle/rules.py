"""Lifecycle retrieval rulesets: whose reading of a scenario's retrieval a run applies.

`harness` is the harness's own pipeline (settings.py). `mnemonic-8ecf3ab` is Mnemonic's retrieval
agent as its code implements it (internal/agent/retrieval/agent.go, internal/store/sqlite, and
cmd/benchmark-quality's baselines, read at CalebisGross/mnemonic@8ecf3ab, the snapshot whose
benchmark holds the six direct scenarios BASELINE-1 reports). Each rule that differs is one field,
so a test can flip exactly one; the numbers of Mnemonic's rules are `MnemonicConstants`.

Not modelled (reported, see docs/lifecycle.md): Mnemonic's bag-of-words stub embedder
(the run's model embeds), its consolidation agent (the harness's cycles run), its stop-word list
(the harness's), and its temporal-intent filter (no query of the six scenarios triggers it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any


class Fusion(StrEnum):
    WEIGHTED = "weighted"
    """Harness: each channel's score normalised (BM25 / best, cosine), summed with weights,
    entries under a share of the best dropped."""
    MNEMONIC = "mnemonic"
    """Lexical entry = 0.7 / rank + 0.3 x salience; vector entry = cosine; found by both:
    0.6 x cosine + 0.4 x lexical + 0.15; top 10 of each channel, no floor."""


class Spread(StrEnum):
    HARNESS = "harness"
    """activation x strength x hop_decay per hop, at least min_activation."""
    MNEMONIC = "mnemonic"
    """activation x strength x 0.7^(hop number) x relation weight, kept when above 0.1."""


class Ranking(StrEnum):
    HARNESS = "harness"
    """activation x salience term x recency term (half-life)."""
    MNEMONIC = "mnemonic"
    """activation x (1 + 0.2 e^(-days since use / 30)); no salience factor."""


@dataclass(frozen=True)
class MnemonicConstants:
    """The numbers of Mnemonic's retrieval (DefaultConfig and the agent's formulas)."""

    entry_limit: int = 10
    """Hits each of SearchByFullText and SearchByEmbedding gives the agent."""
    lexical_rank_weight: float = 0.7
    lexical_salience_weight: float = 0.3
    default_salience: float = 0.5
    """What a memory of salience <= 0 counts as in its lexical entry score."""
    merge_alpha: float = 0.6
    """Weight of the cosine for a memory both channels found."""
    dual_hit_bonus: float = 0.15
    max_hops: int = 3
    decay_factor: float = 0.7
    """Hop n (1-based) passes activation x strength x decay_factor^n x relation weight."""
    activation_threshold: float = 0.1
    """Spread activation must be strictly above this."""
    relation_weights: Mapping[str, float] = field(
        default_factory=lambda: MappingProxyType(
            {"caused_by": 1.2, "part_of": 1.15, "reinforces": 1.1, "temporal": 1.1, "similar": 1.0, "contradicts": 0.8}
        )
    )
    """Other relation types weigh 1."""
    recency_weight: float = 0.2
    recency_days: float = 30.0
    activity_per_log: float = 0.02
    activity_cap: float = 0.2


@dataclass(frozen=True)
class LifecycleRules:
    name: str
    concepts_searched: bool
    """The lexical index holds a memory's concept tags beside its summary and content."""
    prefix_terms: bool
    """A query word of two or more characters matches every indexed word it begins (FTS5 `word*`)."""
    row_bm25: bool
    """Lexical hits rank by FTS5's bm25 over the whole row (fts5.py), not by the engine's per-field
    BM25 (the engine still decides which memories match and are retrievable)."""
    fusion: Fusion
    spread: Spread
    ranking: Ranking
    hebbian: bool
    """Spreading along an association (source to target only) adds one to its activation count,
    and a memory reached over one ranks with activation x min(0.2, 0.02 ln(1 + that count)) more
    (Mnemonic's activity bonus): retrieval changes the graph later queries read."""
    baseline_modes: bool
    """bm25 and vector modes are the plain lexical / vector baselines (top k by the channel's own
    score, no spreading or weighting); hybrid is the full pipeline. Else every mode is the
    pipeline fed by that mode's entry channel(s)."""
    fixed_cutoff: bool
    """Judging: P@5 is hits / 5 and nDCG's ideal ranking holds min(|expected|, 5) hits however few
    memories come back (Mnemonic's scoreQuery at this snapshot); else both count min(5, returned).
    The graded precision is that P@5."""
    constants: MnemonicConstants = MnemonicConstants()

    def as_dict(self) -> dict[str, Any]:
        """The rules as a report records them (constants and relation weights as plain values)."""
        data: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "constants"}
        data["constants"] = {
            f.name: dict(v) if isinstance(v := getattr(self.constants, f.name), Mapping) else v
            for f in fields(self.constants)
        }
        return data


HARNESS_RULES = LifecycleRules(
    name="harness",
    concepts_searched=False,
    prefix_terms=False,
    row_bm25=False,
    fusion=Fusion.WEIGHTED,
    spread=Spread.HARNESS,
    ranking=Ranking.HARNESS,
    hebbian=False,
    baseline_modes=False,
    fixed_cutoff=False,
)
MNEMONIC_RULES = LifecycleRules(
    name="mnemonic-8ecf3ab",
    concepts_searched=True,
    prefix_terms=True,
    row_bm25=True,
    fusion=Fusion.MNEMONIC,
    spread=Spread.MNEMONIC,
    ranking=Ranking.MNEMONIC,
    hebbian=True,
    baseline_modes=True,
    fixed_cutoff=True,
)
RULESETS = {r.name: r for r in (HARNESS_RULES, MNEMONIC_RULES)}


class RulesetName(StrEnum):
    HARNESS = HARNESS_RULES.name
    MNEMONIC = MNEMONIC_RULES.name


def lifecycle_rules(name: str) -> LifecycleRules:
    try:
        return RULESETS[name]
    except KeyError:
        raise ValueError(f"unknown lifecycle ruleset {name!r} (known: {', '.join(RULESETS)})") from None
