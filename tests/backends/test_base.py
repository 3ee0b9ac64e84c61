"""The reference semantics of attributes and filters (`Filters.admits`), which every engine's
contract tests are checked against, and the checks of documents and filters against a spec."""

from __future__ import annotations

import pytest

from harness.backends.base import Absent, AnyOf, AttributeType, Eq, Filters, IndexDoc, IndexSpec, Present

SPEC = IndexSpec(
    {"body": 1.0},
    attributes={"owner": AttributeType.KEYWORD, "tags": AttributeType.KEYWORDS, "live": AttributeType.BOOLEAN},
)
TAGGED = IndexDoc("t", {"body": "x"}, {"owner": "ann", "tags": {"red", "blue"}, "live": False})
BARE = IndexDoc("b", {"body": "x"}, {"tags": set()})


def test_sets_become_frozensets_and_an_empty_set_is_absent() -> None:
    assert TAGGED.attributes["tags"] == frozenset({"red", "blue"})
    assert BARE.attributes == {}
    assert BARE.values("tags") == frozenset()
    assert TAGGED.values("owner") == frozenset({"ann"})


@pytest.mark.parametrize(
    ("condition", "tagged", "bare"),
    [
        (Eq("owner", "ann"), True, False),
        (Eq("owner", "bob"), False, False),
        (Eq("tags", "red"), True, False),  # one of its values
        (Eq("live", False), True, False),  # absent is not False
        (Eq("live", True), False, False),
        (AnyOf("tags", frozenset({"blue", "green"})), True, False),  # shares one value
        (AnyOf("tags", frozenset({"green"})), False, False),
        (AnyOf("owner", frozenset({"bob", "ann"})), True, False),
        (AnyOf("tags", frozenset()), False, False),  # an empty any-of admits nothing
        (Present("tags"), True, False),
        (Absent("tags"), False, True),
        (Present("live"), True, False),  # False is a value, not an absence
        (Absent("owner"), False, True),
    ],
)
def test_each_condition(condition, tagged: bool, bare: bool) -> None:
    assert Filters(condition).admits(TAGGED) is tagged
    assert Filters(condition).admits(BARE) is bare


def test_filters_are_a_conjunction() -> None:
    assert Filters().unrestricted
    assert Filters().admits(BARE)
    assert Filters(Eq("owner", "ann"), Present("tags")).admits(TAGGED)
    assert not Filters(Eq("owner", "ann"), Absent("tags")).admits(TAGGED)
    assert Filters(Present("owner"), AnyOf("tags", frozenset())).admits_nothing
    assert not Filters(Absent("owner")).admits_nothing


def test_spec_checks_documents_and_filters() -> None:
    SPEC.check_doc(TAGGED)
    with pytest.raises(ValueError, match="'colour' is not declared"):
        SPEC.check_doc(IndexDoc("c", {}, {"colour": "red"}))
    with pytest.raises(ValueError, match="'live' is boolean"):
        SPEC.check_doc(IndexDoc("c", {}, {"live": "yes"}))
    with pytest.raises(ValueError, match="'tags' is keywords"):
        SPEC.check_doc(IndexDoc("c", {}, {"tags": "red"}))
    SPEC.check_filters(Filters(Eq("live", True), AnyOf("tags", frozenset({"red"})), Absent("owner")))
    with pytest.raises(ValueError, match="does not declare"):
        SPEC.check_filters(Filters(Present("colour")))
    with pytest.raises(ValueError, match="'owner' is keyword"):
        SPEC.check_filters(Filters(Eq("owner", True)))
    with pytest.raises(ValueError, match="any-of needs a keyword"):
        SPEC.check_filters(Filters(AnyOf("live", frozenset({"1"}))))


def test_attribute_names_must_be_plain() -> None:
    with pytest.raises(ValueError, match="attribute name"):
        IndexSpec({"body": 1.0}, attributes={"_hidden": AttributeType.KEYWORD})
    with pytest.raises(ValueError, match="attribute name"):
        IndexSpec({"body": 1.0}, attributes={"a:b": AttributeType.KEYWORD})


def test_engines_get_the_accepted_values_in_one_order() -> None:
    assert Eq("live", False).accepted == [False]
    assert AnyOf("tags", frozenset({"red", "blue", "green"})).accepted == ["blue", "green", "red"]
