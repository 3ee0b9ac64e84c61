"""The registry's one list of backend descriptors, and what the tools derive from it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from harness.backends import registry
from harness.backends.descriptor import BackendDescriptor, UrlScheme
from harness.backends.embedded import EmbeddedBackend
from harness.backends.ledger import server_identity
from harness.cli.servers import up_lines
from harness.containers import load_spec
from harness.errors import HarnessError

ROOT = Path(__file__).resolve().parents[2]


def test_names_are_unique_and_atlas_alone_needs_a_registry() -> None:
    assert len(set(registry.names())) == len(registry.DESCRIPTORS)
    assert {"embedded", "postgres", "redis", "redis-core", "valkey"} <= set(registry.default_run())
    assert "atlas" in registry.servers()
    assert "atlas" not in registry.default_run()
    assert "embedded" not in registry.servers()


def test_every_server_has_a_spec_and_the_default_run_builds_locally() -> None:
    """The default test run needs no registry: each server in it has a local build."""
    for name in registry.servers():
        spec = load_spec(registry.container_spec(name), ROOT)
        assert (spec.dockerfile is not None) == (name in registry.default_run()), name


def test_unknown_names_and_misplaced_urls_are_one_line_errors() -> None:
    with pytest.raises(HarnessError, match=r"^unknown backend 'nope' \(choose from: embedded, postgres, "):
        registry.check_backend("nope")
    with pytest.raises(HarnessError, match=r"^backend 'embedded' is not a server: it takes no URL$"):
        registry.connect("embedded", "redis://127.0.0.1:1/0")
    with pytest.raises(HarnessError, match=r"^backend 'valkey' is a server: give its URL$"):
        registry.connect("valkey")


def test_harness_up_prints_a_sample_query_only_where_there_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "redis://:pw@127.0.0.1:6400/0"
    assert f"  query:   valkey-cli -u {url} --scan --pattern 'h:{{builtin}}:*' --count 100" in up_lines(
        "valkey", url, 3
    )
    bare = tuple(dataclasses.replace(d, sample_query=None) if d.name == "valkey" else d for d in registry.DESCRIPTORS)
    monkeypatch.setattr(registry, "DESCRIPTORS", bare)
    lines = up_lines("valkey", url, 3)
    assert not any("query:" in line for line in lines)
    assert lines == [
        f"  url:     {url}",
        "  seeded:  namespace 'builtin', 3 memories",
        f"  suites:  harness run -b valkey --url '{url}' -m bm25",
    ]


def test_the_url_ledger_knows_the_schemes_the_descriptors_declare(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(HarnessError, match=r"^--url 'toy://H': expected postgresql://, .* followed by HOST\.\.\.$"):
        server_identity("toy://H")
    toy = BackendDescriptor(
        "toyserver",
        lambda _url, _options: EmbeddedBackend(),
        server="toy",
        url_schemes={"toy": UrlScheme("toy", 7000, "/x")},
    )
    monkeypatch.setattr(registry, "DESCRIPTORS", (*registry.DESCRIPTORS, toy))
    assert server_identity("toy://user:secret@H") == "toy://h:7000/x"
    assert server_identity("postgres://u:p@h/db") == "postgresql://h:5432/db"
