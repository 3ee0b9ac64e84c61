"""The encoder benchmark's parts: the fixed turn sample, and speed rows measured against the float model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from harness.benchmarks.datasets import BenchRow
from harness.benchmarks.encoders import QUALITY, measure_speed, quality_lines, sample_turns, speed_lines
from harness.embeddings import DEFAULT_MODEL, Embedder

from .builders import BagOfWordsEncoder, longmemeval_record


def test_sample_is_the_first_distinct_turns_as_embedded(tmp_path: Path) -> None:
    sessions = {"a": [("user", "one", False), ("assistant", "two", False)], "b": [("user", "one", True)]}
    later = {"c": [("user", "three", True), ("assistant", "four", False)]}
    path = tmp_path / "lme.json"
    path.write_text(
        json.dumps([longmemeval_record("q1", "?", sessions, ["b"]), longmemeval_record("q2", "?", later, ["c"])])
    )

    assert sample_turns(path, 3) == ["user: one", "assistant: two", "user: three"]
    assert sample_turns(path, 10) == ["user: one", "assistant: two", "user: three", "assistant: four"]


class HalfWrong(BagOfWordsEncoder):
    """Agrees with the bag of words on the first half of the dimensions only."""

    def encode(self, texts: Any, batch_size: int = 64) -> np.ndarray:
        matrix = super().encode(texts, batch_size)
        matrix[:, self.dimensions // 2 :] = 0
        return matrix


def test_speed_rows_start_with_float_and_compare_vectors_to_it() -> None:
    encoders = {DEFAULT_MODEL: BagOfWordsEncoder(), "same": BagOfWordsEncoder(), "half": HalfWrong()}

    def factory(model: str, **kwargs: Any) -> Embedder:
        return Embedder(model, loader=lambda name, _device: encoders[name], device="cpu", **kwargs)

    texts = [f"turn {i} about topic {i % 7} and word{i}" for i in range(40)]
    speeds = measure_speed([DEFAULT_MODEL, "same", "half"], texts, factory)

    assert [s.model for s in speeds] == [DEFAULT_MODEL, "same", "half"]
    assert all(s.texts == 40 and s.texts_per_s > 0 and s.device == "cpu" for s in speeds)
    assert abs(speeds[1].cosine_mean - 1) < 1e-6
    assert abs(speeds[1].cosine_min - 1) < 1e-6
    assert speeds[2].cosine_mean < 0.99
    lines = speed_lines(speeds)
    assert len(lines) == 2 + 3
    assert lines[2].startswith(f"| {DEFAULT_MODEL} | cpu |")
    assert "| 1.00 |" in lines[2]


class Smaller(BagOfWordsEncoder):
    """A model of another vector size: its vectors cannot be compared with the float model's."""

    dimensions = 32


def test_an_encoder_of_another_size_has_no_cosine_and_says_so() -> None:
    encoders = {DEFAULT_MODEL: BagOfWordsEncoder(), "small": Smaller()}

    def factory(model: str, **kwargs: Any) -> Embedder:
        return Embedder(model, loader=lambda name, _device: encoders[name], device="cpu", **kwargs)

    speeds = measure_speed([DEFAULT_MODEL, "small"], ["a turn", "another turn"], factory)

    assert speeds[1].cosine_mean is None
    assert speeds[1].cosine_min is None
    assert speed_lines(speeds)[3].endswith("| — (other size) |")


def test_quality_rows_leave_the_difference_blank_where_the_float_model_has_no_score() -> None:
    """A cell the float model could not score (no gradable question) has no difference to show."""

    def row(r10: float | None) -> BenchRow:
        metrics = dict.fromkeys(QUALITY, r10)
        return BenchRow(
            "locomo", "embedded", "vector", "turn", "turn", 0, 0, 1, 2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, metrics
        )

    lines = quality_lines({DEFAULT_MODEL: [row(None)], "small": [row(0.5)]})

    assert lines[2].endswith("| — | — | — |  |")
    assert lines[3] == "| small | locomo | vector | turn | 0 | 0.500 | 0.500 | 0.500 |  |"
