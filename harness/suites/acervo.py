"""Importer for Acervo's conversation scenarios: one YAML file per conversation, each naming the
project folder it talks about (`project_fixture`), or none (`type: conversation`, the chat-only
scenarios of Acervo v0.5: a conversation over an empty memory).

A suite folder holds the turn files (`*.yaml`, `*.yml`, read in name order); Acervo's repository
root (`tests/integration/scenarios` under it) is read as that folder. `project_fixture` is looked
up beside the YAML file and in `projects/` and `fixtures/` beside it, then in `projects/`,
`fixtures/` and `tests/fixtures/` of each folder above it up to the repository root (the first
holding `.git` or `pyproject.toml`, at most `MAX_LEVELS` up: Acervo keeps its fixtures at
`tests/fixtures`, two above its scenarios), then in the projects folder the user names
(`acervo:DIR:PROJECTS`); the first that exists is used, and it must lie inside one of those
folders (a suite cannot send `../../etc` or `/` to a server). Files are read as `suites.yamlfile`
reads them (no aliases, a depth limit, no duplicate keys); a turn's message is held to the suite
text limits (`harness.limits`). A file in Acervo's older scenario format (turns of `user_msg` and
`assistant_msg`, run by its `run_benchmarks.py`) is not a benchmark turn file: it is left out
with one line saying so.

Checks keep Acervo's meaning (peer-formats.md §2): `s1.expected_intent`; `s2.activate_kinds`,
`not_activate_kinds`, `activate_files_containing`, `not_activate_files_containing`, `min_nodes`,
`max_nodes`; `s3.warm_tokens_min`/`max` (inclusive), `context_contains` (all),
`context_contains_any` (one), `context_not_contains` (none); `s1_5.should_extract_entity` and
`should_extract_fact_containing` (a stored fact holds the term). Acervo's node kinds map onto the
harness's record kinds: `synthesis` is the project overview and `entity` a stored fact; `file`,
`folder`, `section` and `symbol` are the same. `effectiveness` and `agent_comparison` are estimates
the harness measures instead: they are kept in the report (Acervo's own efficiency measure reads
them), never scored. The chat-only scenarios' graph checks (`MODEL_CHECKS`) judge the entities,
relations and graph Acervo's model builds: the harness reads them and reports one line per check
and file that it cannot judge them, and why. Any other field is reported as not used, one line
per file and field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.errors import CaseFileError, HarnessError
from harness.models.conversation import Category, ConversationSuite, ConversationTurn, Intent, Scenario, TurnChecks
from harness.models.memory import Text
from harness.models.project import RecordKind
from harness.suites.jsonfile import describe
from harness.suites.yamlfile import read_yaml

KINDS: dict[str, RecordKind] = {
    "synthesis": RecordKind.OVERVIEW,
    "entity": RecordKind.FACT,
    **{kind.value: kind for kind in RecordKind},
}
"""Acervo's node kinds, and the harness's own names, as record kinds."""

_NOTES = ("effectiveness", "agent_comparison")
CHAT_ONLY = "conversation"
"""Acervo's `type` of a scenario with no project (`tests/integration/test_conversation_scenarios.py`)."""
MODEL_CHECKS = {
    "expected_entities": "typed entities Acervo's S1 model extracts from the message "
    "(the harness stores the user's stated sentences, not typed entities)",
    "expected_relations": "typed relations between the entities Acervo's S1 model extracts "
    "(the harness builds no relation graph)",
    "graph_assertions": "node and edge counts, and their change per turn, of the graph Acervo's model builds",
    "expected_s2": "seed and warm-layer node ids of Acervo's walk over its model-built graph",
}
"""Checks of the chat-only scenarios that need Acervo's model and graph: read, not judged."""
REPO_MARKERS = (".git", "pyproject.toml")
MAX_LEVELS = 3
SCENARIOS = Path("tests/integration/scenarios")
"""Where Acervo's repository keeps its scenario files."""
_BESIDE = (".", "projects", "fixtures")
_ABOVE = ("projects", "fixtures", "tests/fixtures")

Terms = list[str]


class _Checks(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _S1(_Checks):
    expected_intent: Intent | None = None


class _S2(_Checks):
    activate_kinds: Terms = []
    not_activate_kinds: Terms = []
    activate_files_containing: Terms = []
    not_activate_files_containing: Terms = []
    min_nodes: int | None = Field(default=None, ge=0)
    max_nodes: int | None = Field(default=None, ge=0)


class _S3(_Checks):
    warm_tokens_min: int | None = Field(default=None, ge=0)
    warm_tokens_max: int | None = Field(default=None, ge=0)
    context_contains: Terms = []
    context_contains_any: Terms = []
    context_not_contains: Terms = []


class _S15(_Checks):
    should_extract_entity: str | None = None
    should_extract_fact_containing: str | None = None


class _Turn(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    turn: int = Field(ge=1)
    user: Text = Field(min_length=1)
    assistant_sim: Text = ""
    category: Category
    s1: _S1 = _S1()
    s2: _S2 = _S2()
    s3: _S3 = _S3()
    s1_5: _S15 = _S15()
    effectiveness: dict[str, Any] | None = None
    agent_comparison: dict[str, Any] | None = None


class _File(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    name: str = Field(min_length=1)
    project_fixture: str | None = Field(default=None, min_length=1)
    type: str | None = None
    turns: list[_Turn] = Field(min_length=1)


def load_acervo(folder: Path, name: str | None = None, projects: Path | None = None) -> ConversationSuite:
    """Every turn file of `folder` (or of Acervo's repository root), with its project folder
    resolved (`_places`) and its checks mapped."""
    if projects is not None and not projects.is_dir():
        raise HarnessError(f"projects folder {projects} is not a folder")
    if not folder.is_dir():
        raise CaseFileError.missing(folder, "not a folder of Acervo turn files (*.yaml)")
    if (folder / SCENARIOS).is_dir():
        folder = folder / SCENARIOS
    files = sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
    notes = _Notes()
    places = _places(folder, projects)
    raws = [(path, read_yaml(path)) for path in files]
    for path, raw in raws:
        if _older_format(raw):
            notes.unjudged.append(
                f"{path.name}: not loaded: Acervo's older scenario format (turns of user_msg and "
                "assistant_msg, run by its run_benchmarks.py), not a benchmark turn file"
            )
    scenarios = [_scenario(path, raw, notes, places) for path, raw in raws if not _older_format(raw)]
    if not scenarios:
        raise CaseFileError(folder, "no turn files (*.yaml, *.yml) in the folder")
    names = [s.name for s in scenarios]
    if len(set(names)) != len(names):
        raise CaseFileError(
            folder, f"two turn files share a scenario name: {sorted(n for n in names if names.count(n) > 1)[0]!r}"
        )
    return ConversationSuite(
        name or f"acervo:{folder}", tuple(scenarios), folder, tuple(notes.dropped), tuple(notes.unjudged)
    )


class _Notes:
    """What the import reports: fields not used, and checks or files it cannot judge."""

    def __init__(self) -> None:
        self.dropped: list[str] = []
        self.unjudged: list[str] = []


def _older_format(raw: Any) -> bool:
    """A file of Acervo's older scenario format: turns with `user_msg` and no `user`."""
    turns = raw.get("turns") if isinstance(raw, dict) else None
    return (
        isinstance(turns, list)
        and bool(turns)
        and all(isinstance(t, dict) and "user_msg" in t and "user" not in t for t in turns)
    )


def _places(folder: Path, projects: Path | None) -> list[Path]:
    """Where a fixture may lie, in lookup order: beside the turn files, then in each folder above
    them up to the repository root, then the user's projects folder."""
    places = [folder / place for place in _BESIDE]
    above = folder.resolve()
    for _ in range(MAX_LEVELS):
        if above.parent == above or any((above / marker).exists() for marker in REPO_MARKERS):
            break
        above = above.parent
        places += [above / place for place in _ABOVE]
    return places + ([projects] if projects is not None else [])


def _scenario(path: Path, raw: Any, notes: _Notes, places: list[Path]) -> Scenario:
    if not isinstance(raw, dict):
        raise CaseFileError(path, f"expected a YAML mapping, got {type(raw).__name__}")
    try:
        parsed = _File.model_validate(raw)
    except ValidationError as exc:
        field, message = describe(exc)
        raise CaseFileError(path, message, field=field) from None
    notes.dropped.extend(f"{path.name}: field {key!r} not used" for key in parsed.model_extra or {})
    numbers = [t.turn for t in parsed.turns]
    if numbers != sorted(set(numbers)):
        raise CaseFileError(path, "turn numbers must be unique and increasing", field="turns")
    unused: dict[str, list[int]] = {}
    for turn in parsed.turns:
        for key in turn.model_extra or {}:
            unused.setdefault(key, []).append(turn.turn)
    for key, where in unused.items():
        on = f"turn {where[0]}" if len(where) == 1 else f"turns {', '.join(map(str, where))}"
        if key in MODEL_CHECKS:
            notes.unjudged.append(f"{path.name}: {key} ({on}) not judged: {MODEL_CHECKS[key]}")
        else:
            notes.dropped.append(f"{path.name}: field {key!r} not used ({on})")
    turns = [_turn(turn, path, f"turns[{position}]") for position, turn in enumerate(parsed.turns)]
    if parsed.project_fixture is None:
        if parsed.type != CHAT_ONLY:
            raise CaseFileError(
                path,
                f"Field required (or type: {CHAT_ONLY} for a conversation with no project)",
                field="project_fixture",
            )
        notes.unjudged.append(
            f"{path.name}: a {CHAT_ONLY} scenario (no project_fixture): played over an empty memory; the harness "
            "judges intent, budgets and context terms against the facts it stores from the user's messages, "
            "not Acervo's model-built graph"
        )
        return Scenario(parsed.name, None, tuple(turns))
    return Scenario(parsed.name, _project(path, parsed.project_fixture, places), tuple(turns))


def _turn(turn: _Turn, path: Path, where: str) -> ConversationTurn:
    checks = TurnChecks(
        intent=turn.s1.expected_intent,
        activate_kinds=_kinds(turn.s2.activate_kinds, path, f"{where}.s2.activate_kinds"),
        not_activate_kinds=_kinds(turn.s2.not_activate_kinds, path, f"{where}.s2.not_activate_kinds"),
        activate_labels=tuple(turn.s2.activate_files_containing),
        not_activate_labels=tuple(turn.s2.not_activate_files_containing),
        min_nodes=turn.s2.min_nodes,
        max_nodes=turn.s2.max_nodes,
        warm_tokens_min=turn.s3.warm_tokens_min,
        warm_tokens_max=turn.s3.warm_tokens_max,
        contains=tuple(turn.s3.context_contains),
        contains_any=tuple(turn.s3.context_contains_any),
        not_contains=tuple(turn.s3.context_not_contains),
        fact_terms=tuple(t for t in (turn.s1_5.should_extract_entity, turn.s1_5.should_extract_fact_containing) if t),
    )
    for low, high, field in (
        (checks.min_nodes, checks.max_nodes, "s2.min_nodes"),
        (checks.warm_tokens_min, checks.warm_tokens_max, "s3.warm_tokens_min"),
    ):
        if low is not None and high is not None and low > high:
            raise CaseFileError(path, "minimum above maximum", field=f"{where}.{field}")
    notes = {key: value for key in _NOTES if (value := getattr(turn, key)) is not None}
    return ConversationTurn(turn.turn, turn.user, turn.assistant_sim, turn.category, checks, notes)


def _kinds(names: list[str], path: Path, field: str) -> tuple[RecordKind, ...]:
    unknown = [n for n in names if n not in KINDS]
    if unknown:
        raise CaseFileError(path, f"unknown node kind {unknown[0]!r} (known: {', '.join(KINDS)})", field=field)
    return tuple(dict.fromkeys(KINDS[n] for n in names))


def _project(path: Path, fixture: str, places: list[Path]) -> Path:
    """The first lookup place holding `fixture`; it must resolve inside one of them."""
    for place in places:
        candidate = (place / fixture).resolve()
        if candidate.is_dir():
            if not any(candidate.is_relative_to(root.resolve()) for root in places):
                raise CaseFileError(
                    path,
                    f"project folder {fixture!r} resolves to {candidate}, outside the suite's folders "
                    "(name a projects folder: acervo:DIR:PROJECTS)",
                    field="project_fixture",
                )
            return candidate
    looked = ", ".join(str(place / fixture) for place in places)
    raise CaseFileError(path, f"project folder {fixture!r} not found (looked in {looked})", field="project_fixture")
