"""Committed baselines: one JSON file per suite x backend x mode, written only by a freeze.

Layout under the root (default `cases/baselines/`): `<suite slug>/<backend>-<mode>.json`, nothing
else (the history of freezes and checks lies beside each run's reports: `history.py`). A file holds the score sheet (overall,
per category, per case), the harness version and the settings that produced it. Reading one
validates it, so a hand-edited or truncated file is a one-line error naming it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, FiniteFloat, ValidationError

from harness import __version__
from harness.baselines.key import BaselineKey
from harness.errors import HarnessError
from harness.files import NotReadable, atomic_write, read_bounded
from harness.models.scoresheet import CaseScore, ScoreSheet, sheet_json
from harness.suites.resolve import cases_dir
from harness.systems.protocol import REFERENCE

FORMAT = 1
MAX_BASELINE_BYTES = 64 * 2**20
"""Largest baseline file read: a score sheet of every case of the largest suite is far below it."""


def default_root() -> Path:
    """Where committed baselines live: `cases/baselines/` of the checkout (HARNESS_CASES_DIR moves it)."""
    return cases_dir() / "baselines"


class MissingBaseline(HarnessError):
    """A check asked for a baseline nobody froze: a mistake to report, never a silent pass."""


class BadBaseline(HarnessError):
    """A baseline file that does not parse, validate, or belong where it lies."""


def plain(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Settings as JSON holds them (tuples as lists, mappings as dicts, paths as text), so stored
    and live ones compare equal."""
    return json.loads(json.dumps(dict(settings), default=_jsonable))


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, set | frozenset):
        return sorted(value)
    return str(value)


@dataclass(frozen=True, slots=True)
class Baseline:
    key: BaselineKey
    scores: ScoreSheet
    settings: Mapping[str, Any]
    harness_version: str
    frozen_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "suite": self.key.suite,
            "backend": self.key.backend,
            "mode": self.key.mode,
            **({} if self.key.system == REFERENCE else {"system": self.key.system}),
            "harness_version": self.harness_version,
            "frozen_at": self.frozen_at,
            "settings": plain(self.settings),
            **sheet_json(self.scores),
        }


class _CaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    passed: bool | None = None
    score: FiniteFloat | None = None


class _BaselineFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal[1]
    suite: str
    backend: str
    mode: str
    system: str = REFERENCE
    harness_version: str
    frozen_at: str
    settings: dict[str, Any]
    overall: dict[str, FiniteFloat]
    categories: dict[str, dict[str, FiniteFloat]]
    cases: dict[str, _CaseFile]


def _parse(path: Path) -> Baseline:
    try:
        data = _BaselineFile.model_validate_json(read_bounded(path, MAX_BASELINE_BYTES))
    except NotReadable as exc:
        raise BadBaseline(f"baseline {path}: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "file"
        raise BadBaseline(f"baseline {path}: {where}: {first['msg']}") from None
    return Baseline(
        BaselineKey(data.suite, data.backend, data.mode, data.system),
        ScoreSheet(
            data.overall,
            data.categories,
            {case: CaseScore(s.passed, s.score) for case, s in data.cases.items()},
        ),
        data.settings,
        data.harness_version,
        data.frozen_at,
    )


@dataclass(frozen=True, slots=True)
class Frozen:
    """What a freeze did: `previous` is the baseline it replaced (None: a new one); `written` is
    False when the previous one already held these scores, settings and version."""

    baseline: Baseline
    path: Path
    previous: Baseline | None
    written: bool


class BaselineStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else default_root()

    def path(self, key: BaselineKey) -> Path:
        return self.root / key.folder / key.file_name

    def find(self, key: BaselineKey) -> Baseline | None:
        """The stored baseline of `key`, None when there is none."""
        path = self.path(key)
        if not path.exists():
            return None
        baseline = _parse(path)
        if baseline.key != key:
            raise BadBaseline(f"baseline {path}: holds {baseline.key}, not {key}")
        return baseline

    def load(self, key: BaselineKey) -> Baseline:
        baseline = self.find(key)
        if baseline is None:
            raise MissingBaseline(f"no baseline for {key} (expected {self.path(key)}): freeze one first")
        return baseline

    def all(self) -> Iterator[tuple[Path, Baseline]]:
        """Every stored baseline, by path."""
        for path in sorted(self.root.glob("*/*.json")):
            yield path, _parse(path)

    def freeze(self, key: BaselineKey, scores: ScoreSheet, settings: Mapping[str, Any]) -> Frozen:
        """Write `scores` as the baseline of `key`, replacing any previous one: only an explicit
        freeze calls this. The file is replaced atomically, never left half-written."""
        previous = self.find(key)
        baseline = Baseline(key, scores, plain(settings), __version__, datetime.now(UTC).isoformat(timespec="seconds"))
        path = self.path(key)
        if previous is not None and _same(previous, baseline):
            return Frozen(previous, path, previous, written=False)
        if path.parent.exists() and not path.parent.is_dir():
            raise BadBaseline(f"baseline {path}: its folder {path.parent} is a file")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, json.dumps(baseline.to_json(), indent=2, sort_keys=True, allow_nan=False) + "\n")
        except OSError as exc:
            raise BadBaseline(f"baseline {path}: cannot write: {exc.strerror}") from None
        return Frozen(baseline, path, previous, written=True)


def _same(first: Baseline, second: Baseline) -> bool:
    """Equal as stored: the same scores, settings and version (the freeze time aside)."""
    return {**first.to_json(), "frozen_at": None} == {**second.to_json(), "frozen_at": None}
