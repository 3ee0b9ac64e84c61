"""LongMemEval (S, M, oracle): one isolated haystack per question, streamed record by record.

The S and M files are hundreds of MB to GBs, so records are parsed one at a time with ijson and
never held together. Gold: sessions = `answer_session_ids`; turns = turns with `has_answer: true`.
Questions whose id ends in `_abs` are abstention questions: no evidence exists, and the official
retrieval scoring leaves them out.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NotRequired

import ijson
from pydantic import BaseModel, ConfigDict, ValidationError
from typing_extensions import TypedDict  # pydantic validates this one, not typing's, before Python 3.12

from harness.errors import CaseFileError
from harness.messages import one_line
from harness.models.haystack import Document, Haystack, Question, QuestionRef
from harness.suites import compressed, jsonstream

ABSTENTION_SUFFIX = "_abs"

_SCALARS = frozenset({"string", "number", "boolean", "null"})


class _Turn(TypedDict):
    """Validated into a dict, not a model: LongMemEval-S's 246,000 turns validate four times faster."""

    role: str
    content: str
    has_answer: NotRequired[bool]


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore")

    question_id: str
    question_type: str
    question: str
    answer: str | int | float
    question_date: str | None = None
    haystack_session_ids: list[str]
    haystack_dates: list[str]
    haystack_sessions: list[list[_Turn]]
    answer_session_ids: list[str]


def turn_id(session_id: str, index: int) -> str:
    """Turn ids are the session id and the 1-based turn position (LoCoMo's `D<n>:<t>` style)."""
    return f"{session_id}:{index}"


class LongMemEvalFile:
    """A LongMemEval JSON file (a list of question records)."""

    def __init__(self, path: Path):
        self.path = path

    def scan(self) -> list[QuestionRef]:
        """Every question's id and type, in one pass over the file's parse events."""
        ids: list[object] = []
        types: list[object] = []
        fields = {"item.question_id": ids, "item.question_type": types}
        with self._errors(), compressed.open_binary(self.path) as handle:
            for prefix, event, value in jsonstream.parse(handle):
                found = fields.get(prefix)
                if found is not None and event in _SCALARS:
                    found.append(value)
        if len(ids) != len(types):
            raise CaseFileError(self.path, f"{len(ids)} question ids but {len(types)} question types")
        return [QuestionRef(i, str(q), str(t)) for i, (q, t) in enumerate(zip(ids, types, strict=True))]

    def count(self) -> int:
        """The question ids, counted: ijson's C code matches their prefix, so Python sees one
        value per question rather than every parse event (`scan`'s pass costs nearly twice as much)."""
        return sum(1 for _ in self._items("item.question_id"))

    def read(self, selected: frozenset[int] | None = None) -> Iterator[Haystack]:
        for position, raw in enumerate(self._items("item")):
            if selected is None or position in selected:
                yield self._haystack(position, raw)

    def _items(self, prefix: str) -> Iterator[object]:
        with self._errors(), compressed.open_binary(self.path) as handle:
            yield from jsonstream.items(handle, prefix)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Parse and decompression failures as one line naming the file."""
        try:
            yield
        except ijson.JSONError as exc:
            raise CaseFileError(self.path, f"not valid JSON: {one_line(exc)}") from exc
        except UnicodeDecodeError as exc:  # ijson decodes each string it parses
            raise CaseFileError(
                self.path, f"not UTF-8: a string holds bytes that cannot be decoded ({exc.reason})"
            ) from exc
        except compressed.ERRORS as exc:
            raise CaseFileError(self.path, f"a damaged {self.path.suffix} file: {exc}") from exc

    def _haystack(self, position: int, raw: object) -> Haystack:
        try:
            record = _Record.model_validate(raw)
        except ValidationError as exc:
            case = raw.get("question_id") if isinstance(raw, dict) else None
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"]))
            message = f"record {position} is not LongMemEval: {where}: {first['msg']}"
            raise CaseFileError(self.path, message, case_id=case) from exc
        if not len(record.haystack_session_ids) == len(record.haystack_dates) == len(record.haystack_sessions):
            raise CaseFileError(
                self.path, "haystack ids, dates and sessions differ in length", case_id=record.question_id
            )
        documents: list[Document] = []
        notes: list[str] = []
        seen: set[str] = set()
        for session_id, date, turns in zip(
            record.haystack_session_ids, record.haystack_dates, record.haystack_sessions, strict=True
        ):
            if session_id in seen:
                notes.append(f"duplicate session {session_id} dropped")
                continue
            seen.add(session_id)
            documents.extend(
                Document(turn_id(session_id, i), session_id, turn["content"], turn["role"], date)
                for i, turn in enumerate(turns, start=1)
            )
        gold_turns = frozenset(
            turn_id(session_id, i)
            for session_id, turns in zip(record.haystack_session_ids, record.haystack_sessions, strict=True)
            for i, turn in enumerate(turns, start=1)
            if turn.get("has_answer", False)
        )
        abstention = record.question_id.endswith(ABSTENTION_SUFFIX)
        absent = [] if abstention else [s for s in record.answer_session_ids if s not in seen]
        question = Question(
            id=record.question_id,
            category=record.question_type,
            text=record.question,
            date=record.question_date,
            gold_sessions=frozenset() if abstention else frozenset(record.answer_session_ids) & seen,
            gold_turns=frozenset() if abstention else gold_turns,
            abstention=abstention,
            answer=str(record.answer),
            defects=tuple(f"answer session {s} is not in the haystack" for s in absent),
            abstention_gold=frozenset(record.answer_session_ids) & seen if abstention else frozenset(),
        )
        return Haystack(record.question_id, tuple(documents), (question,), tuple(notes))
