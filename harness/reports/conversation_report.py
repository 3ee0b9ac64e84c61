"""The conversation report: per mode, turn pass rates, scores per category and per component, the
category x component matrix, and efficiency from measured token counts (JSON, Markdown, the
scorecard, score sheets, and a chart).

Scores:
- a turn passes when every component it asserts holds;
- a component's score is the share of the turns asserting it where it held, overall and per
  category (the matrix);
- a category's score is Acervo's: the share of its turns whose context held the needed
  information, i.e. whose content checks held (turns asserting no content are not counted);
- efficiency is input tokens (cl100k_base): the scripted agent's reading and the whole history,
  each divided by this turn's context plus message; overall, sums over the turns divided.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import mean
from typing import Any

from harness.evaluation.kind import Report, RunInfo, Scorecard
from harness.models.conversation import Category, Component, ConversationSuite, TurnChecks
from harness.models.scoresheet import CaseScore, ScoreSheet
from harness.reports import tables

COMPONENTS = tuple(c.value for c in Component)
CATEGORIES = tuple(c.value for c in Category)


def _rate(flags: Sequence[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def summarize(results: Sequence[Any]) -> dict[str, Any]:
    """One mode's numbers from its turn results (errored turns count as failed in every asserted
    component, as a context that never came cannot hold anything)."""
    component: dict[str, list[bool]] = {c: [] for c in COMPONENTS}
    matrix: dict[str, dict[str, list[bool]]] = {cat: {c: [] for c in COMPONENTS} for cat in CATEGORIES}
    for r in results:
        asserted = r.components if r.error is None else {c: False for c in _asserted(r)}
        for name, held in asserted.items():
            component[name].append(held)
            matrix.setdefault(r.category, {c: [] for c in COMPONENTS})[name].append(held)
    categories = {}
    for cat, by_component in matrix.items():
        turns = [r for r in results if r.category == cat]
        categories[cat] = {
            "turns": len(turns),
            "passed": sum(r.passed for r in turns),
            "score": _rate(by_component[Component.CONTENT.value]),
            **{name: _rate(flags) for name, flags in by_component.items()},
        }
    measured = [r for r in results if r.error is None]
    with_agent = [r for r in measured if r.agent_tokens is not None]
    return {
        "turns": len(results),
        "passed": sum(r.passed for r in results),
        "errors": sum(r.error is not None for r in results),
        "pass_rate": _rate([r.passed for r in results]),
        "components": {name: _rate(flags) for name, flags in component.items()},
        "categories": categories,
        "mean_tokens": mean(r.tokens for r in measured) if measured else None,
        "max_tokens": max((r.tokens for r in measured), default=None),
        "efficiency": {
            "turns": len(measured),
            "agent_turns": len(with_agent),
            "agent_unanswered": sum(r.agent_answered is False for r in with_agent),
            "input_tokens": sum(r.input_tokens for r in measured),
            "history_tokens": sum(r.history_tokens for r in measured),
            "agent_tokens": sum(r.agent_tokens for r in with_agent),
            "agent_turns_input_tokens": sum(r.input_tokens for r in with_agent),
            "vs_history": _ratio(sum(r.history_tokens for r in measured), sum(r.input_tokens for r in measured)),
            "vs_agent": _ratio(sum(r.agent_tokens for r in with_agent), sum(r.input_tokens for r in with_agent)),
        },
    }


def _asserted(result: Any) -> list[str]:
    fields = TurnChecks.__dataclass_fields__
    checks = TurnChecks(**{k: v for k, v in result.expected.items() if k in fields})
    return [c.value for c in checks.components()]


def turn_efficiency(result: Any) -> dict[str, float | None]:
    """Per turn: the agent's and the history's tokens per token this turn sent."""
    if result.error is not None or not result.input_tokens:
        return {"vs_agent": None, "vs_history": None}
    return {
        "vs_agent": _ratio(result.agent_tokens, result.input_tokens) if result.agent_tokens is not None else None,
        "vs_history": _ratio(result.history_tokens, result.input_tokens),
    }


def build_report(
    suite: ConversationSuite,
    results: Sequence[Any],
    run: RunInfo,
    settings: Mapping[str, Any],
    fail_under: float | None = None,
) -> Report:
    """`settings`: what the scores depend on (context settings, limit, embedding model), as the
    report and its baselines record them."""
    backend = run.backend.backend
    modes = [m.value for m in run.modes]
    summaries = {mode: summarize([r for r in results if r.mode == mode]) for mode in modes}
    data = {
        "tokenizer": "cl100k_base",
        "dropped_fields": list(suite.dropped),
        "summary": summaries,
        "turns": [{**r.to_json(), **turn_efficiency(r)} for r in results],
    }
    view = run.envelope() | {"suite": suite.name, "settings": settings} | data
    gates = []
    for mode, summary in summaries.items():
        rate = summary["pass_rate"]
        if fail_under is not None and summary["turns"] and (rate or 0.0) < fail_under:
            gates.append(f"{backend} {mode}: turn pass rate {rate:.3f} is under --fail-under {fail_under}")
    return Report(
        stem=f"conversation-{backend}",
        data=data,
        markdown=markdown(view),
        scorecard=scorecard(backend, summaries, run),
        scores={
            mode: score_sheet(summary, [r for r in results if r.mode == mode]) for mode, summary in summaries.items()
        },
        settings={**settings, "tokenizer": "cl100k_base"},
        gates=gates,
        charts={"efficiency": lambda path: write_chart(view, path)},
    )


def score_sheet(summary: dict[str, Any], results: Sequence[Any]) -> ScoreSheet:
    overall = {"pass_rate": summary["pass_rate"] or 0.0}
    overall.update({f"component_{k}": v for k, v in summary["components"].items() if v is not None})
    for key in ("vs_agent", "vs_history"):  # tokens saved: higher is better, as every sheet measure
        if (ratio := summary["efficiency"][key]) is not None:
            overall[f"efficiency_{key}"] = ratio
    categories = {
        cat: {k: v for k, v in numbers.items() if k in ("score", *COMPONENTS) and v is not None}
        for cat, numbers in summary["categories"].items()
        if numbers["turns"]
    }
    cases = {r.item_id: CaseScore(passed=r.passed) for r in results}
    return ScoreSheet(overall=overall, categories=categories, cases=cases)


def _num(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _times(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}x"


SCORECARD_COLUMNS = (
    "backend",
    "mode",
    "turns",
    *CATEGORIES,
    *COMPONENTS,
    "errors",
    "mean tokens",
    "agent / ours",
    "history / ours",
)


def scorecard(backend: str, summaries: dict[str, dict[str, Any]], run: RunInfo) -> Scorecard:
    rows = []
    for mode, s in summaries.items():
        cats = [_num(s["categories"].get(c, {}).get("score")) for c in CATEGORIES]
        comps = [_num(s["components"][c]) for c in COMPONENTS]
        rows.append(
            [
                backend,
                mode,
                f"{s['passed']}/{s['turns']}",
                *cats,
                *comps,
                str(s["errors"]),
                _num(s["mean_tokens"], 0),
                _times(s["efficiency"]["vs_agent"]),
                _times(s["efficiency"]["vs_history"]),
            ]
        )
    for mode in run.unsupported:
        rows.append([backend, mode.value, "unsupported", *["–"] * (len(SCORECARD_COLUMNS) - 3)])
    caption = [
        "categories: share of turns whose context held the needed terms; components: share of turns "
        "asserting the component where it held; agent / history: their input tokens per token we send"
    ]
    return Scorecard("conversation turns", SCORECARD_COLUMNS, rows, caption)


def markdown(data: dict[str, Any]) -> str:
    lines = [f"# Conversation report: {data['suite']} on {data['backend']['backend']}", ""]
    lines += [f"Started {data['started_at']}, {data['wall_s']:.1f} s. Settings: `{data['settings']}`.", ""]
    for line in data["dropped_fields"]:
        lines.append(f"- dropped: {line}")
    for mode, s in data["summary"].items():
        e = s["efficiency"]
        lines += [
            f"## {mode}",
            "",
            f"{s['passed']}/{s['turns']} turns passed, {s['errors']} errors; mean context "
            f"{_num(s['mean_tokens'], 0)} tokens (max {s['max_tokens']}).",
            "",
            "| category | turns | passed | score | " + " | ".join(COMPONENTS) + " |",
            "|---|---:|---:|---:|" + "---:|" * len(COMPONENTS),
        ]
        for cat, c in s["categories"].items():
            row = [cat, str(c["turns"]), str(c["passed"]), _num(c["score"]), *(_num(c[k]) for k in COMPONENTS)]
            lines.append(tables.row(row))
        lines.append(
            "| all | "
            + f"{s['turns']} | {s['passed']} | – | "
            + " | ".join(_num(s["components"][k]) for k in COMPONENTS)
            + " |"
        )
        lines += [
            "",
            f"Efficiency (input tokens, cl100k_base): we sent {e['input_tokens']}, the whole history "
            f"{e['history_tokens']} ({_times(e['vs_history'])}); on the {e['agent_turns']} turns with answer terms "
            f"the scripted agent read {e['agent_tokens']} against our {e['agent_turns_input_tokens']} "
            f"({_times(e['vs_agent'])}; it never found the answer on {e['agent_unanswered']}).",
            "",
            "| turn | category | intent | tokens | sent | history | agent | agent steps | agent / ours | history / ours | result |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for t in (t for t in data["turns"] if t["mode"] == mode):
            verdict = "pass" if t["passed"] else "FAIL: " + "; ".join(t["reasons"])
            agent = t["agent_tokens"] if t["agent_tokens"] is not None else "–"
            lines.append(
                tables.row(
                    [
                        f"{t['scenario']}#{t['turn']}",
                        t["category"],
                        t["intent"] or "–",
                        t["tokens"],
                        t["input_tokens"],
                        t["history_tokens"],
                        agent,
                        len(t["agent_steps"]),
                        _times(t["vs_agent"]),
                        _times(t["vs_history"]),
                        verdict,
                    ]
                )
            )
        lines += ["", "Input tokens per turn (a text chart; `write_chart` draws the same as a PNG):", "", "```"]
        lines += text_chart([t for t in data["turns"] if t["mode"] == mode and t["error"] is None])
        lines += ["```", ""]
    return "\n".join(lines)


BAR_WIDTH = 40
_SERIES = (("ours", "input_tokens"), ("history", "history_tokens"), ("agent", "agent_tokens"))


def text_chart(turns: Sequence[dict[str, Any]]) -> list[str]:
    """Three bars per turn (ours, the whole history, the scripted agent), scaled to the largest."""
    top = max((t[key] or 0 for t in turns for _, key in _SERIES), default=0)
    width = max((len(f"{t['scenario']}#{t['turn']}") for t in turns), default=0)
    lines = []
    for t in turns:
        for position, (name, key) in enumerate(_SERIES):
            value = t[key]
            bar = "–" if value is None else "█" * round(BAR_WIDTH * value / top) if top else ""
            label = f"{t['scenario']}#{t['turn']}" if position == 0 else ""
            shown = "–" if value is None else str(value)
            lines.append(f"{label:<{width}}  {name:<7} {shown:>6} {bar}".rstrip())
    return lines


def write_chart(data: dict[str, Any], path: Path) -> Path:
    """Per turn of each mode, the tokens sent by us, the whole history and the scripted agent
    (log scale), with the overall ratios in the title; needs the `chart` extra."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = list(data["summary"])
    figure, axes = plt.subplots(
        len(modes), 1, figsize=(14, 3.5 * max(1, len(modes))), squeeze=False, constrained_layout=True
    )
    for axis, mode in zip(axes[:, 0], modes, strict=True):
        turns = [t for t in data["turns"] if t["mode"] == mode and t["error"] is None]
        xs = range(len(turns))
        width = 0.28
        axis.bar([x - width for x in xs], [t["input_tokens"] for t in turns], width, label="ours (context + message)")
        axis.bar(list(xs), [t["history_tokens"] for t in turns], width, label="whole history")
        axis.bar([x + width for x in xs], [t["agent_tokens"] or 0 for t in turns], width, label="scripted agent")
        axis.set_yscale("log")
        axis.set_ylabel("input tokens")
        axis.set_xticks(list(xs), [f"{t['scenario'][:8]}#{t['turn']}" for t in turns], rotation=90, fontsize=7)
        e = data["summary"][mode]["efficiency"]
        axis.set_title(
            f"{data['backend']['backend']} {mode}: agent / ours {_times(e['vs_agent'])}, history / ours {_times(e['vs_history'])}"
        )
        axis.legend(loc="upper left", fontsize=8)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
