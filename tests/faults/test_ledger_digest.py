"""`harness down --url` drops only what the harness recorded: each ledger entry carries a digest
(HMAC under a key beside the ledger), and a forged or edited entry is left, never dropped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.backends.ledger import NAMESPACE, STATE_DIR_ENV, Ledger
from harness.backends.recorded import remove_leftovers
from tests.faults.helpers import ROOT

URL = "redis://127.0.0.1:1/0"  # nothing listens: any drop would fail the test


def _record_in_a_process_that_ends(name: str) -> Path:
    """An entry as a killed run leaves it: written by the harness, its process gone."""
    code = f"from harness.backends.ledger import Ledger; Ledger({URL!r}).record('redis', 'namespace', {name!r})"
    subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    (entry,) = [e for e in Ledger(URL).entries() if e.name == name]
    return entry.path


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path))


def test_a_genuine_entry_is_authentic_and_its_key_is_private(tmp_path: Path) -> None:
    Ledger(URL).record("redis", NAMESPACE, "hown")
    (entry,) = Ledger(URL).entries()
    assert entry.authentic
    assert (tmp_path / "url-ledger" / ".key").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("forge", ["written-by-hand", "name-edited"])
def test_down_url_leaves_a_forged_entry(forge: str) -> None:
    genuine = _record_in_a_process_that_ends("hgenuine")
    data = json.loads(genuine.read_text())
    if forge == "written-by-hand":
        data.pop("digest")
        target = genuine.with_name("namespace-users.999999.json")
    else:
        target = genuine
    data["name"] = "users"  # the server's own data
    target.write_text(json.dumps(data))
    forged = [e for e in Ledger(URL).entries() if e.name == "users"]
    assert [e.authentic for e in forged] == [False]
    if forge == "written-by-hand":
        genuine.unlink()  # only the forged entry: nothing may be dropped, nothing connected to
    result = remove_leftovers(URL)
    assert result.removed == []
    assert [(e.name, reason) for e, reason in result.kept] == [
        ("users", "its digest does not match what it records (not written by the harness): left")
    ]
    assert target.exists(), "the forged entry stays for a person to look at"
