"""LoCoMo (`locomo10.json`): one haystack per conversation, asked all of its QA pairs.

Gold: turns = the `evidence` dia_ids; sessions = the sessions those turns are in. The file has
known evidence defects (empty lists, `'D8:6; D9:17'`, `'D'`, `'D:11:26'`, `'D30:05'`, ids of no
turn): evidence is split on `;`, `,` and spaces and each piece read as `D<session>:<turn>`; what
cannot be read or resolved is dropped and recorded as a defect, never fatal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import ijson
from pydantic import BaseModel, ConfigDict, ValidationError

from harness.errors import CaseFileError
from harness.messages import one_line
from harness.models.haystack import Document, Haystack, Question, QuestionRef
from harness.suites import compressed, jsonstream

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
"""LoCoMo's category numbers by their names (the numbering is not the paper's order of mention)."""

_SESSION_KEY = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D(\d+):(\d+)")
_SEPARATORS = re.compile(r"[;,\s]+")


class _Turn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    speaker: str
    dia_id: str
    text: str = ""
    blip_caption: str | None = None


class _QA(BaseModel):
    model_config = ConfigDict(extra="ignore")

    question: str
    answer: str | int | float | None = None
    adversarial_answer: str | None = None
    evidence: list[str] = []
    category: int


class _Conversation(BaseModel):
    model_config = ConfigDict(extra="ignore")

    sample_id: str
    conversation: dict[str, object]
    qa: list[_QA]


def session_id(number: int) -> str:
    return f"session_{number}"


def _turn_text(turn: _Turn) -> str:
    """An image turn's picture is known only by its BLIP caption, so the caption joins the text."""
    return f"{turn.text} [image: {turn.blip_caption}]" if turn.blip_caption else turn.text


def category_name(number: int) -> str:
    return CATEGORIES.get(number, f"category-{number}")


def parse_evidence(evidence: list[str], turns: set[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """Gold turn ids from raw evidence strings, and a defect note for everything repaired or dropped."""
    gold: set[str] = set()
    defects: list[str] = []
    if not evidence:
        defects.append("empty evidence")
    for raw in evidence:
        pieces = [p for p in _SEPARATORS.split(raw.strip()) if p]
        if len(pieces) > 1:
            defects.append(f"evidence {raw!r} split into {len(pieces)} ids")
        for piece in pieces:
            match = _DIA_ID.fullmatch(piece)
            if match is None:
                defects.append(f"malformed evidence {piece!r} dropped")
                continue
            canonical = f"D{int(match[1])}:{int(match[2])}"
            if canonical not in turns:
                defects.append(f"evidence {piece!r} names no turn, dropped")
                continue
            if canonical != piece:
                defects.append(f"evidence {piece!r} read as {canonical!r}")
            gold.add(canonical)
    return frozenset(gold), tuple(defects)


class LoCoMoFile:
    """The LoCoMo JSON file: a list of conversations, each with its QA pairs."""

    def __init__(self, path: Path):
        self.path = path

    def scan(self) -> list[QuestionRef]:
        refs: list[QuestionRef] = []
        for conversation in self._conversations():
            refs.extend(
                QuestionRef(len(refs), f"{conversation.sample_id}:{i}", category_name(qa.category))
                for i, qa in enumerate(conversation.qa)
            )
        return refs

    def count(self) -> int:
        return len(self.scan())  # one small file: no cheaper pass is worth its code

    def read(self, selected: frozenset[int] | None = None) -> Iterator[Haystack]:
        position = 0
        for conversation in self._conversations():
            wanted = [
                (i, qa) for i, qa in enumerate(conversation.qa, start=0) if selected is None or position + i in selected
            ]
            position += len(conversation.qa)
            if wanted:
                yield self._haystack(conversation, wanted)

    def _conversations(self) -> Iterator[_Conversation]:
        try:
            with compressed.open_binary(self.path) as handle:
                for index, raw in enumerate(jsonstream.items(handle, "item")):
                    yield self._validate(index, raw)
        except ijson.JSONError as exc:
            raise CaseFileError(self.path, f"not valid JSON: {one_line(exc)}") from exc
        except UnicodeDecodeError as exc:  # ijson decodes each string it parses
            raise CaseFileError(
                self.path, f"not UTF-8: a string holds bytes that cannot be decoded ({exc.reason})"
            ) from exc
        except compressed.ERRORS as exc:
            raise CaseFileError(self.path, f"a damaged {self.path.suffix} file: {exc}") from exc

    def _validate(self, index: int, raw: object) -> _Conversation:
        try:
            return _Conversation.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(map(str, first["loc"]))
            raise CaseFileError(self.path, f"conversation {index} is not LoCoMo: {where}: {first['msg']}") from exc

    def _haystack(self, conversation: _Conversation, wanted: list[tuple[int, _QA]]) -> Haystack:
        documents = self._documents(conversation)
        turns = {doc.id for doc in documents}
        session_of = {doc.id: doc.session_id for doc in documents}
        questions = []
        for i, qa in wanted:
            gold_turns, defects = parse_evidence(qa.evidence, turns)
            answer = qa.answer if qa.answer is not None else qa.adversarial_answer
            questions.append(
                Question(
                    id=f"{conversation.sample_id}:{i}",
                    category=category_name(qa.category),
                    text=qa.question,
                    date=None,
                    gold_sessions=frozenset(session_of[t] for t in gold_turns),
                    gold_turns=gold_turns,
                    abstention=False,
                    answer="" if answer is None else str(answer),
                    defects=defects,
                )
            )
        return Haystack(conversation.sample_id, documents, tuple(questions))

    def _documents(self, conversation: _Conversation) -> tuple[Document, ...]:
        body = conversation.conversation
        numbers = sorted(int(m[1]) for key in body if (m := _SESSION_KEY.fullmatch(key)))
        documents: list[Document] = []
        for number in numbers:
            date = body.get(f"session_{number}_date_time")
            try:
                turns = [_Turn.model_validate(t) for t in body[f"session_{number}"]]  # type: ignore[attr-defined]
            except (ValidationError, TypeError) as exc:
                raise CaseFileError(
                    self.path, f"session_{number} is not a list of turns: {exc}", case_id=conversation.sample_id
                ) from exc
            documents.extend(
                Document(t.dia_id, session_id(number), _turn_text(t), t.speaker, str(date) if date else None)
                for t in turns
            )
        return tuple(documents)
