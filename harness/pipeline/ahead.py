"""Analysing the next haystacks in a second process while this one is indexed and asked.

On LongMemEval-S, analysing every turn (the harness analyzer) takes as long as FTS5 indexing
them, and both hold a core: threads would share one GIL, so a worker process analyses the
haystacks ahead while the caller indexes, asks and reads the file. Spawned, not forked: the
caller may hold threads (progress, encoders) whose locks a fork would copy.

A spawned worker is a fresh interpreter that imports the caller's main module (the `harness`
command imports the whole CLI): a second or more before its first result. Until it has given one,
the caller analyses each haystack itself rather than wait, and the worker is spared what it has
not yet begun; once it is running, the caller waits for it. So a run of no more haystacks than
are analysed ahead starts no worker: the caller would analyse them all before it gave a result.
"""

from __future__ import annotations

import itertools
import multiprocessing
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor

from harness.models.haystack import Haystack
from harness.pipeline.haystack import turn_text
from harness.text import content_texts

AHEAD = 2
"""Haystacks analysed before they are asked for (each waits in memory with its terms)."""


def analysed_ahead(haystacks: Iterator[Haystack], ahead: int = AHEAD) -> Iterator[tuple[Haystack, list[str]]]:
    """Each haystack in order with its turns' analysed text (what `HaystackIndex` indexes)."""
    first = list(itertools.islice(haystacks, ahead + 1))
    if len(first) <= ahead:
        yield from ((haystack, _analysed(haystack)) for haystack in first)
        return
    haystacks = itertools.chain(first, haystacks)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        waiting: deque[tuple[Haystack, Future[list[str]]]] = deque()
        running = False
        """Whether the worker has given a result yet."""

        def oldest() -> tuple[Haystack, list[str]]:
            nonlocal running
            haystack, analysed = waiting.popleft()
            running = running or analysed.done()
            if running:
                return haystack, analysed.result()
            analysed.cancel()  # not begun: the worker need not do it
            return haystack, _analysed(haystack)

        try:
            for haystack in haystacks:
                waiting.append((haystack, pool.submit(content_texts, _texts(haystack))))
                if len(waiting) > ahead:
                    yield oldest()
            while waiting:
                yield oldest()
        finally:
            for _, analysed in waiting:
                analysed.cancel()


def _analysed(haystack: Haystack) -> list[str]:
    """What the worker computes, computed by the caller."""
    return content_texts(_texts(haystack))


def _texts(haystack: Haystack) -> list[str]:
    return [turn_text(d) for d in haystack.documents]
