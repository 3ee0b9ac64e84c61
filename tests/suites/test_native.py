"""The native suite loader: a valid folder loads; every bad input is one `CaseFileError` line
naming the file, the case (or memory) id and the field, as cases/README.md promises."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.models import AliasUpdate, MemoryType, Status
from harness.suites import load_suite
from harness.suites.native import load_native

from .builders import memory, write_suite
from .messages import assert_names, load_error

# -- a valid suite ------------------------------------------------------------------------------


def test_valid_suite_loads_every_record(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    folder = write_suite(tmp_path / "mini", suite_data)
    suite = load_native(folder)

    assert suite.name == "mini"
    assert suite.corpus.default_user == "u-ana"
    assert [m.id for m in suite.corpus.memories] == ["m-pg", "m-ts", "m-oq"]
    pg, ts, oq = suite.corpus.memories
    assert pg.name == "postgres_database"
    assert pg.aliases == ("postgres",)
    assert pg.scopes == ("domain:code",)
    assert pg.status is Status.ACTIVE
    assert pg.pinned is False
    assert pg.injectable
    assert ts.type is MemoryType.PREFERENCE
    assert ts.pinned is True
    assert ts.scopes == ("user:universal",)
    assert oq.type is MemoryType.OPEN_QUESTION

    assert [c.id for c in suite.static_cases] == ["s-alias", "s-empty"]
    alias, empty = suite.static_cases
    assert alias.user is None
    assert alias.scopes == ("domain:code",)
    assert alias.query == "postgres is slow"
    assert alias.expect.relevant.should_only_include == ("m-pg",)
    assert alias.expect.pinned.must_include == ("m-ts",)
    assert alias.expect.open_questions is None
    assert alias.budget is None
    assert empty.category == "design_boundary"
    assert empty.expect.relevant.should_only_include == ()  # empty list: nothing may surface, not "unasserted"

    assert [c.id for c in suite.session_cases] == ["sess-create", "sess-later"]
    created = suite.session_cases[0].turns[0].create
    assert created is not None
    assert created.id == "m-redis"
    assert created.aliases == ("redis",)
    later = suite.session_cases[1].turns[0]
    assert later.update == AliasUpdate(memory_id="m-redis", add_aliases=("cache layer",))
    assert later.expect.noise.must_not_surface == ("m-pg",)
    assert {p.name for p in suite.sources} == {
        "corpus.json",
        "static.json",
        "session.json",
    }


def test_session_file_is_optional(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    del suite_data["session"]
    suite = load_native(write_suite(tmp_path / "mini", suite_data))
    assert suite.session_cases == ()
    assert len(suite.static_cases) == 2


def test_session_case_may_name_a_memory_created_by_an_earlier_session_case(
    tmp_path: Path, suite_data: dict[str, Any]
) -> None:
    """README: session cases run in order and see memories created by the cases before them."""
    later = suite_data["session"]["cases"][1]["turns"][0]
    later["expect"] = {"relevant": {"should_only_include": ["m-redis"]}}
    suite = load_native(write_suite(tmp_path / "mini", suite_data))
    assert suite.session_cases[1].turns[0].expect.relevant.should_only_include == ("m-redis",)


def test_session_case_may_not_name_a_memory_created_by_a_later_one(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    cases = suite_data["session"]["cases"]
    cases.reverse()  # the update and expectation of m-redis now come before its creation
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "session.json"), "sess-later", "m-redis")


def test_builtin_suite_loads_with_at_least_60_static_cases() -> None:
    suite = load_suite("builtin")
    assert suite.name == "builtin"
    assert len(suite.static_cases) >= 60
    assert suite.corpus.memories


# -- files --------------------------------------------------------------------------------------


def test_missing_suite_folder(tmp_path: Path) -> None:
    message = load_error(load_native, tmp_path / "absent")
    assert_names(message, str(tmp_path / "absent"))


def test_missing_static_file(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    del suite_data["static"]
    folder = write_suite(tmp_path / "mini", suite_data)
    message = load_error(load_native, folder)
    assert_names(message, str(folder / "static.json"))


def test_missing_corpus_file(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    del suite_data["corpus"]
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "corpus.json"))


def test_malformed_json_names_line_and_column(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    folder = write_suite(tmp_path / "mini", suite_data)
    # the second comma on line 3 sits at column 17 (4 spaces + `{"id": "c1",` = 16 characters)
    (folder / "static.json").write_text('{\n  "cases": [\n    {"id": "c1",,}\n  ]\n}\n', encoding="utf-8")
    message = load_error(load_native, folder)
    assert_names(message, str(folder / "static.json"), "line 3", "column 17")


# -- records ------------------------------------------------------------------------------------


def test_unknown_field_in_a_case(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["static"]["cases"][1]["querry"] = "typo"
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "static.json"), "s-empty", "querry")


def test_unknown_field_nested_in_a_case_expectation(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["static"]["cases"][0]["expect"]["relevant"]["should_only_includes"] = ["m-pg"]
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(
        load_error(load_native, folder),
        str(folder / "static.json"),
        "s-alias",
        "expect.relevant.should_only_includes",
    )


def test_unknown_field_in_a_memory(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["corpus"]["memories"][1]["alias"] = ["ts"]
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "corpus.json"), "m-ts", "alias")


def test_unknown_field_in_a_created_memory(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["session"]["cases"][0]["turns"][0]["create"]["pinnned"] = True
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "session.json"), "sess-create", "pinnned")


def test_unknown_top_level_field_in_the_corpus(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["corpus"]["defaultUser"] = "u-ana"
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "corpus.json"), "defaultUser")


def test_empty_corpus(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["corpus"]["memories"] = []
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "corpus.json"), "memories")


@pytest.mark.parametrize(
    ("tier", "key"),
    [
        ("relevant", "should_only_include"),
        ("pinned", "must_include"),
        ("open_questions", "must_exclude"),
    ],
)
def test_expectation_naming_an_id_not_in_the_corpus(
    tmp_path: Path, suite_data: dict[str, Any], tier: str, key: str
) -> None:
    suite_data["static"]["cases"][1]["expect"] = {tier: {key: ["m-ghost"]}}
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(
        load_error(load_native, folder),
        str(folder / "static.json"),
        "s-empty",
        f"expect.{tier}.{key}",
        "m-ghost",
    )


def test_session_noise_naming_an_unknown_id(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["session"]["cases"][1]["turns"][0]["expect"]["noise"] = {"must_not_surface": ["m-ghost"]}
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(
        load_error(load_native, folder),
        str(folder / "session.json"),
        "sess-later",
        "must_not_surface",
        "m-ghost",
    )


def test_duplicate_case_id(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["static"]["cases"][1]["id"] = "s-alias"
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "static.json"), "s-alias", "duplicate")


def test_duplicate_session_case_id(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["session"]["cases"][1]["id"] = "sess-create"
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "session.json"), "sess-create", "duplicate")


def test_duplicate_memory_id(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["corpus"]["memories"].append(memory("m-pg", name="another_postgres"))
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "corpus.json"), "m-pg", "duplicate")


def test_session_create_of_an_existing_memory(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["session"]["cases"][0]["turns"][0]["create"]["id"] = "m-pg"
    suite_data["session"]["cases"][0]["turns"][0]["expect"] = {}
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "session.json"), "sess-create", "m-pg")


def test_session_update_of_an_unknown_memory(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["session"]["cases"][1]["turns"][0]["update"]["memory_id"] = "m-ghost"
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(
        load_error(load_native, folder),
        str(folder / "session.json"),
        "sess-later",
        "update.memory_id",
        "m-ghost",
    )


def test_relation_participant_must_exist(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["corpus"]["memories"].append(
        memory(
            "m-rel",
            type="relation",
            relation_type="depends_on",
            participants=["m-pg", "m-ghost"],
        )
    )
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "corpus.json"), "participants", "m-ghost")


def test_turn_indices_must_increase(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    turns = suite_data["session"]["cases"][0]["turns"]
    turns.append({**turns[0], "index": 0, "create": None, "expect": {}})
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "session.json"), "sess-create", "turn")


# -- scopes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", ["code", "domain:", "team:code", "user:ana"])
def test_bad_memory_scope_syntax(tmp_path: Path, suite_data: dict[str, Any], scope: str) -> None:
    """README: a memory scope is `domain:<x>` or `user:universal`, nothing else."""
    suite_data["corpus"]["memories"][0]["scopes"] = [scope]
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "corpus.json"), "m-pg", "scopes")


def test_memory_without_scopes(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["corpus"]["memories"][0]["scopes"] = []
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "corpus.json"), "m-pg", "scopes")


@pytest.mark.parametrize("scope", ["code", "domain:", "team:code"])
def test_bad_case_scope_syntax(tmp_path: Path, suite_data: dict[str, Any], scope: str) -> None:
    """A session scope that is not `domain:<x>` / `user:universal` can match no memory: a typo
    that would silently turn every expectation of the case into "nothing surfaces"."""
    suite_data["static"]["cases"][0]["scopes"] = [scope]
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "static.json"), "s-alias", "scopes")


def test_bad_turn_scope_syntax(tmp_path: Path, suite_data: dict[str, Any]) -> None:
    suite_data["session"]["cases"][1]["turns"][0]["scopes"] = ["code"]
    folder = write_suite(tmp_path / "mini", suite_data)
    assert_names(load_error(load_native, folder), str(folder / "session.json"), "sess-later", "scopes")
