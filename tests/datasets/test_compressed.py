"""Dataset files are read as published: gzip, xz and zstandard files stream to the same haystacks as the plain file."""

from __future__ import annotations

import gzip
import json
import lzma
from pathlib import Path

import pytest
import zstandard

from harness.errors import CaseFileError
from harness.suites.datasets import DATA_DIR_ENV, resolve_file
from harness.suites.locomo import LoCoMoFile
from harness.suites.longmemeval import LongMemEvalFile

from .builders import locomo_conversation, longmemeval_records

COMPRESS = {".gz": gzip.compress, ".xz": lzma.compress, ".zst": zstandard.compress}


def _haystacks(reader: LongMemEvalFile | LoCoMoFile) -> list[object]:
    return [(h.id, h.documents, h.questions) for h in reader.read()]


@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_a_compressed_file_reads_as_the_plain_one(tmp_path: Path, suffix: str) -> None:
    for name, data, reader in [
        ("longmemeval_s.json", longmemeval_records(), LongMemEvalFile),
        ("locomo10.json", [locomo_conversation()], LoCoMoFile),
    ]:
        plain = tmp_path / name
        plain.write_bytes(json.dumps(data).encode())
        packed = tmp_path / (name + suffix)
        packed.write_bytes(COMPRESS[suffix](plain.read_bytes()))
        assert reader(packed).scan() == reader(plain).scan()
        assert reader(packed).count() == len(reader(plain).scan())
        assert _haystacks(reader(packed)) == _haystacks(reader(plain))


def test_the_data_folder_is_searched_for_compressed_files_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "longmemeval_s.json.xz").write_bytes(lzma.compress(json.dumps(longmemeval_records()).encode()))
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    assert resolve_file("longmemeval-s", None) == tmp_path / "longmemeval_s.json.xz"


@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_a_truncated_compressed_file_is_a_one_line_error(tmp_path: Path, suffix: str) -> None:
    packed = COMPRESS[suffix](json.dumps(longmemeval_records()).encode())
    path = tmp_path / f"longmemeval_s.json{suffix}"
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(CaseFileError, match=rf"a damaged \{suffix} file|not valid JSON"):
        list(LongMemEvalFile(path).read())
