"""Adding a backend is declaring it: a toy in-memory engine, registered from its descriptor alone
(in the registry's list, for this module only), is a backend like the others: the registry, the
sessions, the CLI and the whole protocol contract take it with nothing else changed."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from harness.backends import registry
from harness.backends.base import BackendInfo, Clause, Filters, Hit, IndexDoc, IndexSpec, Value, ranked, unit
from harness.backends.descriptor import BackendDescriptor, ConnectOptions, ContractNotes
from harness.backends.provision import backend_session
from harness.errors import BackendUnavailable, HarnessError
from tests.backends.contract import BackendContract, contract_engine

K1, B = 1.2, 0.75


class ToyIndex:
    """Documents in a dict, every query a scan: BM25 per base.py, written out over the dict."""

    def __init__(self, spec: IndexSpec):
        self._spec = spec
        self._weights = dict(spec.fields)
        self._docs: dict[str, IndexDoc] = {}

    def load(self, docs: Sequence[IndexDoc]) -> None:
        self.upsert(docs)

    def upsert(self, docs: Sequence[IndexDoc]) -> None:
        for doc in docs:
            self._spec.check_doc(doc)
            self._docs[doc.id] = doc

    def wait_ready(self, expected: int, timeout: float) -> None:  # noqa: ARG002 - the protocol's signature; a dict has nothing to wait for
        if len(self._docs) < expected:
            raise BackendUnavailable(f"toy: {len(self._docs)} of {expected} documents")

    def attributes(self, ids: Sequence[str]) -> dict[str, Mapping[str, Value]]:
        return {i: self._docs[i].attributes for i in ids if i in self._docs}

    def lexical(self, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
        self._spec.check_filters(filters)
        tokens = {d.id: {f: d.fields.get(f, "").split() for f in self._weights} for d in self._docs.values()}
        hits = []
        for doc in self._docs.values():
            if not filters.admits(doc):
                continue
            clauses = []
            for field, weight in self._weights.items():
                having = [t[field] for t in tokens.values() if t[field]]
                length = len(tokens[doc.id][field])
                for term in dict.fromkeys(terms):
                    tf = tokens[doc.id][field].count(term)
                    if not tf:
                        continue
                    n = sum(term in words for words in having)
                    idf = math.log(1 + (len(having) - n + 0.5) / (n + 0.5))
                    norm = 1 - B + B * length * len(having) / sum(map(len, having))
                    clauses.append(Clause(field, term, weight * idf * tf * (K1 + 1) / (tf + K1 * norm)))
            if clauses:
                hits.append(Hit(doc.id, math.fsum(c.score for c in clauses), tuple(clauses)))
        return ranked(hits, limit)

    def vector(self, query: np.ndarray, filters: Filters, limit: int) -> list[Hit]:
        self._spec.check_filters(filters)
        q = unit(query)
        hits = []
        for doc in self._docs.values():
            if doc.vector is not None and filters.admits(doc):
                cosine = float(unit(doc.vector) @ q)
                hits.append(Hit(doc.id, cosine, (Clause("vector", "cosine", cosine),)))
        return ranked(hits, limit)

    def drop(self) -> None:
        self._docs.clear()


class ToyBackend:
    name = "toy"

    def info(self) -> BackendInfo:
        return BackendInfo("toy", "python dict scan", "toy 1", "bm25 per field in python", "python exact cosine")

    def create_index(self, namespace: str, spec: IndexSpec) -> ToyIndex:  # noqa: ARG002 - one process, one index: no namespace needed
        return ToyIndex(spec)

    def close(self) -> None:
        pass


def _open_toy(_url: str | None, _options: ConnectOptions) -> ToyBackend:
    return ToyBackend()


TOY = BackendDescriptor("toy", _open_toy, contract=ContractNotes(examples=50))


@pytest.fixture(scope="module", autouse=True)
def registered() -> Iterator[None]:
    """The toy in the registry's one list while this module runs."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(registry, "DESCRIPTORS", (*registry.DESCRIPTORS, TOY))
        yield


@pytest.fixture(scope="module")
def notes() -> ContractNotes:
    return registry.descriptor("toy").contract


@pytest.fixture(scope="module")
def engine(server_url) -> Iterator[ToyBackend]:
    backend = contract_engine("toy", server_url)
    assert isinstance(backend, ToyBackend)
    yield backend
    backend.close()


class TestToyContract(BackendContract):
    """The whole contract, on the toy."""


def test_the_registry_derives_the_toy() -> None:
    assert registry.names()[-1] == "toy"
    assert registry.check_backend("toy") == "toy"
    assert "toy" in registry.default_run()
    assert "toy" not in registry.servers()
    with pytest.raises(HarnessError, match="'toy' runs in process: it has no container"):
        registry.container_spec("toy")
    with backend_session("toy") as session:
        assert isinstance(session, ToyBackend)


def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    from harness.cli import main

    monkeypatch.setattr(sys, "argv", ["harness", *args])
    with pytest.raises(SystemExit) as exited:
        main()
    return int(exited.value.code or 0), capsys.readouterr().out


def test_the_cli_lists_the_toy(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_cli(monkeypatch, capsys, "backends", "--json")
    assert code == 0
    assert json.loads(out) == [*(d.name for d in registry.DESCRIPTORS)]
    assert json.loads(out)[-1] == "toy"


def test_a_run_on_the_toy_scores_as_embedded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """One BM25 everywhere: the built-in suite's bm25 run gives the toy embedded's numbers."""
    summaries = {}
    for name in ("toy", "embedded"):
        code, _ = run_cli(monkeypatch, capsys, "run", "-b", name, "-m", "bm25", "--out", str(tmp_path))
        assert code == 0
        (summary,) = json.loads((tmp_path / f"run-{name}-latest.json").read_text(encoding="utf-8"))["summary"]
        summaries[name] = {k: v for k, v in summary.items() if k != "backend" and not k.endswith("_ms")}
    assert summaries["toy"]["static_total"] > 0
    assert summaries["toy"] == summaries["embedded"]
