"""The report envelope's schema: what a JSON document must hold, and of which types, before any
command reads it as a run report (`reader.py`). Strict: a count given as `"3"`, a flag as `0`, a
score as `NaN` do not fit, since the commands then compute with them. Fields a report may carry
beyond these (a kind's body, a backend's details) are allowed and left to their readers.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

Finite = Annotated[float, Field(allow_inf_nan=False)]


class _Open(BaseModel):
    """A strict record that may hold more fields than those named."""

    model_config = ConfigDict(strict=True, extra="allow")


class ShardPart(_Open):
    index: int = Field(ge=1)
    count: int = Field(ge=1)

    @model_validator(mode="after")
    def _within(self) -> ShardPart:
        if self.index > self.count:
            raise ValueError(f"shard {self.index} of {self.count}")
        return self


class BackendPart(_Open):
    backend: str


class SystemPart(_Open):
    name: str


class InputPart(_Open):
    path: str
    sha256: str


class CasePart(_Open):
    passed: bool | None = None
    score: Finite | None = None


class SheetPart(_Open):
    overall: dict[str, Finite | None]
    categories: dict[str, dict[str, Finite | None]] = {}
    cases: dict[str, CasePart]


class ViewRowPart(_Open):
    id: str
    category: str
    title: str
    failed: bool


class ViewPart(_Open):
    items: str
    unit: str
    rule: str
    main: list[str]
    rows: list[ViewRowPart]


class RulesPart(_Open):
    name: str
    source: str
    commit: str | None


class EnvelopePart(_Open):
    """Every envelope field (`fields.FIELDS`); `system`, `not_applicable`, `view`, `concurrency`,
    `throughput` and `rules` are absent from reports written before them (`document.SINCE`)."""

    kind: str
    suite: str | None
    origin: dict[str, Any]
    inputs: list[InputPart]
    backend: BackendPart
    modes: list[str]
    unsupported_modes: dict[str, str]
    settings: dict[str, Any]
    shard: ShardPart | None
    incomplete: bool
    incomplete_reason: str | None
    harness_version: str
    git_commit: str | None
    started_at: str
    wall_s: Finite = Field(ge=0)
    files: dict[str, str]
    scores: dict[str, SheetPart]
    system: SystemPart | None = None
    not_applicable: str | None = None
    view: ViewPart | None = None
    concurrency: int | None = Field(default=None, ge=1)
    throughput: dict[str, Any] | None = None
    rules: RulesPart | None = None
    checksum: str | None = None

    @model_validator(mode="after")
    def _items_listed(self) -> EnvelopePart:
        """The body field the view names holds the items as objects (the page reads each one)."""
        if self.view is not None:
            items = (self.model_extra or {}).get(self.view.items)
            if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
                raise ValueError(f"the view's items, {self.view.items!r}, are not a list of objects")
        return self
