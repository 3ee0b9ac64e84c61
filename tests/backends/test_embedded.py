"""Embedded-only behaviour; the protocol contract is checked for every backend in test_contract.py."""

from __future__ import annotations

import sqlite3
import threading

import numpy as np
import pytest

from harness.backends.base import Eq, Filters, IndexDoc
from harness.backends.embedded import EmbeddedBackend
from tests.backends import contract


def test_drop_removes_the_namespace_and_closing_the_backend_every_one_left() -> None:
    """A namespace is a database of its own: dropped, it is closed (its memory freed); the
    backend's close drops every namespace still open."""
    backend = EmbeddedBackend()
    dropped, left = backend.create_index("t", contract.spec()), backend.create_index("u", contract.spec())
    dropped.load(contract.CORPUS)
    left.load(contract.CORPUS)
    dropped.drop()
    dropped.drop()  # a second drop does nothing
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        dropped.lexical(["store"], Filters(), 10)
    assert left.lexical(["store"], Filters(), 10)
    backend.close()
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        left.lexical(["store"], Filters(), 10)


def test_namespaces_share_nothing_across_threads() -> None:
    """`--concurrency`: namespaces written and searched on threads at once each score as alone
    (their own statistics, their own rows), and threads searching one namespace together get
    what one thread gets."""
    backend = EmbeddedBackend()
    alone = backend.create_index("alone", contract.spec(3))
    alone.load(contract.CORPUS)
    expected = [(h.id, h.score) for h in alone.lexical(["store", "redis"], Filters(), 10)]
    shared = backend.create_index("shared", contract.spec(3))
    shared.load(contract.CORPUS)
    found: list[list[tuple[str, float]]] = []

    def own(number: int) -> None:
        index = backend.create_index(f"own{number}", contract.spec(3))
        for _ in range(20):
            index.load(contract.CORPUS)
            found.append([(h.id, h.score) for h in index.lexical(["store", "redis"], Filters(), 10)])
            found.append([(h.id, h.score) for h in shared.lexical(["store", "redis"], Filters(), 10)])
        index.drop()

    threads = [threading.Thread(target=own, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 160
    assert all(hits == expected for hits in found)


def test_field_text_in_any_spacing_scores_as_its_single_spaced_form() -> None:
    """Analyzer output is stored as given and counted by its spaces; other spacing (tabs, runs,
    ends) must give the same lengths, so the same scores."""
    backend = EmbeddedBackend()
    spaced = [contract.doc(d.id, f"\t {d.fields['name']}  \n", f" {d.fields['aliases']}") for d in contract.CORPUS]
    plain = [contract.doc(d.id, d.fields["name"], d.fields["aliases"]) for d in contract.CORPUS]
    hits = []
    for name, docs in (("sp", spaced), ("pl", plain)):
        index = backend.create_index(name, contract.spec())
        index.load(docs)
        hits.append([(h.id, h.score) for h in index.lexical(["postgres", "store"], contract.Filters(), 10)])
    assert hits[0] == hits[1]
    assert len(hits[0]) == 3


def test_a_batch_writes_as_one_upsert_after_another() -> None:
    """`load` writes a batch in one statement per table: an id already stored, or repeated later in
    the batch, must end as upserting the documents one by one leaves it (the last one wins)."""
    first, second = contract.CORPUS[:3], contract.CORPUS[3:]
    batch = [
        *second,
        contract.doc("b", "postgres store", "pg", tags=("x", "y"), vector=[0, 0, 1]),
        contract.doc("d", "store", "redis", live=False, vector=[1, 0, 1]),
        contract.doc("b", "cache store", "redis", vector=[1, 1, 1]),
    ]
    backend = EmbeddedBackend()
    loaded, upserted = backend.create_index("ld", contract.spec(3)), backend.create_index("up", contract.spec(3))
    loaded.load(first)
    loaded.load(batch)
    upserted.load(first)
    for doc in batch:
        upserted.upsert([doc])
    loaded.wait_ready(5, 1.0)
    for terms in (["store"], ["redis", "pg", "postgres"]):
        for filters in (Filters(), Filters(Eq("live", True))):
            contract.assert_same_hits(loaded.lexical(terms, filters, 10), upserted.lexical(terms, filters, 10), 0.0)
    query = np.ones(3)
    assert loaded.vector(query, Filters(), 5) == upserted.vector(query, Filters(), 5)
    assert loaded.attributes(["b", "d"]) == upserted.attributes(["b", "d"])


def test_a_batch_with_a_bad_document_writes_nothing() -> None:
    index = EmbeddedBackend().create_index("bad", contract.spec(3))
    undeclared = IndexDoc("z", {"name": "store"}, {"colour": "red"}, np.ones(3))
    with pytest.raises(ValueError, match="colour"):
        index.load([*contract.CORPUS, undeclared])
    with pytest.raises(ValueError, match="no vector"):
        index.load([*contract.CORPUS, contract.doc("y", "store", "kv")])
    index.wait_ready(0, 1.0)
    assert index.lexical(["store"], Filters(), 10) == []
