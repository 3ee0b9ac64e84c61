"""What an HTTP memory service's answers must be (docs/system-protocol.md), as schemas.

A service's answer is checked before the harness uses any of it: a declaration that does not fit
is a one-line error before the run (exit 2), a search result that does not fit (a NaN or infinite
score, an id that is not a string, text that is no valid Unicode: a lone surrogate, which JSON's
`\\ud800` escapes can carry and no file or terminal can hold) an error of the case that asked,
naming the service and the field.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AllowInfNan, BaseModel, ConfigDict, Field, Strict, ValidationError

from harness.pipeline.settings import Mode
from harness.systems.protocol import Capability, Found

BATCHES = "harness-memory/1.1"
"""`harness-memory/1` plus `batch_add` (a `POST /add` of many records)."""


def _unicode(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not valid Unicode (a lone surrogate)") from None
    return text


_Text = Annotated[str, Strict(), AfterValidator(_unicode)]
_Score = Annotated[float, Strict(), AllowInfNan(False)]


class Declaration(BaseModel):
    """`GET /capabilities` of a service that declares the extension (an answer with `protocol`)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    protocol: Literal["harness-memory/1", "harness-memory/1.1"]
    """The extension's version: the versions the harness speaks."""
    name: _Text | None = None
    version: _Text = "unknown"
    capabilities: tuple[Capability, ...] = ()
    modes: tuple[Mode, ...] = Field(default=(Mode.HYBRID,), min_length=1)
    batch_add: Annotated[int, Strict(), Field(ge=1)] = 1
    max_concurrency: Annotated[int, Strict(), Field(ge=1)] | None = None
    """The most requests it takes at once (None: as many as `--concurrency` sends)."""

    @property
    def batch(self) -> int:
        """Records per `POST /add`: `batch_add` for a `harness-memory/1.1` service, else one."""
        return self.batch_add if self.protocol == BATCHES else 1


class Hit(BaseModel):
    """One result of `POST /search`."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: _Text
    memory: _Text | None = None
    score: _Score | None = None


class Results(BaseModel):
    """`POST /search`'s answer: its results, best first (only the first `limit` are read)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    results: Annotated[list[Any], Strict()]


def explained(error: ValidationError, prefix: str = "") -> str:
    """A validation error on one line: each field's path, what is wrong, and what was given."""
    parts = []
    for each in error.errors(include_url=False):
        where = ".".join(str(step) for step in (prefix, *each["loc"]) if step != "")
        given = repr(each["input"])
        given = given if len(given) <= 40 else f"{given[:37]}..."
        why = each["msg"].removeprefix("Value error, ")
        parts.append(f"{where or 'the answer'}: {why} (got {given})")
    return "; ".join(parts)


def found(answer: Any, limit: int) -> list[Found]:
    """The first `limit` results of a search answer; ValueError, explained, for one that does not fit."""
    if not isinstance(answer, dict):
        raise ValueError(f"the answer is not an object with a `results` list (got {type(answer).__name__})")
    try:
        results = Results.model_validate(answer).results
    except ValidationError as exc:
        raise ValueError(explained(exc)) from None
    hits: list[Found] = []
    for position, item in enumerate(results[:limit]):
        try:
            hit = Hit.model_validate(item)
        except ValidationError as exc:
            raise ValueError(explained(exc, f"results.{position}")) from None
        hits.append(Found(hit.id, hit.score, hit.memory))
    return hits
