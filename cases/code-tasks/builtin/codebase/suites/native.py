"""The harness's own suite folder format: corpus.json, static.json, optional session.json."""

from __future__ import annotations

from pathlib import Path

from harness.errors import CaseFileError
from harness.models import Corpus, Memory, SessionCase, StaticCase, Suite
from harness.suites.checks import check_corpus, check_sessions, check_static
from harness.suites.jsonfile import read_json, validate_records


def _object(path: Path, keys: set[str]) -> dict:
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise CaseFileError(path, f"expected a JSON object with {sorted(keys)}, got {type(raw).__name__}")
    unknown = set(raw) - keys
    if unknown:
        raise CaseFileError(path, "unknown field", field=sorted(unknown)[0])
    return raw


def _case_id(item: dict) -> str | None:
    value = item.get("id")
    return value if isinstance(value, str) else None


def load_native(folder: Path, name: str | None = None) -> Suite:
    if not folder.is_dir():
        raise CaseFileError.missing(folder, "no such suite folder")
    corpus_path = folder / "corpus.json"
    raw = _object(corpus_path, {"default_user", "memories"})
    if not isinstance(raw.get("default_user"), str):
        raise CaseFileError(corpus_path, "missing or not a string", field="default_user")
    memories = validate_records(Memory, raw.get("memories"), corpus_path, _case_id, prefix="memories")
    corpus = Corpus(tuple(memories), raw["default_user"])
    ids = check_corpus(corpus, corpus_path)

    static_path = folder / "static.json"
    static = validate_records(StaticCase, _object(static_path, {"cases"}).get("cases"), static_path, _case_id)
    check_static(static, ids, static_path)

    session_path = folder / "session.json"
    sessions: list[SessionCase] = []
    if session_path.exists():
        sessions = validate_records(SessionCase, _object(session_path, {"cases"}).get("cases"), session_path, _case_id)
        check_sessions(sessions, ids, session_path)
    sources = tuple(p for p in (corpus_path, static_path, session_path) if p.exists())
    return Suite(name or folder.name, corpus, tuple(static), tuple(sessions), sources)
