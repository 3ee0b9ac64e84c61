"""Embedded-only behaviour; the protocol contract is checked for every backend in test_contract.py."""

from __future__ import annotations

import numpy as np
import pytest

from harness.backends.base import Eq, Filters, IndexDoc
from harness.backends.embedded import EmbeddedBackend
from tests.backends import contract


def test_drop_removes_every_table() -> None:
    backend = EmbeddedBackend()
    index = backend.create_index("t", contract.spec())
    index.load(contract.CORPUS)
    index.drop()
    assert backend._db.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 't_%'").fetchone() == (0,)


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
