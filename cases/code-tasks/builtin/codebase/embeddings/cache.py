"""Embedding vectors keyed by text hash, kept as append-only `.npz` shards per model.

Each `add` writes one new shard atomically, so an interrupted run keeps every finished batch. A
shard is named for its content (its checksum), and a text's vector is a function of the text alone
(each encoder's module says how), so caches filled apart, by the shards of `harness embed --shard`
on other machines, join by copying their files into one folder: equal names hold equal vectors,
and no file can overwrite another's different content. A shard holds `keys`
(sha256 hex digests of the UTF-8 text, as a `<U64` array), `vectors` (a float32 matrix) and
`checksum` (sha256 of both arrays' bytes). A shard that cannot be read (truncated, empty, not a
zip), whose checksum does not match or whose vectors are not all finite is discarded with a
warning (`CacheWarning`) and its texts are computed again; non-finite vectors are never stored.
Shards written before checksums existed are read without one.
"""

from __future__ import annotations

import hashlib
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from harness.embeddings.device import Device
from harness.embeddings.registry import spec
from harness.errors import HarnessError, HarnessWarning
from harness.files import atomic_write

SHARD_SUFFIX = ".npz"


def text_key(text: str) -> str:
    """The cache key of a text: its sha256 hex digest, so the cache never stores the text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def model_folder(model: str, device: Device = Device.CPU) -> str:
    """A model name as a single folder name (`org/name` becomes `org__name`), with the recipe of its
    vectors on the resolved `device` (its spec's `recipe_on`)."""
    folder = model.replace("/", "__")
    recipe = spec(model).recipe_on(device)
    return f"{folder}@{recipe}" if recipe is not None else folder


class EmbeddingCache:
    """Vectors of one model computed on one kind of device (cpu or cuda), read from every `read_dirs`
    (and `write_dir`), written to `write_dir`.

    Shards are loaded once, on the first lookup; vectors added later by this object are seen too.
    """

    def __init__(
        self, model: str, read_dirs: Sequence[Path] = (), write_dir: Path | None = None, device: Device = Device.CPU
    ):
        self.model = model
        name = model_folder(model, device)
        self._write_dir = write_dir / name if write_dir is not None else None
        folders = [Path(d) / name for d in read_dirs]
        if self._write_dir is not None:
            folders.append(self._write_dir)
        self._folders = list(dict.fromkeys(folders))
        self._blocks: list[np.ndarray] = []
        self._rows: dict[str, tuple[int, int]] | None = None

    def _index(self) -> dict[str, tuple[int, int]]:
        if self._rows is None:
            rows: dict[str, tuple[int, int]] = {}
            for shard in self._shards():
                try:
                    self._remember(rows, *_read_shard(shard))
                except BadShard as exc:
                    warnings.warn(f"{exc}; discarded, its texts are embedded again", CacheWarning, stacklevel=2)
                    if self._write_dir is not None and shard.parent == self._write_dir:
                        shard.unlink(missing_ok=True)
            self._rows = rows
        return self._rows

    def _shards(self) -> list[Path]:
        return sorted(p for folder in self._folders if folder.is_dir() for p in folder.glob(f"*{SHARD_SUFFIX}"))

    def _remember(self, rows: dict[str, tuple[int, int]], keys: Sequence[str], vectors: np.ndarray) -> None:
        if self._blocks and vectors.shape[1] != self._blocks[0].shape[1]:
            raise HarnessError(
                f"embedding cache for {self.model} mixes {self._blocks[0].shape[1]} and "
                f"{vectors.shape[1]} dimensions: remove the stale shards in {', '.join(map(str, self._folders))}"
            )
        block = len(self._blocks)
        self._blocks.append(vectors)
        for row, key in enumerate(keys):
            rows[key] = (block, row)

    @property
    def folder(self) -> Path | None:
        """The folder new shards are written to (None: nothing is persisted)."""
        return self._write_dir

    def __len__(self) -> int:
        return len(self._index())

    @property
    def dimensions(self) -> int | None:
        """Vector size of the cached vectors, or None while the cache is empty."""
        self._index()
        return int(self._blocks[0].shape[1]) if self._blocks else None

    def lookup(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """The cached vector of each text, None where there is none."""
        rows = self._index()
        found: list[np.ndarray | None] = []
        for text in texts:
            where = rows.get(text_key(text))
            found.append(None if where is None else self._blocks[where[0]][where[1]])
        return found

    def add(self, texts: Sequence[str], vectors: np.ndarray) -> Path | None:
        """Store one batch as one new shard (and in memory); returns its path, None if not persisted."""
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or len(matrix) != len(texts):
            raise ValueError(f"expected {len(texts)} vectors as a matrix, got shape {matrix.shape}")
        if not np.isfinite(matrix).all():
            bad = int((~np.isfinite(matrix)).any(axis=1).sum())
            raise HarnessError(
                f"model {self.model} gave {bad} of {len(texts)} vectors with NaN or infinite values; nothing was cached"
            )
        keys = [text_key(t) for t in texts]
        self._remember(self._index(), keys, matrix)
        if self._write_dir is None or not keys:
            return None
        return self._write_shard(self._write_dir, np.array(keys, dtype="<U64"), matrix)

    def _write_shard(self, folder: Path, keys: np.ndarray, vectors: np.ndarray) -> Path:
        """Written aside then renamed to its checksum: only the same keys and vectors take the same name."""
        folder.mkdir(parents=True, exist_ok=True)
        checksum = _checksum(keys, vectors)
        final = folder / f"{checksum}{SHARD_SUFFIX}"
        atomic_write(final, lambda handle: np.savez(handle, keys=keys, vectors=vectors, checksum=checksum))
        return final


class CacheWarning(HarnessWarning):
    """A cache shard was discarded: its texts are embedded again."""


class BadShard(Exception):
    """A shard that cannot be trusted: unreadable, a checksum that does not match, non-finite vectors."""


def _checksum(keys: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    digest = hashlib.sha256(np.ascontiguousarray(keys).tobytes() + np.ascontiguousarray(vectors).tobytes())
    return np.array(digest.hexdigest())


def _read_shard(path: Path) -> tuple[list[str], np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as shard:
            keys = np.asarray(shard["keys"], dtype="<U64")
            vectors = np.asarray(shard["vectors"], dtype=np.float32)
            stored = str(shard["checksum"]) if "checksum" in shard.files else None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise BadShard(f"unreadable embedding cache shard {path} ({type(exc).__name__}: {exc})") from None
    if vectors.ndim != 2 or len(vectors) != len(keys):
        raise BadShard(f"embedding cache shard {path} has {len(keys)} keys but vectors of shape {vectors.shape}")
    if stored is not None and stored != str(_checksum(keys, vectors)):
        raise BadShard(f"embedding cache shard {path} does not match its checksum")
    if not np.isfinite(vectors).all():
        raise BadShard(f"embedding cache shard {path} holds NaN or infinite vectors")
    return keys.tolist(), vectors
