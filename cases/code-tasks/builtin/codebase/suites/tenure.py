"""Importer for the Tenure / PrecisionMemBench fixtures (paper tag, HEAD and PMB share a layout).

Reads `beliefs.seed.json`, `retrieval.cases.json` and `session-retrieval.cases.json`. The
`.embedded.json` vectors come from a model that is not available offline, so vector modes embed
beliefs and queries with the harness's own model instead. The suite is judged by Tenure's rules
for the fixtures' version (`tenure@paper` when no static case has a `category`, else
`tenure@head`; PrecisionMemBench uses HEAD's), unless the spec names one. Every field with
retrieval meaning is kept; `Suite.warnings` names each field that is dropped and how often. Fields are validated in the fixtures'
own names, so an error points at what the user sees in their file; keys starting with `_` are
annotations and are ignored, and the one documented misnesting (`relevantBeliefs.pinnedFacts`)
is hoisted to `pinnedFacts`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.errors import CaseFileError
from harness.models import (
    AliasUpdate,
    Budget,
    Corpus,
    Expect,
    Memory,
    MemoryType,
    NoiseExpect,
    PreludeExpect,
    SessionCase,
    StaticCase,
    Status,
    Suite,
    TierExpect,
    Turn,
    TurnLabel,
)
from harness.models.memory import Scopes
from harness.pipeline.ruleset import TENURE_HEAD_RULES, TENURE_PAPER_RULES
from harness.suites.checks import check_corpus, check_sessions, check_static
from harness.suites.jsonfile import read_json, validate_records

T = TypeVar("T")

SEED, STATIC, SESSIONS = "beliefs.seed.json", "retrieval.cases.json", "session-retrieval.cases.json"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _drop_annotations(cls, data: Any) -> Any:
        """`_note`-style keys are comments; field aliases such as `_id` are data."""
        if not isinstance(data, dict):
            return data
        aliases = {f.alias for f in cls.model_fields.values() if f.alias}
        return {k: v for k, v in data.items() if not k.startswith("_") or k in aliases}


class Provenance(_Model):
    session_id: str | None = None
    turn_id: str | None = None
    extracted_at: str | None = None
    source_model: str | None = None


class Belief(_Model):
    id: str = Field(alias="_id")
    user_id: str
    type: MemoryType
    subtype: str | None = None
    expertise_domain: str | None = None
    expertise_depth: str | None = None
    relation_type: str | None = None
    participants: list[str] = []
    canonical_name: str
    aliases: list[str] = []
    content: str = ""
    why_it_matters: str | None = None
    scope: Scopes
    epistemic_status: Status = Status.ACTIVE
    pinned: bool = False
    confidence: float = 1.0
    reinforcement_count: int = 0
    user_edited: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None
    last_reinforced_at: datetime | None = None
    resolved_at: datetime | None = None
    superseded_by: str | None = None
    change_log: list[Any] = []
    provenance: Provenance | None = None
    embedding: list[float] | None = None

    def native(self) -> Memory:
        return Memory.model_validate(
            {
                "id": self.id,
                "user": self.user_id,
                "type": self.type,
                "subtype": self.subtype,
                "name": self.canonical_name,
                "aliases": self.aliases,
                "content": self.content,
                "rationale": self.why_it_matters or "",
                "scopes": self.scope,
                "status": self.epistemic_status,
                "superseded_by": self.superseded_by,
                "resolved_at": self.resolved_at,
                "pinned": self.pinned,
                "user_edited": self.user_edited,
                "confidence": self.confidence,
                "reinforcement_count": self.reinforcement_count,
                "created_at": self.created_at,
                "updated_at": self.updated_at,
                "last_reinforced_at": self.last_reinforced_at,
                "relation_type": self.relation_type,
                "participants": self.participants,
            }
        )


class Tier(_Model):
    shouldOnlyInclude: list[str] | None = None
    mustInclude: list[str] = []
    mustExclude: list[str] = []

    def native(self) -> TierExpect:
        only = tuple(self.shouldOnlyInclude) if self.shouldOnlyInclude is not None else None
        return TierExpect(
            should_only_include=only, must_include=tuple(self.mustInclude), must_exclude=tuple(self.mustExclude)
        )


class RelevantTier(Tier):
    pinnedFacts: Tier | None = None


class Prelude(_Model):
    nonEmpty: bool | None = None
    isNull: bool | None = None
    contains: list[str] = []
    mustNotContain: list[str] = []


class NoiseCheck(_Model):
    mustNotSurface: list[str] = []


class TopicRetrieval(_Model):
    shouldRetrieveTurns: list[Any] = []

    @field_validator("shouldRetrieveTurns")
    @classmethod
    def _only_empty(cls, turns: list[Any]) -> list[Any]:
        if turns:
            raise ValueError("retrieving earlier turns is not part of the memory pipeline; only [] is supported")
        return turns


class Expectations(_Model):
    relevantBeliefs: RelevantTier | None = None
    pinnedFacts: Tier | None = None
    openQuestions: Tier | None = None
    personaPrelude: Prelude | None = None
    noiseCheck: NoiseCheck | None = None
    topicRetrieval: TopicRetrieval | None = None

    def native(self) -> Expect:
        pinned = self.pinnedFacts or (self.relevantBeliefs.pinnedFacts if self.relevantBeliefs else None)
        prelude = self.personaPrelude
        return Expect(
            relevant=self.relevantBeliefs.native() if self.relevantBeliefs else None,
            pinned=pinned.native() if pinned else None,
            open_questions=self.openQuestions.native() if self.openQuestions else None,
            prelude=PreludeExpect(
                non_empty=prelude.nonEmpty,
                is_null=prelude.isNull,
                contains=tuple(prelude.contains),
                must_not_contain=tuple(prelude.mustNotContain),
            )
            if prelude
            else None,
            noise=NoiseExpect(must_not_surface=tuple(self.noiseCheck.mustNotSurface)) if self.noiseCheck else None,
        )


class TenureBudget(_Model):
    """`ContextBudget`: PrecisionMemBench's runners pass a case's whole budget to `buildContext`."""

    maxBeliefs: int | None = Field(default=None, ge=0)
    maxPinnedFacts: int | None = Field(default=None, ge=0)
    maxQuestions: int | None = Field(default=None, ge=0)

    def native(self) -> Budget:
        return Budget(
            max_beliefs=self.maxBeliefs, max_pinned_facts=self.maxPinnedFacts, max_questions=self.maxQuestions
        )


class Case(_Model):
    caseId: str
    description: str = ""
    category: str | None = None
    userId: str | None = None
    scope: Scopes
    query: str
    budget: TenureBudget | None = None
    notes: str | None = None
    expect: Expectations

    def native(self) -> StaticCase:
        return StaticCase(
            id=self.caseId,
            description=self.description,
            category=self.category or "uncategorized",
            user=self.userId,
            scopes=tuple(self.scope),
            query=self.query,
            budget=self.budget.native() if self.budget else None,
            expect=self.expect.native(),
        )


class Update(_Model):
    beliefId: str
    addAliases: list[str] = Field(min_length=1)


class SessionTurn(_Model):
    turnIndex: int = Field(ge=0)
    label: TurnLabel
    scope: Scopes
    turnSignal: str | None = None
    userMessage: str
    assistantMessage: str = ""
    topics: list[str] = []
    createBeliefAtTurn: Belief | None = None
    updateBeliefAtTurn: Update | None = None
    expect: Expectations

    def native(self) -> Turn:
        return Turn(
            index=self.turnIndex,
            label=self.label,
            scopes=tuple(self.scope),
            message=self.userMessage,
            topics=tuple(self.topics),
            create=self.createBeliefAtTurn.native() if self.createBeliefAtTurn else None,
            update=AliasUpdate(
                memory_id=self.updateBeliefAtTurn.beliefId, add_aliases=tuple(self.updateBeliefAtTurn.addAliases)
            )
            if self.updateBeliefAtTurn
            else None,
            expect=self.expect.native(),
        )


class Session(_Model):
    caseId: str
    description: str = ""
    notes: str | None = None
    turns: list[SessionTurn] = Field(min_length=1)

    def native(self) -> SessionCase:
        return SessionCase(id=self.caseId, description=self.description, turns=tuple(t.native() for t in self.turns))


def find_fixtures(root: Path) -> Path:
    """The folder holding the fixtures: `root` itself, or the one folder below it that does."""
    if not root.is_dir():
        raise CaseFileError.missing(root, "no such folder (expected a Tenure or PrecisionMemBench checkout)")
    if (root / SEED).is_file():
        return root
    found = sorted(p.parent for p in root.rglob(SEED) if ".git" not in p.parts)
    if not found:
        raise CaseFileError(root, f"no {SEED} in this folder or below it")
    if len(found) > 1:
        raise CaseFileError(root, f"several fixture folders ({', '.join(map(str, found))}): name one")
    return found[0]


# Native field names -> the fixtures' own, so cross-reference errors read in the user's terms.
_TENURE_NAMES = {
    "relevant": "relevantBeliefs",
    "pinned": "pinnedFacts",
    "open_questions": "openQuestions",
    "noise": "noiseCheck",
    "should_only_include": "shouldOnlyInclude",
    "must_include": "mustInclude",
    "must_exclude": "mustExclude",
    "must_not_surface": "mustNotSurface",
    "create": "createBeliefAtTurn",
    "update": "updateBeliefAtTurn",
    "memory_id": "beliefId",
    "memories": "beliefs",
    "id": "_id",
}


def _tenure_field(field: str | None) -> str | None:
    if field is None:
        return None
    return re.sub(r"[A-Za-z_]+", lambda m: _TENURE_NAMES.get(m.group(0), m.group(0)), field)


def _in_tenure_terms(check: Callable[[], T]) -> T:
    try:
        return check()
    except CaseFileError as exc:
        raise CaseFileError(exc.path, exc.message, case_id=exc.case_id, field=_tenure_field(exc.field)) from None


VERSIONS = {"paper": TENURE_PAPER_RULES.name, "head": TENURE_HEAD_RULES.name}

# Fields read and validated but not carried into the harness's models, and why that is harmless.
_DROPPED_BELIEF = {
    "expertise_domain": "calibration metadata, not read by retrieval",
    "expertise_depth": "calibration metadata, not read by retrieval",
    "change_log": "history, not read by retrieval",
    "provenance": "origin, not read by retrieval",
    "embedding": "the authors' vectors; the harness embeds with its own model",
}
_DROPPED_CASE = {"notes": "commentary, not scored"}
_DROPPED_TURN = {
    "turnSignal": "turn-worthiness label, not read by retrieval",
    "assistantMessage": "the prior reply; retrieval reads the user message",
}


def _carries(value: Any) -> bool:
    return value not in (None, "", [], {})


def _dropped(file: str, what: str, records: list[BaseModel], fields: dict[str, str]) -> list[str]:
    """One warning per dropped field that some record gives a value, with how many records do."""
    lines = []
    for name, why in fields.items():
        count = sum(1 for record in records if _carries(getattr(record, name)))
        if count:
            lines.append(f"{file}: drops `{name}` ({count} of {len(records)} {what}): {why}")
    return lines


def detect_version(static: list[Case]) -> str:
    """The paper tag's cases have no `category`; HEAD's and PrecisionMemBench's all have one."""
    return "head" if any(case.category is not None for case in static) else "paper"


def load_tenure(root: Path, version: str | None = None) -> Suite:
    """`version`: `paper` or `head`; None detects it from the files."""
    if version is not None and version not in VERSIONS:
        raise CaseFileError(root, f"unknown Tenure version {version!r} (paper, head)")
    folder = find_fixtures(root)
    seed_path, static_path, session_path = folder / SEED, folder / STATIC, folder / SESSIONS

    def key(name: str) -> Callable[[Any], str | None]:
        return lambda item: item.get(name) if isinstance(item.get(name), str) else None

    beliefs = validate_records(Belief, read_json(seed_path), seed_path, key("_id"))
    memories = tuple(b.native() for b in beliefs)
    corpus = Corpus.with_majority_user(memories) if memories else Corpus((), "")
    ids = _in_tenure_terms(lambda: check_corpus(corpus, seed_path))

    raw_static = validate_records(Case, read_json(static_path), static_path, key("caseId"))
    static = [c.native() for c in raw_static]
    _in_tenure_terms(lambda: check_static(static, ids, static_path))
    raw_sessions: list[Session] = []
    if session_path.exists():
        raw_sessions = validate_records(Session, read_json(session_path), session_path, key("caseId"))
    sessions = [c.native() for c in raw_sessions]
    _in_tenure_terms(lambda: check_sessions(sessions, ids, session_path))
    turns = [t for session in raw_sessions for t in session.turns]
    created = [t.createBeliefAtTurn for t in turns if t.createBeliefAtTurn is not None]
    warnings = [
        *_dropped(SEED, "beliefs", list(beliefs), _DROPPED_BELIEF),
        *_dropped(STATIC, "cases", list(raw_static), _DROPPED_CASE),
        *_dropped(f"{SESSIONS} createBeliefAtTurn", "created beliefs", list(created), _DROPPED_BELIEF),
        *_dropped(SESSIONS, "session cases", list(raw_sessions), _DROPPED_CASE),
        *_dropped(SESSIONS, "turns", list(turns), _DROPPED_TURN),
    ]
    name = f"tenure:{root.name}"
    sources = tuple(p for p in (seed_path, static_path, session_path) if p.exists())
    rules = VERSIONS[version or detect_version(raw_static)]
    return Suite(name, corpus, tuple(static), tuple(sessions), sources, ruleset=rules, warnings=tuple(warnings))
