"""Analysing the next haystacks in a second process while this one is indexed and asked.

On LongMemEval-S, analysing every turn (the harness analyzer) takes as long as FTS5 indexing
them, and both hold a core: threads would share one GIL, so a worker process analyses the
haystacks ahead while the caller indexes, asks and reads the file. Spawned, not forked: the
caller may hold threads (progress, encoders) whose locks a fork would copy.
"""

from __future__ import annotations

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
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        waiting: deque[tuple[Haystack, Future[list[str]]]] = deque()
        try:
            for haystack in haystacks:
                waiting.append((haystack, pool.submit(content_texts, [turn_text(d) for d in haystack.documents])))
                if len(waiting) > ahead:
                    done, analysed = waiting.popleft()
                    yield done, analysed.result()
            while waiting:
                done, analysed = waiting.popleft()
                yield done, analysed.result()
        finally:
            for _, analysed in waiting:
                analysed.cancel()
