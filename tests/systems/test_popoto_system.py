"""Popoto through the system protocol on each engine it runs on (Redis, Valkey): ingest, ids
round-tripped, users kept apart, budgets, and reset/close removing only its own namespace."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from harness.backends import registry as backends
from harness.pipeline.settings import Mode
from harness.systems import popoto as popoto_system
from harness.systems import registry
from harness.systems.protocol import Capability, Query, Record, Unsupported
from tests.reports.pages import harness
from tests.systems.helpers_adapters import TEXTS, Ledger, killed_run, opening, require_extra

require_extra("popoto", "popoto")

ENGINES = [pytest.param(n, marks=getattr(pytest.mark, n)) for n in ("redis", "valkey")]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest, server_url, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator:
    """(name, url, backend) of a server backend; Popoto's vector files under tmp_path."""
    monkeypatch.setenv("POPOTO_CONTENT_PATH", str(tmp_path / "popoto"))
    name = request.param
    url = server_url(name)
    backend = backends.connect(name, url)
    yield name, url, backend
    backend.close()


def _client(url: str):
    import redis

    return redis.Redis.from_url(url)


def _opened(engine, ledger: Ledger, *, vectors: bool = True):
    name, url, backend = engine
    return popoto_system.open_popoto(opening(backend, name, url, ledger, vectors=vectors))


def _keys(system) -> list[str]:
    return [k for name in system.class_names.values() for k in popoto_system.namespace_keys(name)]


def _records(user: str = "user:1") -> list[Record]:
    return [Record(id=i, text=t, user=user) for i, t in TEXTS.items()]


def test_registered_for_redis_and_valkey_only() -> None:
    spec = registry.resolve("popoto")
    assert spec is popoto_system.SPEC
    assert [b for b in ("embedded", "postgres", "redis", "valkey") if spec.runs_on(b)] == ["redis", "valkey"]


@pytest.mark.parametrize("mode", [Mode.BM25, Mode.HYBRID])
def test_search_round_trips_the_harness_ids(engine, mode: Mode) -> None:
    system = _opened(engine, Ledger())
    try:
        system.add(_records())
        found = system.search(Query(text="what is my dog called", user="user:1"), mode)
        assert found, "the record sharing the query's words is retrieved"
        assert found[0].id == "id:1/dog"
        assert found[0].text == TEXTS["id:1/dog"]
        assert {f.id for f in found} <= set(TEXTS)
        assert len(system.search(Query(text="my dog, my tea, my bicycle", user="user:1", limit=1), mode)) == 1
    finally:
        system.close()


def test_modes_follow_the_encoder(engine) -> None:
    with_vectors = _opened(engine, Ledger())
    lexical_only = _opened(engine, Ledger(), vectors=False)
    try:
        assert with_vectors.info.modes == (Mode.BM25, Mode.HYBRID)
        assert lexical_only.info.modes == (Mode.BM25,)
        with pytest.raises(ValueError, match="hybrid"):
            lexical_only.search(Query(text="dog", user="u"), Mode.HYBRID)
        with pytest.raises(ValueError, match="vector"):
            with_vectors.search(Query(text="dog", user="u"), Mode.VECTOR)
    finally:
        with_vectors.close()
        lexical_only.close()


def test_bm25_runs_on_a_model_without_vectors(engine, tmp_path: Path) -> None:
    """As in Popoto's harness, bm25 has a model without an EmbeddingField (with one, Popoto's
    lexical path orders what BM25 does not match by vector similarity); hybrid has one with it."""
    system = _opened(engine, Ledger())
    try:
        system.add(_records())
        folders = tmp_path / "popoto" / ".embeddings"
        assert (folders / system.class_names[Mode.HYBRID]).is_dir()
        assert not (folders / system.class_names[Mode.BM25]).exists()
        for mode in (Mode.BM25, Mode.HYBRID):
            assert system.search(Query(text="red bicycle", user="user:1"), mode)[0].id == "id:0/bike"
    finally:
        system.close()


def test_users_never_see_each_other(engine) -> None:
    system = _opened(engine, Ledger())
    try:
        system.add([*_records("user:1"), Record(id="other-dog", text="my dog is called Bo", user="user:2")])
        for mode in system.info.modes:
            mine = system.search(Query(text="my dog is called", user="user:1"), mode)
            theirs = system.search(Query(text="my dog is called", user="user:2"), mode)
            assert "other-dog" not in {f.id for f in mine}
            assert [f.id for f in theirs] == ["other-dog"]
    finally:
        system.close()


def test_a_budget_caps_what_comes_back(engine) -> None:
    system = _opened(engine, Ledger())
    try:
        assert Capability.BUDGET in system.info.capabilities
        system.add([Record(id=f"dog-{i}", text=f"my dog Rex number {i} is called Rex", user="u") for i in range(8)])
        unbounded = system.search(Query(text="dog called Rex", user="u"), Mode.BM25)
        capped = system.search(Query(text="dog called Rex", user="u", budget_tokens=40), Mode.BM25)
        assert len(unbounded) == 8
        assert 0 < len(capped) < len(unbounded)
    finally:
        system.close()


def test_only_a_budget_costs_cl100k_counts(engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a budget Popoto's harness passes no token counter; ours, passed anyway, made every
    query tokenise each of its `limit` records (and the first one load cl100k_base) for nothing."""
    counted: list[str] = []

    def counting(text: str) -> int:
        counted.append(text)
        return len(text.split())

    monkeypatch.setattr(popoto_system, "count", counting)
    system = _opened(engine, Ledger())
    try:
        system.add(_records())
        for mode in system.info.modes:
            assert system.search(Query(text="what is my dog called", user="user:1"), mode)
        assert counted == []
        assert system.search(Query(text="what is my dog called", user="user:1", budget_tokens=500), Mode.BM25)
        assert counted
    finally:
        system.close()


def test_reset_and_close_touch_only_its_namespace(engine, tmp_path: Path) -> None:
    _, url, _ = engine
    client = _client(url)
    ledger = Ledger()
    neighbour = _opened(engine, Ledger())
    system = _opened(engine, ledger)
    foreign = {"foreign:key": b"kept", f"$BM25:Other{system.class_names[Mode.BM25]}:x": b"kept"}
    try:
        client.mset(foreign)
        neighbour.add(_records())
        system.add(_records())
        before = sorted(_keys(neighbour))
        assert all(popoto_system.namespace_keys(name) for name in system.class_names.values())
        vectors = tmp_path / "popoto" / ".embeddings" / system.class_names[Mode.HYBRID]
        assert vectors.is_dir()

        system.reset()
        assert _keys(system) == []
        assert not vectors.exists()
        assert system.search(Query(text="what is my dog called", user="user:1"), Mode.BM25) == []
        system.add(_records()[:1])
        assert [f.id for f in system.search(Query(text="red bicycle", user="user:1"), Mode.HYBRID)] == ["id:0/bike"]

        system.close()
        assert _keys(system) == []
        assert sorted(_keys(neighbour)) == before
        assert {k: client.get(k) for k in foreign} == foreign
        assert ledger.recorded == ledger.forgotten == [system.opening.namespace]
    finally:
        neighbour.close()
        client.delete(*foreign)
        client.close()


def test_undeclared_operations_are_refused(engine) -> None:
    system = _opened(engine, Ledger(), vectors=False)
    try:
        for call, capability in (
            (lambda: system.consolidate(), Capability.CONSOLIDATION),
            (lambda: system.record_access(["x"]), Capability.ACCESS),
        ):
            assert capability not in system.info.capabilities
            with pytest.raises(Unsupported):
                call()
    finally:
        system.close()


@pytest.mark.valkey
def test_hybrid_runs_on_valkey_though_the_engine_has_no_vector_index(
    server_url, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Popoto computes its vectors in process: Valkey's missing vector index refuses only the
    reference pipeline's vector modes, never a mode Popoto declares."""
    monkeypatch.setenv("POPOTO_CONTENT_PATH", str(tmp_path / "popoto"))
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    url = server_url("valkey")
    args = ("run", "-b", "valkey", "--url", url, "-m", "bm25", "-m", "hybrid", "--limit", "2", "--out", "out")
    assert harness(tmp_path, *args, "--system", "popoto") == 0
    assert harness(tmp_path, *args, "--system", "reference") == 0
    popoto, reference = (
        json.loads(next((tmp_path / "out").glob(f"run-valkey-{stem}2*.json")).read_text()) for stem in ("popoto-", "")
    )
    assert popoto["modes"] == ["bm25", "hybrid"]
    assert popoto["unsupported_modes"] == {}
    assert {c["mode"] for c in popoto["cases"]} == {"bm25", "hybrid"}
    assert reference["modes"] == ["bm25"]
    assert list(reference["unsupported_modes"]) == ["hybrid"]


@pytest.mark.redis
def test_down_url_removes_a_killed_runs_keys_and_vectors_only(server_url, tmp_path: Path) -> None:
    """A Popoto run on a given server, killed by SIGKILL mid-run, leaves its keys and vector files;
    `harness down --url` removes them by the run's ledger, and no foreign key or folder."""
    url = server_url("redis")
    client = _client(url)
    content = tmp_path / "popoto"
    vectors = content / ".embeddings"
    foreign = {"foreign:key": b"kept", "$BM25:ForeignModel:x": b"kept", "HarnessForeignLexical:1": b"kept"}
    (vectors / "ForeignModel").mkdir(parents=True)
    env = {"HARNESS_STATE_DIR": str(tmp_path / "state"), "POPOTO_CONTENT_PATH": str(content)}

    def ours() -> list[str]:
        return [k.decode() for k in client.scan_iter(match="*Harnessh*") if k.decode() not in foreign]

    def left() -> list[str]:
        return sorted(p.name for p in vectors.glob("Harnessh*Hybrid"))

    try:
        client.mset(foreign)
        args = ["run", "--system", "popoto", "-b", "redis", "--url", url, "-m", "bm25", "-m", "hybrid", "--out", "out"]
        killed_run(tmp_path, args, lambda: bool(left()) and bool(ours()), env)
        assert ours()  # what the killed run left
        with pytest.MonkeyPatch.context() as patch:
            for name, value in env.items():
                patch.setenv(name, value)
            assert harness(tmp_path, "down", "--url", url) == 0
        assert ours() == []
        assert left() == []
        assert {k: client.get(k) for k in foreign} == foreign
        assert (vectors / "ForeignModel").is_dir()
    finally:
        client.delete(*foreign)
        client.close()


def test_a_batch_of_records_is_embedded_in_one_call_before_popoto_saves_them(engine) -> None:
    """Popoto embeds one text per save; the adapter embeds the whole batch first, so the harness's
    encoder computes it in one call (its workers, one cache shard) and each save reads it back."""
    name, url, backend = engine
    opened = opening(backend, name, url, Ledger())
    calls: list[list[str]] = []
    inner = opened.embedder
    assert inner is not None

    class Recording:
        dimensions = inner.dimensions

        def embed(self, texts):
            calls.append(list(texts))
            return inner.embed(texts)

    system = popoto_system.open_popoto(replace(opened, embedder=Recording()))
    try:
        system.add(_records())
        assert calls[0] == list(TEXTS.values())
        assert all(len(c) == 1 and c[0] in TEXTS.values() for c in calls[1:])
    finally:
        system.close()


def _retrieved(report: dict[str, Any]) -> list[tuple[str, str | None, str, frozenset[str]]]:
    """Each question's rows in report order, with what each level retrieved, as a set."""
    return [
        (q["id"], q["mode"], level, frozenset(doc for doc, _ in found["retrieved"]))
        for q in report["questions"]
        for level, found in q["levels"].items()
    ]


def test_at_concurrency_n_it_retrieves_what_it_retrieves_serially(
    engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Popoto's namespaces on 4 workers at once, on its one process-wide client: every question
    in serial order retrieving the same records, its keys and vector folders gone after, and no
    word of running serially. The sets, not the orders: Popoto orders records it ties differently
    from one run to the next, two serial runs too (hb-trips' two trip sessions swap places)."""
    name, url, _ = engine
    reports = []
    for concurrency in (1, 4):
        out = tmp_path / f"at{concurrency}"
        args = ["run", "--system", "popoto", "-b", name, "--url", url, "-s", "haystack:builtin", "-m", "bm25"]
        assert harness(tmp_path, *args, "-m", "hybrid", "--out", str(out), "--concurrency", str(concurrency)) == 0
        (path,) = [p for p in out.glob("*.json") if "latest" not in p.name]
        reports.append(json.loads(path.read_text()))
    assert [r["concurrency"] for r in reports] == [1, 4]
    assert "runs at concurrency" not in capsys.readouterr().err
    assert _retrieved(reports[1]) == _retrieved(reports[0])
    assert len(_retrieved(reports[0])) == 10  # five questions asked (the sixth abstains), in two modes
    assert reports[1]["throughput"]["records_added"] == reports[0]["throughput"]["records_added"] > 0
    client = _client(url)
    try:
        assert list(client.scan_iter(match="*Harnessh*")) == []
    finally:
        client.close()
    assert not any((tmp_path / "popoto" / ".embeddings").glob("Harnessh*"))
