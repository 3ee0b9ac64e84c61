"""`--url` values that cannot name a server are one line and exit 2, before anything connects,
with every secret masked: URLs (their password, secret query parameters) and libpq `key=value`
connection strings alike; a libpq string that names a server is understood by `down --url` too."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.backends.ledger import STATE_DIR_ENV
from harness.messages import masked, redacted
from tests.faults.helpers import one_line

SECRET = "s3cret"


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["down", "--url", "redis://h:abc/0"], "--url 'redis://h:abc/0': Port could not be cast to integer value"),
        (["down", "--url", f"redis://u:{SECRET}@[::1/0"], "--url 'redis://u:***@[::1/0': Invalid IPv6 URL"),
        (["run", "-b", "redis", "--url", f"redis://u:{SECRET}@[::1/0"], "Invalid IPv6 URL"),
        (["run", "-b", "redis", "--url", f"redis://u:{SECRET}@h:99999/0"], "Port out of range"),
        (
            ["run", "-b", "postgres", "--url", f"host=127.0.0.1 port=x user=u password={SECRET} dbname=d"],
            "--url 'host=127.0.0.1 port=x user=u password=*** dbname=d': port 'x' is not a port number",
        ),
        (
            ["down", "--url", f"host=127.0.0.1 password='{SECRET} x' port"],
            '--url: not a PostgreSQL connection string: missing "=" after "port"',
        ),
    ],
    ids=["down-bad-port", "down-bad-ipv6", "run-bad-ipv6", "run-port-range", "run-conninfo-port", "down-conninfo"],
)
def test_a_bad_url_is_one_masked_line_and_exit_2(cli, tmp_path: Path, args: list[str], message: str) -> None:
    extra = ["-m", "bm25", "--out", str(tmp_path / "out")] if args[0] == "run" else []
    code, out, err = cli(*args, *extra)
    line = one_line(err)
    assert code == 2, err
    assert message in line, line
    assert SECRET not in out + err


def test_down_understands_a_libpq_connection_string(cli) -> None:
    code, out, err = cli("down", "--url", f"host=127.0.0.1 port=1 user=u password={SECRET} dbname=d")
    assert code == 0, err
    assert out.strip() == "postgresql://127.0.0.1:1/d: removed 0 leftover(s)"
    assert SECRET not in out + err


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (f"host=h user=u password={SECRET} dbname=d", "host=h user=u password=*** dbname=d"),
        (f"host=h password = '{SECRET} \\' x' sslpassword={SECRET}", "host=h password = *** sslpassword=***"),
        (f"postgresql://u:{SECRET}@h/db?sslpassword={SECRET}&a=1", "postgresql://u:***@h/db?sslpassword=***&a=1"),
        (f"redis://:{SECRET}@h:bad/0", "redis://:***@h:bad/0"),
        ("redis://h:6379/0", "redis://h:6379/0"),
    ],
)
def test_redacted_masks_every_secret(text: str, shown: str) -> None:
    assert redacted(text) == shown


def test_masked_finds_secrets_inside_a_message() -> None:
    message = f'connection to "redis://u:{SECRET}@h:1/0" failed; conninfo password={SECRET} port=5'
    assert masked(message) == 'connection to "redis://u:***@h:1/0" failed; conninfo password=*** port=5'
