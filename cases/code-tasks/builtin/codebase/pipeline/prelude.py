"""The persona prelude: who the user is, in prose, before any retrieved memory."""

from __future__ import annotations

from collections.abc import Iterable

from harness.models import UNIVERSAL_SCOPE, Memory, MemoryType


def persona_prelude(memories: Iterable[Memory]) -> str | None:
    """Universal preferences first, then by confidence and id; None when there are none."""
    prefs = [m for m in memories if m.type is MemoryType.PREFERENCE]
    if not prefs:
        return None
    prefs.sort(key=lambda m: (UNIVERSAL_SCOPE not in m.scopes, -m.confidence, m.id))
    sentences = []
    for memory in prefs:
        text = (memory.content or memory.name.replace("_", " ")).strip()
        sentences.append(text if text.endswith((".", "!", "?")) else f"{text}.")
    return "User preferences: " + " ".join(sentences)
