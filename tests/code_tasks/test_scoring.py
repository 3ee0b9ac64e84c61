"""Surfaced recall by nano-brain's rule, from its definition (benchmarks/capability/runner.go)."""

from __future__ import annotations

from harness.metrics.surfaced import by_category, mean_recall, round3, surfaced_recall


def test_symbols_match_names_and_files_match_paths() -> None:
    scored = surfaced_recall(
        ["HybridSearch", "enqueue"],
        ["internal/search", "internal/mcp/tools.go"],
        names=["server.hybridsearchAll", "Queue.Enqueue"],
        paths=["INTERNAL/SEARCH/bm25.go", "internal/server/handlers"],
    )
    assert scored.matched == ("HybridSearch", "enqueue", "internal/search")
    assert scored.missed == ("internal/mcp/tools.go",)
    assert scored.recall == 3 / 4


def test_a_symbol_is_not_matched_by_a_path_nor_a_file_by_a_name() -> None:
    scored = surfaced_recall(["tools"], ["Enqueue"], names=["Enqueue"], paths=["internal/mcp/tools.go"])
    assert scored.recall == 0.0


def test_nothing_expected_is_full_recall() -> None:
    assert surfaced_recall([], [], names=[], paths=[]).recall == 1.0


def test_means_round_to_three_decimals_half_up() -> None:
    assert round3(0.8125) == 0.813
    assert round3(2 / 3) == 0.667
    assert mean_recall([1.0, 0.0, 0.0]) == 0.333
    assert mean_recall([]) == 0.0
    assert by_category({"trace": [0.0, 1.0], "flow": [1.0]}) == {"flow": 1.0, "trace": 0.5}
