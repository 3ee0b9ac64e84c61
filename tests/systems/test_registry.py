"""The system registry (built-in, entry points, http:URL) and the reference system's protocol adapter."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from importlib.metadata import EntryPoint

import pytest

from harness.backends.registry import connect
from harness.errors import HarnessError
from harness.pipeline.settings import Mode
from harness.systems import registry
from harness.systems.bound import bind
from harness.systems.protocol import Capability, Opening, Query, Record, SystemSpec, Unsupported
from harness.systems.reference import SPEC as REFERENCE_SPEC

THIRD_PARTY = SystemSpec("third", REFERENCE_SPEC.open, "a third party's system")


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


@pytest.fixture
def embedded() -> Iterator[Opening]:
    backend = connect("embedded")
    try:
        yield Opening(backend, "embedded", None, "hsystemtest01")
    finally:
        backend.close()


def test_reference_adapter_keeps_users_and_scopes_apart_and_replaces(embedded: Opening) -> None:
    system = bind(REFERENCE_SPEC, lambda ns: Opening(embedded.backend, "embedded", None, ns)).open("hsystemtest02")
    try:
        assert system.info.modes == (Mode.BM25,)  # no encoder given: lexical only
        system.add(
            [
                Record("a", "postgres orders database", "alice", ("domain:work",)),
                Record("b", "postgres hobby project", "alice", ("domain:home",)),
                Record("c", "postgres orders database", "bob", ("domain:work",)),
            ]
        )
        found = system.search(Query("postgres orders", "alice", ("domain:work",)), Mode.BM25)
        assert [f.id for f in found] == ["a"]
        system.add([Record("a", "redis cache", "alice", ("domain:work",))])  # replace
        assert system.search(Query("postgres orders", "alice", ("domain:work",)), Mode.BM25) == []
        with pytest.raises(Unsupported, match="does not declare 'clock'"):
            system.advance(datetime(2026, 1, 1, tzinfo=UTC))
        assert Capability.REPLACE in system.info.capabilities
    finally:
        system.close()
