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
