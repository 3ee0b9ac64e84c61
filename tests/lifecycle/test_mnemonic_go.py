"""Mnemonic's scenarios as it publishes them (cmd/benchmark-quality/scenarios.go), read without Go,
on our own file in that layout (cases/mnemonic-format/benchmark-quality/scenarios.go): every
field as written, noise rows expanded by their loop, and one-line refusals for what the reader
does not know."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from harness.errors import CaseFileError
from harness.models.memory import Label
from harness.suites.mnemonic import load_mnemonic
from harness.suites.resolve import cases_dir

FOLDER = cases_dir() / "mnemonic-format" / "benchmark-quality"


def test_the_go_layout_loads_as_written() -> None:
    suite = load_mnemonic(FOLDER)
    garden, bakery = suite.scenarios
    assert (garden.name, garden.func, bakery.name) == ("Garden Notes", "gardenScenario", "Bakery")
    memories = {m.id: m for m in garden.memories}
    assert list(memories) == ["gd-1", "gd-2", "noise-gd-1", "noise-gd-2", "noise-gd-3"]
    first = memories["gd-1"]
    assert (first.label, first.salience, first.age_minutes, first.concepts) == (
        Label.SIGNAL,
        0.8,
        120.0,
        ("tomato", "staking", "june"),
    )
    assert first.content == 'Tie stems to bamboo canes with soft twine, loosely: "figure eight" knots, never wire.'
    assert memories["gd-2"].content.startswith("Morning watering keeps leaves dry {and blight away}")
    # noise rows: 0.3 + (i % 3) x 0.05 and i x 20 minutes ago, their ids from the loop's Sprintf
    assert [(m.salience, m.age_minutes) for m in garden.memories[2:]] == [(0.3, 0.0), (0.35, 20.0), (0.4, 40.0)]
    assert memories["noise-gd-2"].summary == "Neighbour's cat asleep in the shed"
    assert [(m.id, m.salience, m.age_minutes) for m in bakery.memories[1:]] == [
        ("noise-bk-1", 0.42, 0.0),
        ("noise-bk-2", 0.37, 7.0),
    ]
    assert bakery.memories[0].content == "A long cold proof gives an open crumb \u2014 shorter proofs came out dense."
    (edge,) = garden.associations
    assert (edge.source_id, edge.target_id, edge.strength, edge.relation_type, edge.activation_count) == (
        "gd-2",
        "gd-1",
        0.7,
        "similar",
        2,
    )
    assert [(q.query, q.expected_ids) for q in garden.queries] == [
        ("When should tomatoes be staked", ("gd-1",)),
        ("How should tomato plants be watered", ("gd-2", "gd-1")),
    ]
    assert bakery.associations == ()
    assert suite.warnings == ()


def test_pipeline_scenarios_beside_it_get_a_line(tmp_path: Path) -> None:
    folder = tmp_path / "benchmark-quality"
    shutil.copytree(FOLDER, folder)
    (folder / "pipeline_scenarios.go").write_text("package main\n", encoding="utf-8")
    (line,) = load_mnemonic(folder).warnings
    assert line.startswith("pipeline_scenarios.go: its raw-event scenarios are built by Go code and not read")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("CreatedAt: now.Add(-2 * time.Hour)", "CreatedAt: yesterday()"), "gardenScenario(): CreatedAt 'yesterday()'"),
        (("0.3 + float32(i%3)*0.05", "math.Max(0.3, 0.1)"), "gardenScenario(): not arithmetic this reader knows"),
        (('fmt.Sprintf("noise-gd-%d", i+1)', "noiseID(i)"), "gardenScenario(): noise ID 'noiseID(i)'"),
        (("func allScenarios()", "func someScenarios()"), "no `func allScenarios() []scenario"),
        (("\t\tbakeryScenario(),\n", "\t\tbakeryScenario(),\n\t\torchardScenario(),\n"), "orchardScenario() is called"),
    ],
)
def test_what_the_reader_does_not_know_is_one_line(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    text = (FOLDER / "scenarios.go").read_text(encoding="utf-8")
    assert change[0] in text
    path = tmp_path / "scenarios.go"
    path.write_text(text.replace(change[0], change[1], 1), encoding="utf-8")
    with pytest.raises(CaseFileError, match=re.escape(message)) as caught:
        load_mnemonic(path)
    assert "scenarios.go" in str(caught.value)
    assert "\n" not in str(caught.value)
