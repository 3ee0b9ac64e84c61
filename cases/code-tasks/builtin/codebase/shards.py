"""Deterministic splits of a run into N shards: an item belongs to shard 1 + sha256(id) mod N.

Hashing the id (a LongMemEval question id, a LoCoMo `<conversation>:<n>` id, a case id) rather
than a position keeps an item in the same shard whatever else the file holds or the sampling
picked, on any machine and Python version (no `hash()` salt).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from harness.errors import HarnessError

METHOD = "shard = 1 + (first 8 bytes of sha256(utf-8 id), big-endian) mod N"

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


_Item = TypeVar("_Item", bound=_HasId)


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, item_id: str) -> bool:
        return shard_of(item_id, self.count) == self.index

    def keep(self, items: Iterable[_Item]) -> tuple[_Item, ...]:
        """The items this shard owns (by their `id`), in their order."""
        return tuple(item for item in items if self.owns(item.id))


def shard_of(item_id: str, count: int) -> int:
    digest = hashlib.sha256(item_id.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


def parse_shard(text: str) -> Shard:
    """`I/N` with 1 <= I <= N, else a one-line error."""
    match = _SPEC.match(text)
    if match is None:
        raise HarnessError(f"--shard takes I/N (e.g. 2/4), got {text!r}")
    index, count = int(match[1]), int(match[2])
    if count < 1 or not 1 <= index <= count:
        raise HarnessError(f"--shard {text}: I must be between 1 and N, and N at least 1")
    return Shard(index, count)
