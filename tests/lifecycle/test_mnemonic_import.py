"""The Mnemonic-format importer (peer-formats.md §3) on files written here: both kinds of
scenario, the generator's scores for events that omit them, folders, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import CaseFileError
from harness.evaluation.kinds.lifecycle.spec import LifecycleKind
from harness.models.memory import Label
from harness.models.scenario import MemoryState
from harness.suites.mnemonic import generator_scores, load_mnemonic
from tests.lifecycle.conftest import WordHashEmbedder
from tests.lifecycle.helpers import run_kind


def _memory(memory_id: str, label: str, summary: str, content: str, salience: float, **extra) -> dict:
    return {"id": memory_id, "label": label, "summary": summary, "content": content, "concepts": ["x"],
            "salience": salience, "state": "active", **extra}  # fmt: skip


DIRECT = {
    "source": "written for this test",
    "label_values": ["signal", "noise", "duplicate"],
    "retrieval": {"max_results": 5, "k": 5},
    "scenarios": [
        {
            "func": "scenarioGardening",
            "name": "gardening",
            "memories": [
                _memory("g1", "signal", "Tomatoes need staking in June", "Tie tomato stems to bamboo stakes when the plants reach knee height in June.", 0.8, age_minutes=600),
                _memory("g2", "signal", "Water tomatoes at the roots in the morning", "Morning watering at the roots keeps tomato leaves dry and blight away.", 0.7),
                _memory("g3", "duplicate", "Tomatoes need staking in June", "Tie tomato stems to bamboo stakes when the plants reach knee height in June, as usual.", 0.5, duplicate_of="g1", age_minutes=30),
                _memory("n1", "noise", "Bought a new watering can", "Green plastic, ten litres.", 0.35, age_minutes=400),
                _memory("n2", "noise", "Neighbour's cat sleeps in the shed", "Found it on the potting bench again.", 0.3, age_minutes=300),
            ],
            "associations": [{"source_id": "g2", "target_id": "g1", "strength": 0.7, "relation_type": "similar", "activation_count": 2}],
            "queries": [{"query": "when should tomatoes be staked", "expected_ids": ["g1"]},
                        {"query": "how to water tomato plants", "expected_ids": ["g2"]}],
            "counts": {"signal": 2, "noise": 2, "duplicate": 1, "associations": 1, "queries": 2},
        }
    ],
}  # fmt: skip

EVENTS = {
    "source": "written for this test",
    "scenarios": [
        {
            "func": "pipelineScenarioBaking",
            "name": "baking-day",
            "signal_ids": ["e2"],
            "raw_events": [
                {"id": "e1", "source": "terminal", "type": "command", "content": "ls recipes", "label": "noise"},
                {"id": "e2", "source": "mcp", "type": "learning", "content": "Sourdough needs a twelve hour cold proof for an open crumb", "label": "signal"},
                {"id": "e3", "source": "clipboard", "type": "copy", "content": "oven thermometer link", "label": "noise", "heuristic_score": 0.6, "initial_salience": 0.3},
            ],
            "queries": [{"query": "how long should sourdough proof", "expected_concepts": ["sourdough", "proof"]}],
            "counts": {"raw_events": 3, "signal": 1, "noise": 2, "queries": 1},
        }
    ],
}  # fmt: skip


def _write(path: Path, data: dict) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_direct_scenarios_load_with_every_field(tmp_path: Path) -> None:
    suite = load_mnemonic(_write(tmp_path / "direct.json", DIRECT))
    (scenario,) = suite.scenarios
    assert (scenario.name, scenario.raw, suite.max_results) == ("gardening", False, 5)
    by_id = {m.id: m for m in scenario.memories}
    assert by_id["g3"].label is Label.DUPLICATE
    assert by_id["g3"].duplicate_of == "g1"
    assert by_id["g1"].age_minutes == 600
    assert by_id["n1"].age_minutes == 400
    assert by_id["g1"].state is MemoryState.ACTIVE
    assert scenario.associations[0].activation_count == 2
    assert suite.warnings == ()


def test_raw_events_without_scores_get_the_generators(tmp_path: Path) -> None:
    suite = load_mnemonic(_write(tmp_path / "events.json", EVENTS))
    events = {e.id: e for e in suite.scenarios[0].raw_events}
    # positions are 1-based: e1 is noise at 1, e2 signal at 2; e3 keeps its own scores
    assert (events["e1"].heuristic_score, events["e1"].initial_salience) == pytest.approx((0.05 + 0.03, 0.1 + 0.05))
    assert (events["e2"].heuristic_score, events["e2"].initial_salience) == (0.85, 0.8)
    assert (events["e3"].heuristic_score, events["e3"].initial_salience) == (0.6, 0.3)
    assert generator_scores(5, Label.NOISE) == (0.05, 0.2)
    assert len(suite.warnings) == 1
    assert "2 raw events" in suite.warnings[0]


def test_a_folder_is_every_json_file_in_it(tmp_path: Path) -> None:
    _write(tmp_path / "a.json", DIRECT)
    _write(tmp_path / "b.json", EVENTS)
    suite = load_mnemonic(tmp_path)
    assert [s.name for s in suite.scenarios] == ["gardening", "baking-day"]
    _write(tmp_path / "c.json", DIRECT)
    with pytest.raises(CaseFileError, match="repeated across files"):
        load_mnemonic(tmp_path)


def _broken(change) -> dict:
    data = json.loads(json.dumps(DIRECT))
    change(data["scenarios"][0])
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["counts"].update(noise=3), "counts.noise is 3"),
        (lambda s: s["queries"].append({"query": "q", "expected_ids": ["zz"]}), "unknown ids"),
        (lambda s: s.update(raw_events=EVENTS["scenarios"][0]["raw_events"]), "exactly one"),
        (lambda s: s["memories"][0].update(label="gold"), "label"),
        (lambda s: s["memories"][3].update(duplicate_of="g1"), "duplicate_of"),
        (lambda s: s["associations"][0].update(target_id="nope"), "unknown memory"),
        (lambda s: s.update(colour="red"), "unknown field"),
    ],
)
def test_bad_scenarios_fail_in_one_line_naming_file_and_scenario(tmp_path: Path, change, message: str) -> None:
    path = _write(tmp_path / "bad.json", _broken(change))
    with pytest.raises(CaseFileError, match=message) as caught:
        load_mnemonic(path)
    assert "bad.json" in str(caught.value)
    assert "gardening" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_missing_folder_contents_and_bad_json_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match=r"no \*\.json"):
        load_mnemonic(tmp_path)
    (tmp_path / "x.json").write_text("{", encoding="utf-8")
    with pytest.raises(CaseFileError, match="invalid JSON"):
        load_mnemonic(tmp_path / "x.json")
    signal_ids = json.loads(json.dumps(EVENTS))
    signal_ids["scenarios"][0]["signal_ids"] = ["e1"]
    with pytest.raises(CaseFileError, match="signal_ids"):
        load_mnemonic(_write(tmp_path / "s.json", signal_ids))


def test_imported_scenarios_run_end_to_end(tmp_path: Path, embedded) -> None:
    _write(tmp_path / "a.json", DIRECT)
    _write(tmp_path / "b.json", EVENTS)
    kind = LifecycleKind(load_mnemonic(tmp_path), WordHashEmbedder())
    results, report = run_kind(kind, embedded)
    assert [r.error for r in results] == [None] * 6
    direct = next(r for r in results if r.scenario == "gardening" and r.mode == "hybrid")
    # the duplicate restates the older g1 nearly word for word: merged into it; the distinct signal is not
    assert (direct.states["g3"], direct.merged_into["g3"]) == ("merged", "g1")
    assert direct.states["g1"] in ("active", "fading")
    assert direct.states["g2"] in ("active", "fading")
    assert direct.lifecycle["dedup"] == 1.0
    events = next(r for r in results if r.scenario == "baking-day" and r.mode == "bm25")
    # e1's generator score (0.08) is under the encoding gate; e3's (0.6) is not
    assert set(events.states) == {"e2", "e3"}
    assert events.lifecycle["encoded"] == 2.0
    assert report.data["warnings"]
    assert report.scorecard.rows


def test_the_import_says_per_ruleset_what_it_cannot_judge(tmp_path: Path) -> None:
    """One line per field or scenario kind Mnemonic's code would judge otherwise, under the
    ruleset the run applies (Mnemonic's by default for mnemonic:PATH); none for our own suite."""
    from harness.evaluation.kinds import KindOptions, kinds_for
    from harness.evaluation.kinds.lifecycle.spec import LifecycleOptions
    from harness.pipeline.lifecycle.rules import RulesetName
    from harness.pipeline.settings import Mode

    _write(tmp_path / "a.json", DIRECT)
    _write(tmp_path / "b.json", EVENTS)

    def kind(spec: str, rules: RulesetName | None = None) -> LifecycleKind:
        own = {"lifecycle": LifecycleOptions(lifecycle_rules=rules)}
        (planned,) = kinds_for([spec], KindOptions([Mode.BM25]), own)
        return planned.kind

    def heads(k: LifecycleKind) -> list[str]:
        return [line.split(":")[0] for line in k.suite.warnings if "got the generator's" not in line]

    mnemonic = kind(f"mnemonic:{tmp_path}")
    assert mnemonic.rules.name == "mnemonic-8ecf3ab"
    assert heads(mnemonic) == [
        "raw-event scenarios (1)",
        "memories[].embedding",
        "consolidation",
        "phases",
        "label duplicate (1 memories)",
    ]
    harness = kind(f"mnemonic:{tmp_path}", RulesetName.HARNESS)
    assert harness.rules.name == "harness"
    assert heads(harness) == ["memories[].concepts", "associations[].activation_count", "label duplicate (1 memories)"]
    builtin = kind("lifecycle:builtin")
    assert (builtin.rules.name, builtin.suite.warnings) == ("harness", ())
