"""Embedded-only behaviour; the protocol contract is checked for every backend in test_contract.py."""

from __future__ import annotations

from harness.backends.embedded import EmbeddedBackend
from tests.backends import contract


def test_drop_removes_every_table() -> None:
    backend = EmbeddedBackend()
    index = backend.create_index("t", contract.spec())
    index.load(contract.CORPUS)
    index.drop()
    assert backend._db.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 't_%'").fetchone() == (0,)
