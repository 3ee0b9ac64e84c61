"""Cross-reference checks no single record can make: ids unique, every named id exists."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness.errors import CaseFileError
from harness.models import Corpus, SessionCase, StaticCase


def check_corpus(corpus: Corpus, path: Path) -> set[str]:
    if not corpus.memories:
        raise CaseFileError(path, "the corpus has no memories", field="memories")
    ids: set[str] = set()
    for memory in corpus.memories:
        if memory.id in ids:
            raise CaseFileError(path, f"duplicate memory id {memory.id!r}", field="memories")
        ids.add(memory.id)
    for memory in corpus.memories:
        for field, ref in [
            ("superseded_by", memory.superseded_by),
            *(("participants", p) for p in memory.participants),
        ]:
            if ref is not None and ref not in ids:
                raise CaseFileError(path, f"memory {memory.id!r} names unknown memory {ref!r}", field=field)
    return ids


def _unique(case_ids: Iterable[str], path: Path) -> None:
    seen: set[str] = set()
    for case_id in case_ids:
        if case_id in seen:
            raise CaseFileError(path, "duplicate case id", case_id=case_id)
        seen.add(case_id)


def check_static(cases: Iterable[StaticCase], memory_ids: set[str], path: Path) -> None:
    cases = list(cases)
    _unique((c.id for c in cases), path)
    for case in cases:
        for field, memory_id in case.expect.ids():
            if memory_id not in memory_ids:
                raise CaseFileError(path, f"unknown memory id {memory_id!r}", case_id=case.id, field=field)


def check_sessions(cases: Iterable[SessionCase], memory_ids: set[str], path: Path) -> None:
    """Session state carries over from case to case, so ids created earlier count as known."""
    cases = list(cases)
    _unique((c.id for c in cases), path)
    known = set(memory_ids)
    for case in cases:
        for turn in case.turns:
            where = f"turns[{turn.index}]"
            if turn.create is not None:
                if turn.create.id in known:
                    raise CaseFileError(
                        path, f"creates existing memory {turn.create.id!r}", case_id=case.id, field=f"{where}.create.id"
                    )
                known.add(turn.create.id)
            if turn.update is not None and turn.update.memory_id not in known:
                raise CaseFileError(
                    path,
                    f"unknown memory id {turn.update.memory_id!r}",
                    case_id=case.id,
                    field=f"{where}.update.memory_id",
                )
            for field, memory_id in turn.expect.ids():
                if memory_id not in known:
                    raise CaseFileError(
                        path, f"unknown memory id {memory_id!r}", case_id=case.id, field=f"{where}.{field}"
                    )
