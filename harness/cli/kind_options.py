"""Each kind's own options as options of `harness run` and `harness embed`.

A kind declares its options once, as a frozen dataclass in its spec (`KindSpec.options`, each
field with `option()` metadata). Typer reads a command's options from its function's signature,
so a command that takes them declares `**own_params` and is wrapped in a `KindOptioned`: its
`sign()` sets the function's `__signature__` to the command's own parameters followed by every
kind's options (keyword-only, each in its kind's help panel; an enum lists its choices), and
`own_options` builds each kind's dataclass back from what the command received. `main` signs
again before parsing, so a kind registered after import (a test's toy kind) gets its options.
This is the one place that rewrites a signature; the refusal of an option for a run without its
kind is `run.check_applicable`'s.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from harness.evaluation import kinds as kind_registry
from harness.evaluation.kind import KindSpec


def spec_options(kind: KindSpec[Any, Any], texts_only: bool = False) -> list[tuple[str, Any, Any, dict[str, Any]]]:
    """(name, type, default, metadata) of each of a kind's own options (`texts_only`: those that
    change which texts its vector modes embed)."""
    if kind.options is None:
        return []
    hints = typing.get_type_hints(kind.options)
    return [
        (f.name, hints[f.name], f.default, dict(f.metadata))
        for f in dataclasses.fields(kind.options)
        if f.metadata.get("texts") or not texts_only
    ]


def own_options(params: dict[str, Any], texts_only: bool = False) -> dict[str, Any]:
    """Each kind's own options dataclass, from the command's parameters (`texts_only`: `harness
    embed`'s, the rest of each dataclass at its defaults)."""
    return {
        kind.name: kind.options(**{name: params[name] for name, *_ in spec_options(kind, texts_only)})
        for kind in kind_registry.SPECS
        if kind.options is not None
    }


@dataclass(frozen=True)
class KindOptioned:
    """A command that takes the kinds' options besides its own (`texts_only`: only those that
    change the embedded texts); `replaced()`: annotations of its own parameters whose help names
    the registered kinds, made when it is signed."""

    command: Callable[..., int]
    base: inspect.Signature
    """The command's own parameters, as its function declares them."""
    texts_only: bool
    replaced: Callable[[], dict[str, Any]] = dict

    @classmethod
    def of(
        cls, command: Callable[..., int], texts_only: bool, replaced: Callable[[], dict[str, Any]] = dict
    ) -> KindOptioned:
        """Wrap a command (its own signature kept aside) and sign it with the kinds registered now."""
        wrapped = cls(command, inspect.signature(command, eval_str=True), texts_only, replaced)
        wrapped.sign()
        return wrapped

    def sign(self) -> None:
        replaced = self.replaced()
        params = [
            p.replace(annotation=replaced[p.name]) if p.name in replaced else p
            for p in self.base.parameters.values()
            if p.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        for kind in kind_registry.SPECS:
            for name, hint, default, meta in spec_options(kind, self.texts_only):
                flags = [meta["flag"]] if meta.get("flag") else []  # else typer's own (`--verbose/--no-verbose`)
                info = typer.Option(*flags, help=meta["help"], rich_help_panel=kind.title, **meta.get("limits", {}))
                annotation = Annotated[hint, info]  # type: ignore[valid-type]
                params.append(
                    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
                )
        self.command.__signature__ = self.base.replace(parameters=params)  # type: ignore[attr-defined]
