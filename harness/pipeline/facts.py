"""Facts a user states in a conversation turn, found by rule (no model), so a later turn recalls them.

A message is split into sentences (at `.`, `!`, `?`, `;` and line breaks). A sentence is a fact
when it states something: it is not a question (no `?`, no question or request word first, no
request phrase: `harness.pipeline.intent`), not an acknowledgement or opinion opener (`ACKNOWLEDGE`),
and it has at least two content words. Discourse openers ("by the way", "note that", ...) are
cut from its front. The assistant's reply states nothing the user asserted, so it is not mined.
"""

from __future__ import annotations

import hashlib
import re

from harness.models.project import ProjectRecord, RecordKind
from harness.pipeline.intent import REQUEST_PHRASES, REQUEST_STARTS
from harness.text import content_terms, tokenize

_SENTENCE = re.compile(r"[^.!?;\n]+[.!?;]?")
OPENERS = re.compile(
    r"^(by the way|btw|fyi|also|oh|and|so|just so you know|for the record|note that|remember that|"
    r"keep in mind that|for context)\b[,:]?\s*",
    re.IGNORECASE,
)
ACKNOWLEDGE = re.compile(
    r"^(ok|okay|thanks|thank you|great|interesting|nice|cool|sure|yes|no|right|hmm|wow|perfect|"
    r"got it|makes sense|sounds good|i think|i see|i understand|i guess|i get it|good)\b"
)


def stated_facts(message: str) -> list[str]:
    """The sentences of `message` that state facts, openers removed, in order, without repeats."""
    found: list[str] = []
    for match in _SENTENCE.finditer(message):
        sentence = match.group().strip()
        while (opened := OPENERS.sub("", sentence)) != sentence:
            sentence = opened
        sentence = sentence.strip(" ,")
        lowered = sentence.lower()
        words = tokenize(lowered.replace("'", ""))
        if not words or sentence.endswith("?") or words[0] in REQUEST_STARTS:
            continue
        if REQUEST_PHRASES.search(lowered) or ACKNOWLEDGE.match(lowered):
            continue
        if len(content_terms(sentence)) >= 2 and sentence not in found:
            found.append(sentence.rstrip(".;!"))
    return found


def fact_record(sentence: str) -> ProjectRecord:
    """A fact as a project record: the same sentence always has the same id (stating it twice
    replaces it rather than adding a copy)."""
    digest = hashlib.sha256(sentence.lower().encode()).hexdigest()[:16]
    return ProjectRecord(id=f"fact:{digest}", kind=RecordKind.FACT, path="", title=sentence, text=sentence)
