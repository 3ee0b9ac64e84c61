"""`harness up`, `down`, `images build|compose` and `backends`: the server backends' containers,
what killed runs left on a server, and the list of backends."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Annotated

import typer
from rich.table import Table

from harness.backends import registry
from harness.backends.ledger import Entry
from harness.backends.provision import require_containers, start_server
from harness.backends.registry import check_backend, connect
from harness.cli.app import app, images_app
from harness.cli.console import err_console, error, out_console
from harness.embeddings import DEFAULT_MODEL
from harness.errors import BackendUnavailable, HarnessError
from harness.evaluation.embedders import suite_embedder
from harness.resources import data_root
from harness.suites import BUILTIN, load_suite
from harness.systems import http as http_system
from harness.systems import own_files
from harness.systems import registry as systems_registry


@app.command()
def up(
    backend: Annotated[str, typer.Argument(help=f"One of: {', '.join(registry.servers())}.")],
    port: Annotated[int | None, typer.Option(help="Host port on 127.0.0.1 (default: a free one).")] = None,
) -> int:
    """Start one backend's container, seed the built-in corpus with its indexes, keep it until Ctrl-C."""
    import time
    import uuid

    from harness.pipeline import MemoryPipeline, PipelineSettings

    servers = registry.servers()
    if check_backend(backend) not in servers:
        raise HarnessError(f"{backend!r} runs in process; `harness up` starts one of: {', '.join(servers)}")
    require_containers()
    err_console.print(f"starting the {backend} container…", highlight=False)
    server_url, container = start_server(backend, f"up-{uuid.uuid4().hex[:12]}", host_port=port)
    try:
        engine = connect(backend, server_url)
        suite = load_suite(BUILTIN)
        try:
            embedder = suite_embedder(DEFAULT_MODEL) if engine.info().vector_engine else None
            pipeline = MemoryPipeline.open(engine, "builtin", PipelineSettings(), embedder)
            pipeline.load(suite.corpus.memories)
            info = engine.info()
        finally:
            engine.close()
        out_console.print(f"{backend} is up: {info.server_version} ({info.engine}), container {container.name}")
        for line in up_lines(backend, server_url, len(suite.corpus.memories)):
            out_console.print(line)
        out_console.print("Ctrl-C stops and removes it.")
        while True:
            time.sleep(3600)
    finally:
        container.stop()


def up_lines(backend: str, server_url: str, memories: int) -> list[str]:
    """What `harness up` says about a seeded server; the sample query only where the backend has one."""
    sample = registry.descriptor(backend).sample_query
    return [
        f"  url:     {server_url}",
        f"  seeded:  namespace 'builtin', {memories} memories",
        *([f"  query:   {sample.format(url=server_url)}"] if sample is not None else []),
        f"  suites:  harness run -b {backend} --url '{server_url}' -m bm25",
    ]


@app.command()
def down(
    url: Annotated[
        str | None,
        typer.Option(help="Instead: remove what killed `--url` runs left on this server (as recorded locally)."),
    ] = None,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Remove every harness container and network on the engine, those of live runs (of any process, "
            "user or host) included.",
        ),
    ] = False,
) -> int:
    """Remove the containers (and networks) of harness runs whose process on this host is gone, and
    keep those of live runs and of other hosts (--all: remove them too); or, with --url, the
    namespaces and extension that killed runs left on that server, and nothing else. Either way, the
    files of systems under test that runs whose process is gone left in the state folder."""
    for folder in own_files.remove_dead():
        out_console.print(
            f"removed {folder}: system files of a run whose process is gone", highlight=False, soft_wrap=True
        )
    if url is not None:
        return _down_url(url)
    require_containers()
    from harness.containers import ContainerError, NoDockerEngine, remove_all, remove_dead

    try:
        sweep = remove_all() if everything else remove_dead()
    except NoDockerEngine as exc:  # nothing runs, so nothing is left to remove: done, not a failure
        out_console.print(f"removed 0 container(s): {exc}", highlight=False, soft_wrap=True)
        return 0
    except ContainerError as exc:
        raise BackendUnavailable(str(exc)) from None
    whose = "of every harness run, live ones included" if everything else "of runs whose process is gone"
    removed = f": {', '.join(sweep.removed)}" if sweep.removed else ""
    out_console.print(f"removed {len(sweep.removed)} container(s) {whose}{removed}", highlight=False, soft_wrap=True)
    for name, why in sweep.kept:
        out_console.print(f"kept {name}: {why} (--all removes it)", highlight=False, soft_wrap=True)
    return 0


def _down_url(url: str) -> int:
    from harness.backends.recorded import remove_leftovers

    if url.startswith(("http://", "https://")):
        droppers: dict[str, Callable[[Entry], bool]] = {
            "http": lambda entry: http_system.drop_namespace(url, entry.name)
        }
    else:  # systems that write to the engine on their own (Popoto's keys, mem0's tables)
        droppers = {spec.name: partial(spec.drop, url) for spec in systems_registry.installed().values() if spec.drop}
    result = remove_leftovers(url, droppers)
    names = ", ".join(f"{e.kind} {e.name}" for e in result.removed)
    out_console.print(f"{result.server}: removed {len(result.removed)} leftover(s)" + (f": {names}" if names else ""))
    for entry, reason in result.kept:
        out_console.print(f"{result.server}: kept {entry.kind} {entry.name}: {reason}")
    for entry, reason in result.failed:
        error(f"error: {result.server}: could not drop {entry.kind} {entry.name}: {reason}")
    return 3 if result.failed else 0


@images_app.command("build")
def images_build(
    backend: Annotated[
        list[str] | None, typer.Argument(help="Backends (default: every one with a Dockerfile).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Rebuild images that already exist.")] = False,
) -> int:
    """Build the local images from docker/ (making the debian:trixie-slim base first if needed)."""
    from harness.containers import ContainerError, build_images

    names = [registry.container_spec(b) for b in backend or registry.servers()]
    try:
        results = build_images(data_root(), names, lambda line: err_console.print(line, highlight=False), force=force)
    except ContainerError as exc:
        raise BackendUnavailable(str(exc)) from None
    for r in results:
        status = f"built in {r.seconds:.1f} s" if r.built else "already present"
        out_console.print(f"{r.backend}: {r.tag} {status}")
    return 0


@images_app.command("compose")
def images_compose() -> int:
    """Write docker/compose.yaml from the container specs (containers/*.toml) of every server backend."""
    from harness.containers import load_spec
    from harness.containers.compose import COMPOSE_FILE, compose_yaml
    from harness.containers.images import DOCKER_DIR

    specs = [load_spec(registry.container_spec(name), data_root()) for name in registry.servers()]
    path = data_root() / DOCKER_DIR / COMPOSE_FILE
    path.write_text(compose_yaml(specs), encoding="utf-8")
    out_console.print(f"written: {path}", highlight=False)
    return 0


@app.command("backends")
def backends_list(
    json_names: Annotated[bool, typer.Option("--json", help="Only the names, as a JSON list (the CI matrix).")] = False,
) -> int:
    """List the backends: where each runs and whether the default test run covers it."""
    if json_names:
        out_console.print(json.dumps(list(registry.names())), highlight=False, markup=False, soft_wrap=True)
        return 0
    table = Table(title="backends")
    for column in ("backend", "runs", "default test run"):
        table.add_column(column)
    for name in registry.names():
        found = registry.descriptor(name)
        where = "in process" if found.server is None else f"container (containers/{found.server}.toml)"
        table.add_row(name, where, "yes" if found.local else "no (pytest --backend " + name + ")")
    out_console.print(table)
    return 0
