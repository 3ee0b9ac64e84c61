"""Builders for small dataset files, the shared public files when present, and a fake sentence model."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.backends.base import Backend
from harness.backends.embedded import EmbeddedBackend
from harness.embeddings import Embedder
from harness.evaluation.kind import KindOptions
from harness.evaluation.kinds import kinds_for
from harness.evaluation.kinds.haystack.spec import HaystackOptions
from harness.evaluation.runner import Finished, RunRequest, run_and_report
from harness.models.haystack import Granularity
from harness.pipeline.settings import Mode
from harness.shards import Shard
from harness.suites.datasets import DATA_DIR_ENV
from harness.suites.sampling import SampleMethod

SHARED = Path(__file__).resolve().parents[3] / "shared" / "datasets"


def shared_file(name: str) -> Path:
    """A public dataset file from `$HARNESS_DATA_DIR` (the GitHub workflow fetches some there) or
    ../shared/datasets, or a skip saying why (a user's clone has neither)."""
    folders = [Path(d) for d in [os.environ.get(DATA_DIR_ENV)] if d] + [SHARED]
    for folder in folders:
        if (folder / name).is_file():
            return folder / name
    pytest.skip(f"{name} is in none of {', '.join(map(str, folders))}: the public datasets are not in the repository")


def run_dataset(
    *,
    out_dir: Path,
    embedder_factory: Callable[[], Embedder],
    dataset: str = "longmemeval-s",
    file: Path | None = None,
    backend: Backend | None = None,
    modes: Sequence[str] = ("bm25",),
    granularity: str = "session",
    limit: int | None = None,
    sample: str = "head",
    seed: int = 0,
    error_threshold: float = 0.0,
    shard: Shard | None = None,
    trec: bool = False,
) -> tuple[int, Finished]:
    """A dataset run as `harness run --dataset` makes it, on one backend (default: embedded): the
    haystack kind from its options, the one runner, the reports (with the origin `harness merge`
    builds the kind again from); its exit code and what it wrote."""
    parsed = tuple(Mode(m) for m in modes)
    embedder = embedder_factory() if any(m.needs_vectors for m in parsed) else None
    own = HaystackOptions(dataset, file, Granularity(granularity), SampleMethod(sample), seed)
    common = KindOptions(parsed, limit, None, embedder.model if embedder else None, shard, error_threshold)
    (planned,) = kinds_for([], common, {"haystack": own})
    request = RunRequest(parsed, out_dir, error_threshold, trec, shard)
    finished = run_and_report(
        planned.kind, backend or EmbeddedBackend(), embedder, request, origin=planned.origin(common)
    )
    if finished.outcome.stopped is not None:
        raise finished.outcome.stopped
    return finished.verdict(error_threshold).exit_code, finished


def run_dataset_report(
    out: Path, factory: Callable[[], Embedder], shard: Shard | None = None, **settings: Any
) -> dict[str, Any]:
    """Run every question of `settings['file']` on the embedded backend into `out`; the JSON report it wrote."""
    code, finished = run_dataset(out_dir=out, embedder_factory=factory, shard=shard, **settings)
    assert code == 0
    return json.loads(finished.paths[0].read_text())


class BagOfWordsEncoder:
    """Deterministic stand-in for a sentence model: hashed word counts, so shared words mean similar."""

    name = "bag-of-words"
    dimensions = 64

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:  # noqa: ARG002 - the TextEncoder signature; a fake has no batches
        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                matrix[row, int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.dimensions] += 1
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1, norms)


def longmemeval_record(
    question_id: str,
    question: str,
    sessions: dict[str, list[tuple[str, str, bool]]],
    answers: Sequence[str],
    question_type: str = "single-session-user",
) -> dict[str, Any]:
    """A LongMemEval record from `{session id: [(role, content, has_answer)]}`."""
    return {
        "question_id": question_id,
        "question_type": question_type,
        "question": question,
        "answer": "an answer",
        "question_date": "2023/05/30 (Tue) 23:40",
        "haystack_session_ids": list(sessions),
        "haystack_dates": [f"2023/05/{20 + i} (Sat) 10:00" for i in range(len(sessions))],
        "haystack_sessions": [
            [{"role": r, "content": c, **({"has_answer": True} if a else {})} for r, c, a in turns]
            for turns in sessions.values()
        ],
        "answer_session_ids": list(answers),
    }


FILLER = [
    ("user", "Can you suggest a recipe for banana bread with walnuts?", False),
    ("assistant", "Mash three ripe bananas, mix flour, sugar, eggs and walnuts, bake for an hour.", False),
]


def longmemeval_records() -> list[dict[str, Any]]:
    """Three questions: one plain, one abstention, one whose haystack repeats a session."""
    records = [
        longmemeval_record(
            "q1",
            "What degree did I graduate with?",
            {
                "filler_1": FILLER,
                "answer_1": [
                    ("user", "I graduated with a degree in Business Administration last year.", True),
                    ("assistant", "Congratulations on your business degree!", False),
                ],
                "filler_2": [("user", "How do I fix a flat bicycle tyre?", False)],
            },
            ["answer_1"],
        ),
        longmemeval_record(
            "q2_abs",
            "What is the name of my cat?",
            {"filler_1": FILLER, "answer_2": [("user", "My dog is called Rex.", False)]},
            ["answer_2"],
            question_type="knowledge-update",
        ),
        longmemeval_record(
            "q3",
            "How long is my daily commute to work?",
            {
                "filler_1": FILLER,
                "answer_3": [("user", "My daily commute to work takes 45 minutes each way.", True)],
                "repeated": FILLER,
            },
            ["answer_3"],
            question_type="multi-session",
        ),
    ]
    records[2]["haystack_session_ids"][2] = "filler_1"  # the released S file repeats sessions like this
    return records


def locomo_conversation() -> dict[str, Any]:
    """One LoCoMo conversation with an image turn and every kind of evidence defect."""
    return {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to a LGBTQ support group yesterday."},
                {"speaker": "Melanie", "dia_id": "D1:2", "text": "That sounds powerful! I painted a sunrise."},
                {
                    "speaker": "Melanie",
                    "dia_id": "D1:3",
                    "text": "Look at this.",
                    "img_url": ["https://example.invalid/x.jpg"],
                    "blip_caption": "a photo of a lake at sunrise with a canoe",
                },
            ],
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": [
                {"speaker": "Caroline", "dia_id": "D2:1", "text": "I adopted a puppy named Biscuit."},
                {"speaker": "Melanie", "dia_id": "D2:2", "text": "My kids love camping in the mountains."},
            ],
        },
        "qa": [
            {
                "question": "When did Caroline go to the support group?",
                "answer": "7 May 2023",
                "evidence": ["D1:1"],
                "category": 2,
            },
            {"question": "What did Melanie paint?", "answer": "a sunrise", "evidence": ["D1:2; D1:3"], "category": 4},
            {"question": "What is in Melanie's photo?", "answer": "a canoe", "evidence": ["D1:03"], "category": 1},
            {
                "question": "What is Caroline's puppy called?",
                "answer": "Biscuit",
                "evidence": ["D", "D2:1"],
                "category": 4,
            },
            {
                "question": "Where does Melanie camp?",
                "answer": "mountains",
                "evidence": ["D:2:2", "D9:9"],
                "category": 3,
            },
            {"question": "What did Caroline paint?", "adversarial_answer": "a sunrise", "evidence": [], "category": 5},
        ],
    }
