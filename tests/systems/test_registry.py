"""The system registry (built-in, entry points, http:URL) and how the reference system binds."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from harness.errors import HarnessError
from harness.pipeline.settings import Mode
from harness.systems import registry
from harness.systems.bound import REFERENCE_BOUND, bind
from harness.systems.protocol import Capability, Opening, SystemInfo, SystemSpec
from harness.systems.reference import SPEC as REFERENCE_SPEC


class _ThirdParty:
    """Just enough of a system for the registry and a bind (its namespace's probe)."""

    def __init__(self, opening: Opening) -> None:  # noqa: ARG002 - what the protocol passes
        self.info = SystemInfo("third", "1", frozenset(), (Mode.BM25,))

    def close(self) -> None:
        pass


THIRD_PARTY = SystemSpec("third", _ThirdParty, "a third party's system")  # type: ignore[arg-type]


def _points(*points: EntryPoint) -> object:
    return lambda group: [p for p in points if p.group == group]


def test_entry_point_systems_resolve_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    point = EntryPoint("third", "tests.systems.test_registry:THIRD_PARTY", registry.GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == registry.GROUP else [])
    assert registry.resolve("third") is THIRD_PARTY
    assert list(registry.installed()) == [*(s.name for s in registry.BUILTIN), "third"]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("tests.systems.test_registry:REFERENCE_SPEC", "declares the system 'reference'"),
        ("tests.systems.test_registry:_points", "not a SystemSpec"),
        ("tests.systems.no_such_module:SPEC", "cannot load"),
    ],
)
def test_a_broken_entry_point_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch, value: str, error: str) -> None:
    point = EntryPoint("third", value, registry.GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == registry.GROUP else [])
    with pytest.raises(HarnessError, match=error):
        registry.resolve("third")


def test_an_entry_point_cannot_shadow_a_builtin_system(monkeypatch: pytest.MonkeyPatch) -> None:
    point = EntryPoint("reference", "tests.systems.test_registry:THIRD_PARTY", registry.GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == registry.GROUP else [])
    with pytest.raises(HarnessError, match="shadows a built-in system"):
        registry.installed()


def test_the_reference_system_is_bound_like_any_other_and_answered_by_the_kinds_adapters() -> None:
    bound = bind(REFERENCE_SPEC, lambda ns: pytest.fail(f"the reference system opened {ns} through the protocol"))
    assert bound is REFERENCE_BOUND
    assert bound.reference
    assert bound.info.capabilities == frozenset(Capability)
    with pytest.raises(TypeError, match="reference adapters"):
        bound.open("hsystemtest02")
    assert not bind(THIRD_PARTY, lambda ns: Opening(None, "embedded", None, ns)).reference  # type: ignore[arg-type]
