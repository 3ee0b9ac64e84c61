"""An input file is pinned by its sha256 without holding it in memory: a dataset file is hundreds
of MB, and reading LongMemEval-S's whole took a bm25 run from 84 MB to 330 MB peak (issue 20)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

SIZE = 192 * 2**20

DIGEST_AND_PEAK = """
import resource, sys
from pathlib import Path
from harness.reports.metadata import file_digest
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(file_digest(Path(sys.argv[1])), (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def test_a_large_input_is_digested_in_little_memory(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    chunk = b"[" + b"0," * (2**19 - 1) + b"0]"  # 1 MiB
    with big.open("wb") as handle:
        for _ in range(SIZE // len(chunk)):
            handle.write(chunk)
    expected = hashlib.sha256()
    for _ in range(SIZE // len(chunk)):
        expected.update(chunk)
    done = subprocess.run([sys.executable, "-c", DIGEST_AND_PEAK, str(big)], capture_output=True, text=True, check=True)
    digest, grown_mb = done.stdout.split()
    assert digest == expected.hexdigest()
    assert int(grown_mb) < 32, f"digesting a {SIZE >> 20} MB file grew the process by {grown_mb} MB"
