"""What a conversation turn needs from the project: an overview, one specific part, or nothing.

Rules, applied in order to the message lowercased:
1. `chat` when the message asks for nothing: it has no question mark, does not start with a
   question or request word (`REQUEST_STARTS`) and contains no request phrase (`REQUEST_PHRASES`).
   Greetings, thanks, acknowledgements and statements of fact ("the lead is Ana") are chat.
2. `overview` when the request is about the whole project: it contains an overview cue
   (`OVERVIEW_CUES`: summaries, structure, layout, what the project is or contains).
3. `specific` otherwise: it asks about some part of the project.
Small talk that is phrased as a question ("how are you?") is chat by `SMALL_TALK`.
"""

from __future__ import annotations

import re

from harness.models.conversation import Intent
from harness.text import tokenize

REQUEST_STARTS = frozenset(
    """what what's whats how why where which who whom whose when is are was were does do did can could
    would should will has have show explain list find tell describe give summarize summarise compare
    walk remind open look""".split()
)
"""First words that make a message a request for information."""

REQUEST_PHRASES = re.compile(
    r"\b(show me|tell me|remind me|explain|let's (look|see|go|switch|move|turn)|let us (look|see)|"
    r"i'?d like to (see|know)|i want to (see|know)|look at|go back to|going back to|back to the)\b"
)
"""Requests that may stand anywhere in a message without a question mark."""

_WHOLE = r"(project|book|repo|repository|codebase|code base|app|folder|novel|documents|docs|plans|workspace)"
"""Nouns that name the project as a whole."""

OVERVIEW_CUES = re.compile(
    r"\b(overview|summary|summari[sz]e|high[- ]level|big picture|at a glance|table of contents|"
    r"tech(nology)? stack|technologies|walk me through|"
    rf"(structure|layout|organi[sz]ation) of (this|the) {_WHOLE}|{_WHOLE} (structure|layout)|"
    rf"how is (this|the) {_WHOLE} (structured|organi[sz]ed|laid out)|"
    rf"what is (this|the) {_WHOLE}|what'?s (this|the) {_WHOLE} about|"
    rf"what (does|do) (this|the) {_WHOLE} (do|contain|cover|hold)|"
    r"how many (files|folders|chapters|documents|docs|modules|stories)|"
    r"main (parts|components|chapters|sections|documents|modules|areas))\b"
)
"""Phrases that ask about the project as a whole."""

SMALL_TALK = re.compile(r"^(how are you|how's it going|what's up|are you there)\b")


def classify(message: str) -> Intent:
    """The message's intent by the module's rules."""
    text = " ".join(message.lower().split())
    words = tokenize(text.replace("'", ""))
    first = text.split(" ", 1)[0].strip(",.!?;:") if text else ""
    asks = "?" in text or first in REQUEST_STARTS or (bool(words) and words[0] in REQUEST_STARTS)
    if not asks and not REQUEST_PHRASES.search(text):
        return Intent.CHAT
    if SMALL_TALK.search(text):
        return Intent.CHAT
    if OVERVIEW_CUES.search(text):
        return Intent.OVERVIEW
    return Intent.SPECIFIC
