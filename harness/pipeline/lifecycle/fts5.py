"""SQLite FTS5's bm25 over whole rows, for prefix queries: the lexical ranking Mnemonic's store
gives (`ORDER BY rank` on a MATCH of `word* OR word* ...`), computed from the texts the pipeline
holds, so it is the same on every engine.

Per FTS5 (fts5_aux.c): a row is every token of its columns (no stop words dropped); a phrase
`word*` hits a token that begins with `word`, its frequency in a row is its hits over all
columns (weight 1 each); score = sum over phrases of idf x f (k1 + 1) / (f + k1 (1 - b + b len /
avglen)), idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, over all N rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6


def prefix_bm25(rows: Mapping[str, Sequence[str]], prefixes: Sequence[str]) -> dict[str, float]:
    """Score of each row that some prefix hits (`rows`: id -> the row's tokens, all rows of the
    index, since FTS5's statistics count every row)."""
    if not rows:
        return {}
    average = sum(len(tokens) for tokens in rows.values()) / len(rows) or 1.0
    scores: dict[str, float] = {}
    for prefix in dict.fromkeys(prefixes):
        hits = {i: n for i, tokens in rows.items() if (n := sum(1 for t in tokens if t.startswith(prefix)))}
        idf = max(IDF_FLOOR, math.log((len(rows) - len(hits) + 0.5) / (len(hits) + 0.5)))
        for row, frequency in hits.items():
            norm = K1 * (1 - B + B * len(rows[row]) / average)
            scores[row] = scores.get(row, 0.0) + idf * frequency * (K1 + 1) / (frequency + norm)
    return scores
