"""`harness embed`: the vectors of suites' texts or of a whole dataset, cached ahead of a run."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from harness.cli.app import app
from harness.cli.console import ENCODERS, err_console, fill_bar, given, option_name, out_console
from harness.cli.kind_options import KindOptioned, own_options, spec_options
from harness.embeddings import DEFAULT_MODEL
from harness.embeddings.device import Device
from harness.embeddings.embedder import Embedder
from harness.errors import HarnessError
from harness.evaluation import kinds as kind_registry
from harness.evaluation.embedders import fill_cache, suite_embedder
from harness.evaluation.kind import KindOptions
from harness.evaluation.kinds import kinds_for
from harness.pipeline import Mode
from harness.shards import Shard, parse_shard
from harness.suites import BUILTIN
from harness.suites.resolve import cases_dir


def embed(
    ctx: typer.Context,
    suite: Annotated[
        list[str] | None,
        typer.Option("--suite", "-s", help="Suites to embed, any kind `harness run --suite` takes (default: builtin)."),
    ] = None,
    model: Annotated[
        str, typer.Option(help=f"{', '.join(ENCODERS)}, or a sentence-transformers model path.")
    ] = DEFAULT_MODEL,
    out: Annotated[
        Path | None,
        typer.Option(help="Cache folder to write (default: cases/embeddings when every suite is a built-in one)."),
    ] = None,
    dataset: Annotated[
        str | None, typer.Option(help="Embed a whole public dataset ahead of time (resumable after Ctrl-C).")
    ] = None,
    file: Annotated[Path | None, typer.Option(help="The dataset file (with --dataset).")] = None,
    device: Annotated[
        Device,
        typer.Option(
            help="Where to embed (auto: a dataset on cuda when torch sees a GPU; "
            "suites on the cpu, like their committed vectors)."
        ),
    ] = Device.AUTO,
    shard: Annotated[
        str | None,
        typer.Option(help="With --dataset: embed only part I/N of the distinct texts (by content hash) into --out."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="With --dataset: processes that embed, on the CPU one thread each "
            "(default: one per core on the CPU, one on a GPU, whose batches fill it).",
        ),
    ] = None,
    **own_params: Any,
) -> int:
    """Embed every memory and query text of the suites, or every turn and question of a dataset."""
    from harness.embeddings import default_cache_dir

    if dataset is not None:
        shaping = [name for kind in kind_registry.SPECS for name, *_ in spec_options(kind, texts_only=True)]
        if suite is not None or any(given(ctx, name) for name in shaping):
            flags = ", ".join(["--suite", *(option_name(ctx, name) for name in shaping)])
            raise HarnessError(f"--dataset embeds a dataset: {' and '.join(flags.rsplit(', ', 1))} do not apply")
        part = parse_shard(shard) if shard is not None else None
        return _embed_dataset(dataset, file, model, device, out, part, workers)
    for flag, value in (("--file", file), ("--shard", shard), ("--workers", workers)):
        if value is not None:
            raise HarnessError(f"{flag} applies to a dataset: give --dataset too")
    suites = suite or [BUILTIN]
    built_in = all(s == BUILTIN or s.endswith(f":{BUILTIN}") for s in suites)
    target = out or (cases_dir() / "embeddings" if built_in else default_cache_dir())
    embedder = suite_embedder(model, device, cache_dir=target)
    kinds = kinds_for(suites, KindOptions([Mode.HYBRID]), own_options(own_params, texts_only=True))
    texts = list(dict.fromkeys(t for planned in kinds for t in planned.kind.texts()))
    missing = sum(v is None for v in embedder.cache.lookup(texts))
    with _embed_progress(model, missing) as advance:
        embedder.on_progress = advance
        embedder.embed(texts)
    out_console.print(
        f"{len(texts)} texts, {missing} newly embedded with {model} into {embedder.cache.folder}", soft_wrap=True
    )
    return 0


EMBED = KindOptioned.of(embed, texts_only=True)
app.command()(embed)


def _embed_dataset(
    dataset: str, file: Path | None, model: str, device: str, out: Path | None, part: Shard | None, workers: int | None
) -> int:
    from harness.evaluation.embedders import selection_texts
    from harness.suites.datasets import open_selection

    selection = open_selection(dataset, file)
    embedder = Embedder(model, cache_dir=out, device=device, workers=workers)
    with fill_bar(dataset) as bar:
        counted = fill_cache(lambda: selection_texts(selection, part), embedder, bar)
    out_console.print(
        f"{dataset}{f' shard {part}' if part else ''}: {counted.texts} distinct texts, "
        f"{counted.computed} newly embedded with {model} "
        f"on {embedder.device}; cache: {embedder.cache.folder}",
        highlight=False,
        soft_wrap=True,
    )
    return 0


@contextmanager
def _embed_progress(model: str, total: int) -> Iterator[Callable[[int], None]]:
    """A bar with ETA and texts/s for `total` texts; hidden when there are too few to notice."""
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err_console,
        disable=total < 200,
    )
    with progress:
        task = progress.add_task(f"embedding with {model}", total=total)
        yield lambda count: progress.advance(task, count)
