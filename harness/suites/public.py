"""The public suites a leaderboard column stands for, each known by its content: the sha256 of the
files it is published as, at the commit its published figures were made on. The envelope records
every input file with its sha256 (`inputs`), so a report is placed by what it read, never by the
name of the folder a user loaded it from; a report whose file of the same name differs ran another
suite (`placement` says which file), and a subset of a suite (`--limit`, `--sample`) is none.

Nothing of a peer's is here but the digests of its files and where they are published.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any


@dataclass(frozen=True, slots=True)
class PublishedFile:
    """One file of a public suite: its published name and the digests it is accepted under, each
    with a caveat (None: the file as published at the suite's commit)."""

    name: str
    digests: Mapping[str, str | None]


@dataclass(frozen=True, slots=True)
class PublicSuite:
    name: str
    title: str
    kind: str
    files: tuple[PublishedFile, ...]
    source: str
    """Where its files are published (repository and folder), and under which licence."""
    commit: str | None
    """The commit its published figures were made on (None: the publisher names none)."""
    measures: tuple[str, ...] = ()
    """The measures its column shows, where a report's sheet has them (the rules' own, as
    `pmb-static/passed`, or a category's score, `category:NAME`); else the kind's main measures."""
    alone: bool = False
    """Its measures are over its own items only: a report that read other files too (Acervo's
    chat-only scenarios beside its project ones) mixed other items into them, so it is not this suite."""


_PMB = "tenurehq/precisionMemBench fixtures/ (MIT)"
_PMB_COMMIT = "ec8347b358cce1987fb4eff2cebdc0fa46c5e23a"
"""The commit of its published mem0 rows; its fixtures are byte for byte those of 3c0e830 to 18c7955."""
_SEED = PublishedFile("beliefs.seed.json", {"35659b3b9a581b644fc6746e1b4e902c3e7b56c0973b546bf7b0816a69e3de98": None})

_OTHERS: tuple[PublicSuite, ...] = (
    PublicSuite(
        "precisionmembench-static",
        "PrecisionMemBench static",
        "beliefs",
        (
            _SEED,
            PublishedFile(
                "retrieval.cases.json", {"09e99f0852280538abe34b03570f65583fdb10df3c554b7150f0f665d5db709c": None}
            ),
        ),
        _PMB,
        _PMB_COMMIT,
        ("pmb-static/passed", "pmb-static/precision", "pmb-static/recall"),
    ),
    PublicSuite(
        "precisionmembench-session",
        "PrecisionMemBench session",
        "beliefs",
        (
            _SEED,
            PublishedFile(
                "session-retrieval.cases.json",
                {"f24a359cdb2bf50237e1ab463af938cd54a81917f64c8d97304de318aed4cc1c": None},
            ),
        ),
        _PMB,
        _PMB_COMMIT,
        ("pmb-session/passed", "pmb-session/precision", "pmb-session/drift"),
    ),
    PublicSuite(
        "longmemeval-s",
        "LongMemEval-S",
        "haystack",
        (
            PublishedFile(
                "longmemeval_s.json.xz",
                {
                    "bbee14dfa38f066a5f09e3cf73ca4afd4903e3146fe2afc885374deb47908403": (
                        "rebuilt from per-question copies: 499 of the 500 questions, another order"
                    )
                },
            ),
        ),
        "LongMemEval (ICLR 2025), the cleaned release (MIT)",
        None,
    ),
    PublicSuite(
        "locomo",
        "LoCoMo",
        "haystack",
        (PublishedFile("locomo10.json", {"79fa87e90f04081343b8c8debecb80a9a6842b76a7aa537dc9fdf651ea698ff4": None}),),
        "snap-research/locomo data/locomo10.json (CC BY-NC 4.0)",
        None,
    ),
)
_MNEMONIC = "mnemonic-benchmark-quality"
MNEMONIC_COMMIT = "8361855955cd6e2dd8eae14c6c8558132d38ad4d"
ACERVO_COMMIT = "461ebffb7b75ca7db12768e37fa64ad32b93ac6c"
NANO_BRAIN_COMMIT = "4b159882b1cbf3e27d34d9d62b7393938969dc19"

PEER_SUITES: tuple[PublicSuite, ...] = (
    PublicSuite(
        _MNEMONIC,
        "Mnemonic benchmark-quality",
        "lifecycle",
        (PublishedFile("scenarios.go", {"bdf76b5b25ac92b708ed73e66da5b819a073168ad1b962e72939ab215c4cbd7b": None}),),
        "CalebisGross/mnemonic (now AppSprout-dev/mnemonic) cmd/benchmark-quality/scenarios.go (AGPL-3.0)",
        MNEMONIC_COMMIT,
        ("precision", "recall", "mrr", "ndcg", "noise_suppression", "signal_retention"),
    ),
    PublicSuite(
        "acervo",
        "Acervo indexed projects",
        "conversation",
        tuple(
            PublishedFile(name, {digest: None})
            for name, digest in (
                ("p1_benchmark.yaml", "c792d4bf37aea8c4afff0eb350c5180bdfdf4a20ccb0b2dbff66c14cfc225e5f"),
                ("p2_benchmark.yaml", "b5524faa4baa61b8fde14b4c58e1cb5e3394a0acee344c4adedb7f77f5f643bd"),
                ("p3_benchmark.yaml", "026e4450688a147c89e6087b559939413b441e0b412203242e58f582b80845bb"),
            )
        ),
        "sandyeveliz/acervo tests/integration/scenarios/p{1,2,3}_benchmark.yaml over tests/fixtures/ (Apache-2.0)",
        ACERVO_COMMIT,
        tuple(f"category:{c}" for c in ("RESOLVE", "GROUND", "RECALL", "FOCUS", "ADAPT")),
        alone=True,
    ),
    PublicSuite(
        "nano-brain-capability",
        "nano-brain capability",
        "code-tasks",
        (
            PublishedFile(
                "dataset.json",
                {
                    "1e8d4a0b403275c5049067083f4be3f9a6d54d160e3eb4081bd88b4220e875a2": None,
                    "0311b13ccf210ce4f7fa16b3312e81503a66fc3d671843c1ff58ee6ccc0018c8": (
                        "as of 51f3a74: the same tasks with an `agent` block (nano-brain-2's agent pass) added"
                    ),
                },
            ),
        ),
        "nano-step/nano-brain benchmarks/capability/dataset.json over the repository itself (MIT)",
        NANO_BRAIN_COMMIT,
        ("recall", "recall_fixed"),
    ),
)
"""The peers' own benchmarks, each at the commit of its published figures: Mnemonic's direct
scenarios as v0.16.0 (8361855) holds them, the file its BASELINE-1 (2026-03-17, run at 254d004,
a branch commit not in the public history) was measured on, unchanged to its newest snapshot;
Acervo's three indexed-project files at its v0.5.0 release (461ebff), whose category scores
`docs/benchmarks.md` publishes (its chat-only `c*.yaml` are scored apart there, hence `alone`);
nano-brain's capability tasks at 4b15988, where `baseline_v1.json` was frozen (0.875), and as
51f3a74 added its agent block (the baseline unchanged since)."""

PUBLIC_SUITES: tuple[PublicSuite, ...] = _OTHERS + PEER_SUITES
"""The public suites known by content. LongMemEval-S is known only as the rebuilt file of
`../shared/datasets` (the official file's digest is not recorded here), hence its caveat; LoCoMo's
digest is that of the official `data/locomo10.json` as `../shared/datasets` holds it (the
repository's newest snapshot ships it zipped, so it was not compared there)."""


@dataclass(frozen=True)
class Placement:
    """Where a report's numbers belong: the public suites it ran whole, and why it meets no other."""

    suites: tuple[PublicSuite, ...]
    caveats: tuple[str, ...] = ()
    """What differs from the published files for a suite it meets (a rebuilt file)."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Why it is not a public suite it resembles (a changed file, a subset)."""


def _digests(inputs: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Per input file name, its sha256."""
    return {PurePath(str(each["path"])).name: str(each["sha256"]) for each in inputs}


def placement(report: Mapping[str, Any], known: Sequence[PublicSuite] = PUBLIC_SUITES) -> Placement:
    """The public suites of the report's kind whose every file it read, by digest, whatever their
    names; a suite whose files it read under their names with other content is named as changed."""
    read = set(_digests(report["inputs"]).values())
    named = _digests(report["inputs"])
    settings = report.get("settings") or {}
    limit = settings.get("limit")
    subset = (
        []
        if limit is None
        else [f"--limit {limit}"] + ([f"--sample {settings['sample']}"] if settings.get("sample") else [])
    )
    met, caveats, notes = [], [], []
    for suite in (s for s in known if s.kind == report["kind"]):
        matched = [next((d for d in f.digests if d in read), None) for f in suite.files]
        if all(matched):
            others = sorted(name for name, digest in named.items() if digest not in matched)
            if suite.alone and others:
                notes.append(
                    f"{suite.title}: read together with {', '.join(others)}; its measures count its own items "
                    "alone, so this is another suite"
                )
                continue
            if subset:
                notes.append(f"{suite.title}: a subset ({', '.join(subset)}), not the whole suite")
                continue
            met.append(suite)
            caveats += [
                f"{suite.title}: {f.name} {note}"
                for f, digest in zip(suite.files, matched, strict=True)
                if digest is not None and (note := f.digests[digest]) is not None
            ]
            continue
        changed = [f.name for f, d in zip(suite.files, matched, strict=True) if d is None and f.name in named]
        if changed and len(changed) + sum(1 for d in matched if d) == len(suite.files):
            notes.append(
                f"{suite.title}: {', '.join(changed)} differ(s) from the files published at "
                f"{(suite.commit or 'its release')[:12]}: another suite"
            )
    return Placement(tuple(met), tuple(caveats), tuple(notes))
