"""A fuzz pass over every suite loader (issue 21): documents made from the real example files with
parts replaced (by other types, huge or odd text, NaN, deep nesting, a key removed), and raw bytes
(truncated, not UTF-8, random) either load or fail with the harness's one-line error
(`HarnessError`): never another exception, and never a hang (an alarm per example). Whole runs of
fuzzed suite folders and scenario files end with exit 0, 1 or 2, a load error in one line.

Deterministic: `derandomize` (the examples are the same on every run), a bounded number of
examples per loader and a deadline per example, so the pass is fast enough for every CI run.
"""

from __future__ import annotations

import copy
import json
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from harness.errors import HarnessError
from harness.suites.acervo import load_acervo
from harness.suites.code_tasks import load_task_file
from harness.suites.locomo import LoCoMoFile
from harness.suites.longmemeval import LongMemEvalFile
from harness.suites.mnemonic import load_mnemonic
from harness.suites.native import load_native
from harness.suites.resolve import cases_dir
from harness.suites.tenure import SEED, SESSIONS, STATIC, load_tenure
from harness.suites.yamlfile import read_yaml
from tests.datasets.builders import locomo_conversation, longmemeval_records
from tests.faults.helpers import one_line

CASES = cases_dir()
FUZZ = settings(
    max_examples=25,
    deadline=5000,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],  # no explain: its tracing is slow
)
HANG_S = 60
"""An example still loading after this long is a hang (the alarm fails it); the slowest seen take seconds."""

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["", " ", "\x00", "../../../../etc", "/", "*", "a\nb", "𝔪" * 300, "x" * 200_001, "#", "a#b"])
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


@st.composite
def _mutated(draw: st.DrawFn, seed: Any) -> Any:
    """`seed` with one to three parts replaced: a value by another, a key removed, or one nested deep."""
    document = copy.deepcopy(seed)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        document = _mutate(draw, document)
    return document


def _mutate(draw: st.DrawFn, value: Any) -> Any:
    children = list(value) if isinstance(value, dict) else list(range(len(value))) if isinstance(value, list) else []
    if not children or draw(st.integers(min_value=0, max_value=3)) == 0:
        how = draw(st.sampled_from(["value", "value", "deep", "drop"]))
        if how == "deep":  # about the 64-level limit (thousands of levels: `_raw`)
            deep: list[Any] = []
            for _ in range(draw(st.sampled_from([60, 70]))):
                deep = [deep]
            return deep
        if how == "drop" and children:
            value = copy.copy(value)
            del value[draw(st.sampled_from(children))]
            return value
        return draw(_VALUES)
    key = draw(st.sampled_from(children))
    value = copy.copy(value)
    value[key] = _mutate(draw, value[key])
    return value


def _raw(valid: bytes) -> st.SearchStrategy[bytes]:
    """Bytes a file may hold by mistake: the valid text cut short or with bytes that are not UTF-8, or noise."""
    return st.one_of(
        st.integers(min_value=0, max_value=len(valid)).map(lambda n: valid[:n]),
        st.tuples(
            st.integers(min_value=0, max_value=len(valid)),
            st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"]),
        ).map(lambda cut: valid[: cut[0]] + cut[1] + valid[cut[0] :]),
        st.binary(max_size=64),
        st.sampled_from([b"[" * 3000 + b"]" * 3000, b'{"a":' * 3000 + b"1" + b"}" * 3000]),
    )


def _as_json(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False, allow_nan=True).encode("utf-8", "surrogatepass")


def _as_yaml(document: Any) -> bytes:
    try:
        return yaml.safe_dump(document, allow_unicode=True, sort_keys=False).encode("utf-8", "surrogatepass")
    except (yaml.YAMLError, RecursionError):
        return _as_json(document)  # JSON is YAML too


def _seed(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _content(seed: Any, write: Callable[[Any], bytes] = _as_json) -> st.SearchStrategy[bytes]:
    return st.one_of(_mutated(seed).map(write), _raw(write(seed)))


@contextmanager
def _hang_alarm() -> Iterator[None]:
    def hang(_signum: int, _frame: object) -> None:
        raise AssertionError(f"the loader hung for {HANG_S} s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(HANG_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _loads_or_fails_in_one_line(load: Callable[[], object]) -> None:
    with _hang_alarm():
        try:
            result = load()
            if isinstance(result, Iterator):
                for _ in result:
                    pass
        except HarnessError as exc:
            message = str(exc)
            assert message, "an error says what is wrong"
            assert "\n" not in message, repr(message)


@contextmanager
def _folder(files: dict[str, bytes], copy_from: Path | None = None) -> Iterator[Path]:
    """A fresh folder per example (hypothesis runs many in one test): `copy_from`'s files, then `files`."""
    with tempfile.TemporaryDirectory(prefix="fuzz-") as temp:
        folder = Path(temp) / "suite"
        if copy_from is not None:
            shutil.copytree(copy_from, folder)
        folder.mkdir(exist_ok=True)
        for name, data in files.items():
            (folder / name).write_bytes(data)
        yield folder


_NATIVE = CASES / "builtin"


@FUZZ
@given(st.sampled_from(["corpus.json", "static.json", "session.json"]), st.data())
def test_native_suite_folders(name: str, data: st.DataObject) -> None:
    content = data.draw(_content(_seed(_NATIVE / name)))
    with _folder({name: content}, _NATIVE) as folder:
        _loads_or_fails_in_one_line(lambda: load_native(folder))


_TENURE = CASES / "tenure-format" / "head"


@FUZZ
@given(st.sampled_from([SEED, STATIC, SESSIONS]), st.data())
def test_tenure_folders(name: str, data: st.DataObject) -> None:
    content = data.draw(_content(_seed(_TENURE / name)))
    with _folder({name: content}, _TENURE) as folder:
        _loads_or_fails_in_one_line(lambda: load_tenure(folder))


_ACERVO = CASES / "conversation" / "builtin" / "salt-road.yaml"
_YAML_TEXT = st.one_of(
    st.text(alphabet="ab:-[]{}&*!|>'\"\n #%@`,?\t", max_size=60).map(str.encode),
    st.sampled_from(
        [b"a: &x [1]\nb: *x\n", b"[" * 5000 + b"]" * 5000, b"a: 1\na: 2\n", b"!!python/object:os.system x"]
    ),
)


@FUZZ
@given(st.one_of(_content(yaml.safe_load(_ACERVO.read_text(encoding="utf-8")), _as_yaml), _YAML_TEXT))
def test_yaml_files(content: bytes) -> None:
    with _folder({"turns.yaml": content}) as folder:
        _loads_or_fails_in_one_line(lambda: read_yaml(folder / "turns.yaml"))


@FUZZ
@given(st.one_of(_content(yaml.safe_load(_ACERVO.read_text(encoding="utf-8")), _as_yaml), _YAML_TEXT))
def test_acervo_folders(content: bytes) -> None:
    projects = CASES / "conversation" / "projects"
    with _folder({"turns.yaml": content}) as folder:
        _loads_or_fails_in_one_line(lambda: load_acervo(folder, projects=projects))


_TASKS = CASES / "code-tasks" / "builtin" / "dataset.json"


@FUZZ
@given(st.data())
def test_code_task_files(data: st.DataObject) -> None:
    content = data.draw(_content(_seed(_TASKS)))
    with _folder({"dataset.json": content}) as folder:
        _loads_or_fails_in_one_line(lambda: load_task_file(folder / "dataset.json", folder))


_LIFECYCLE = CASES / "lifecycle" / "builtin"


@FUZZ
@given(st.sampled_from(sorted(p.name for p in _LIFECYCLE.glob("*.json"))), st.data())
def test_mnemonic_and_lifecycle_files(name: str, data: st.DataObject) -> None:
    content = data.draw(_content(_seed(_LIFECYCLE / name)))
    with _folder({name: content}) as folder:
        _loads_or_fails_in_one_line(lambda: load_mnemonic(folder / name))


@FUZZ
@given(st.data())
def test_locomo_streams(data: st.DataObject) -> None:
    content = data.draw(_content([locomo_conversation()]))
    with _folder({"locomo10.json": content}) as folder:
        _loads_or_fails_in_one_line(lambda: LoCoMoFile(folder / "locomo10.json").read())
        _loads_or_fails_in_one_line(lambda: LoCoMoFile(folder / "locomo10.json").scan())
        _loads_or_fails_in_one_line(lambda: LoCoMoFile(folder / "locomo10.json").count())


@FUZZ
@given(st.data())
def test_longmemeval_streams(data: st.DataObject) -> None:
    content = data.draw(_content(longmemeval_records()))
    with _folder({"longmemeval_s.json": content}) as folder:
        _loads_or_fails_in_one_line(lambda: LongMemEvalFile(folder / "longmemeval_s.json").read())
        _loads_or_fails_in_one_line(lambda: LongMemEvalFile(folder / "longmemeval_s.json").scan())
        _loads_or_fails_in_one_line(lambda: LongMemEvalFile(folder / "longmemeval_s.json").count())


# -- what the pass found, each as its own regression test (the CLI's line, exit 2) ----------------


def test_a_yaml_turn_file_with_a_nul_is_one_line(cli, tmp_path: Path) -> None:
    """PyYAML's reader refuses control characters when the loader is made, which was outside the
    loader's `try`: a NUL in a turn file was a `ReaderError` traceback (then a two-line message)."""
    folder = tmp_path / "turns"
    folder.mkdir()
    (folder / "turns.yaml").write_bytes(b"name: x\x00\n")
    code, _, stderr = cli("run", "-s", f"acervo:{folder}", "-m", "bm25", "--out", str(tmp_path / "out"))
    assert code == 2, stderr
    assert one_line(stderr) == (
        f"harness: error: {folder / 'turns.yaml'}: invalid YAML: "
        "unacceptable character #x0000: special characters are not allowed"
    )


@pytest.mark.parametrize(("dataset", "name"), [("locomo", "locomo10.json"), ("longmemeval-s", "longmemeval_s.json")])
def test_a_cut_dataset_file_is_one_line(cli, tmp_path: Path, dataset: str, name: str) -> None:
    """ijson's parse errors span three lines (the message, the text, a caret): the run printed all
    three for a dataset file cut short."""
    path = tmp_path / name
    path.write_text('[{"question_id": "q', encoding="utf-8")
    code, _, stderr = cli("run", "--dataset", dataset, "--file", str(path), "-m", "bm25", "--out", str(tmp_path / "o"))
    assert code == 2, stderr
    line = one_line(stderr)
    assert line.startswith(f"harness: error: {path}: not valid JSON: "), line


@pytest.mark.parametrize(("dataset", "name"), [("locomo", "locomo10.json"), ("longmemeval-s", "longmemeval_s.json")])
def test_a_dataset_file_that_is_not_utf8_is_one_line(cli, tmp_path: Path, dataset: str, name: str) -> None:
    """ijson decodes each string as it parses it: bytes that are not UTF-8 inside one were a
    `UnicodeDecodeError` traceback."""
    path = tmp_path / name
    path.write_bytes(b'[{"question_id": "q\xed\xa0\x80"}]')
    code, _, stderr = cli("run", "--dataset", dataset, "--file", str(path), "-m", "bm25", "--out", str(tmp_path / "o"))
    assert code == 2, stderr
    assert one_line(stderr).startswith(f"harness: error: {path}: not UTF-8: "), stderr


# -- whole runs: the CLI on fuzzed suites ends with 0, 1 or 2, and a failure to load is one line ------

RUNS = settings(
    FUZZ,
    max_examples=6,
    suppress_health_check=[*FUZZ.suppress_health_check, HealthCheck.function_scoped_fixture],
)
"""Fewer examples than the loaders get: each is a whole `harness run` (in process, on embedded)."""


def _run_ends_cleanly(cli: Callable[..., tuple[int, str, str]], *args: str) -> None:
    with _hang_alarm():
        code, _, stderr = cli(*args)  # an exception other than SystemExit fails the test: a traceback
    assert code in (0, 1, 2), (code, stderr)
    assert "Traceback" not in stderr, stderr
    if code == 2:
        one_line(stderr)


@RUNS
@given(st.sampled_from(["corpus.json", "static.json", "session.json"]), st.data())
def test_runs_of_fuzzed_suite_folders(cli: Callable[..., tuple[int, str, str]], name: str, data: st.DataObject) -> None:
    content = data.draw(_content(_seed(_NATIVE / name)))
    with _folder({name: content}, _NATIVE) as folder:
        _run_ends_cleanly(cli, "run", "-s", str(folder), "-m", "bm25", "--out", str(folder / "out"))


@RUNS
@given(st.sampled_from(sorted(p.name for p in _LIFECYCLE.glob("*.json"))), st.data())
def test_runs_of_fuzzed_scenario_files(
    cli: Callable[..., tuple[int, str, str]], name: str, data: st.DataObject
) -> None:
    content = data.draw(_content(_seed(_LIFECYCLE / name)))
    with _folder({name: content}) as folder:
        _run_ends_cleanly(cli, "run", "-s", f"mnemonic:{folder / name}", "-m", "bm25", "--out", str(folder / "out"))
