"""The conversation report: per mode, turn pass rates, scores per category and per component, the
category x component matrix, per project, and efficiency from measured token counts and from the
suite's own estimates (JSON, Markdown, the scorecard, score sheets, and a chart).

Scores (the turn rules, `evaluation/turn_rules.py`, decide a turn's verdict and what counts):
- a turn passes as its rules say (strict: every asserted component holds; acervo-v0.5: its
  content checks hold, Acervo's effectiveness);
- a component's score is the share of the turns asserting it where it held, overall and per
  category (the matrix);
- a category's score is the share of its counted turns whose deciding content checks held, with
  how many turns it is out of (strict: the turns asserting content; acervo-v0.5: every turn);
- efficiency is input tokens (cl100k_base): the scripted agent's reading and the whole history,
  each divided by this turn's context plus message; overall, sums over the turns divided. Where
  the suite estimates an agent's input tokens (Acervo's `agent_comparison`), Acervo's own measure
  is reported beside it: the estimates' sum over the warm tokens we sent on those turns, per
  category, with the can-answer table (a stateless model, the agent, the memory).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import mean
from typing import Any

from harness.models.conversation import Category, Component, ConversationSuite, TurnChecks
from harness.models.scoresheet import CaseScore, ScoreSheet
from harness.reports import tables
from harness.reports.document import Report, RunInfo, Scorecard
from harness.reports.escape import md, md_code, md_fenced

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
        counted = [r for r in turns if r.counted]
        categories[cat] = {
            "turns": len(turns),
            "passed": sum(r.passed for r in turns),
            "out_of": len(counted),
            "held": sum(r.effective for r in counted),
            "score": _rate([r.effective for r in counted]),
            **{name: _rate(flags) for name, flags in by_component.items()},
            **_tokens(turns),
        }
    measured = [r for r in results if r.error is None]
    with_agent = [r for r in measured if r.agent_tokens is not None and r.agent_answered]
    estimated = [r for r in measured if _estimate(r) is not None]
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
            "agent_unanswered": sum(r.agent_answered is False for r in measured),
            "input_tokens": sum(r.input_tokens for r in measured),
            "history_tokens": sum(r.history_tokens for r in measured),
            "agent_tokens": sum(r.agent_tokens for r in with_agent),
            "agent_turns_input_tokens": sum(r.input_tokens for r in with_agent),
            "vs_history": _ratio(sum(r.history_tokens for r in measured), sum(r.input_tokens for r in measured)),
            "vs_agent": _ratio(sum(r.agent_tokens for r in with_agent), sum(r.input_tokens for r in with_agent)),
            "estimated_turns": len(estimated),
            "estimated_agent_tokens": sum(_estimate(r) or 0 for r in estimated),
            "estimated_turns_warm_tokens": sum(r.tokens for r in estimated),
            "acervo_ratio": _ratio(sum(_estimate(r) or 0 for r in estimated), sum(r.tokens for r in estimated)),
        },
        "can_answer": {
            cat: table for cat in CATEGORIES if (table := can_answer([r for r in results if r.category == cat]))
        },
        "projects": {
            name: _project([r for r in results if r.scenario == name])
            for name in dict.fromkeys(r.scenario for r in results)
        },
    }


def _estimate(result: Any) -> int | None:
    """The suite's estimate of an agent's input tokens for this turn (Acervo's `agent_comparison`)."""
    agent = (result.notes.get("agent_comparison") or {}).get("agent_with_tools") or {}
    value = agent.get("estimated_input_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mean(values: Sequence[int]) -> float | None:
    return mean(values) if values else None


def _tokens(turns: Sequence[Any]) -> dict[str, Any]:
    """Average tokens of a set of turns: ours (warm context), the scripted agent's measured
    reading (on the turns where it found the answer), and the suite's agent estimates, each over
    the turns that have it."""
    measured = [r for r in turns if r.error is None]
    agent = [r.agent_tokens for r in measured if r.agent_tokens is not None and r.agent_answered]
    estimates = [e for r in measured if (e := _estimate(r)) is not None]
    return {
        "mean_tokens": _mean([r.tokens for r in measured]),
        "agent_turns": len(agent),
        "agent_mean_tokens": _mean(agent),
        "estimated_turns": len(estimates),
        "estimated_agent_mean_tokens": _mean(estimates),
    }


def can_answer(turns: Sequence[Any]) -> dict[str, Any] | None:
    """Acervo's approach comparison for the turns with an agent estimate: how many a stateless
    model can answer (the suite's word), the agent with tools (Acervo assumes all; ours is
    measured: the scripted agent found the answer terms in the project), and the memory (the
    turns whose deciding content held), with average input tokens and steps."""
    rows = [r for r in turns if _estimate(r) is not None]
    if not rows:
        return None
    notes = [r.notes["agent_comparison"] for r in rows]
    steps = [len((n.get("agent_with_tools") or {}).get("tools") or []) for n in notes]
    measured = [r for r in rows if r.agent_tokens is not None]
    answered = [r for r in measured if r.agent_answered]
    return {
        "turns": len(rows),
        "stateless": sum(bool((n.get("stateless") or {}).get("can_answer")) for n in notes),
        "agent_estimate": {
            "answers": len(rows),
            "mean_tokens": mean(_estimate(r) or 0 for r in rows),
            "mean_steps": mean(steps),
        },
        "scripted_agent": {
            "turns": len(measured),
            "answers": len(answered),
            "mean_tokens": _mean([r.agent_tokens for r in answered]),
            "mean_steps": _mean([len(r.agent_steps) for r in answered]),
        },
        "memory": {
            "answers": sum(r.effective for r in rows),
            "mean_tokens": mean(r.tokens for r in rows),
            "ratio": _ratio(sum(_estimate(r) or 0 for r in rows), sum(r.tokens for r in rows)),
        },
    }


def _project(turns: Sequence[Any]) -> dict[str, Any]:
    """One scenario's (one project's) numbers."""
    counted = [r for r in turns if r.counted]
    measured = [r for r in turns if r.error is None and r.agent_tokens is not None and r.agent_answered]
    return {
        "turns": len(turns),
        "passed": sum(r.passed for r in turns),
        "out_of": len(counted),
        "held": sum(r.effective for r in counted),
        "score": _rate([r.effective for r in counted]),
        **_tokens(turns),
        "vs_agent": _ratio(sum(r.agent_tokens for r in measured), sum(r.input_tokens for r in measured)),
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
    rules: Mapping[str, Any] | None = None,
) -> Report:
    """`settings`: what the scores depend on (context settings, limit, embedding model), as the
    report and its baselines record them; `rules`: the turn rules the turns were judged by."""
    backend = run.backend.backend
    modes = [m.value for m in run.modes]
    summaries = {mode: summarize([r for r in results if r.mode == mode]) for mode in modes}
    data = {
        "tokenizer": "cl100k_base",
        "turn_rules": dict(rules or {}),
        "dropped_fields": list(suite.dropped),
        "not_judged": list(suite.unjudged),
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
        scorecard=scorecard(backend, summaries, run, (rules or {}).get("name")),
        scores={
            mode: score_sheet(summary, [r for r in results if r.mode == mode]) for mode, summary in summaries.items()
        },
        settings={**settings, "tokenizer": "cl100k_base"},
        gates=gates,
        charts={"efficiency": lambda path: write_chart(view, path)},
    )


def score_sheet(summary: dict[str, Any], results: Sequence[Any]) -> ScoreSheet:
    overall = {} if summary["pass_rate"] is None else {"pass_rate": summary["pass_rate"]}  # no turns: no rate
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


def _score(category: Mapping[str, Any] | None) -> str:
    """A category score with the turns it is out of: `0.85 (11/13)`."""
    if not category or category.get("score") is None:
        return "–"
    return f"{category['score']:.2f} ({category['held']}/{category['out_of']})"


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


def scorecard(backend: str, summaries: dict[str, dict[str, Any]], run: RunInfo, rules: str | None = None) -> Scorecard:
    rows = []
    for mode, s in summaries.items():
        cats = [_score(s["categories"].get(c)) for c in CATEGORIES]
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
        "categories: share of the counted turns whose context held the needed terms (held/out of); components: "
        "share of turns asserting the component where it held; agent / history: their input tokens per token we send"
    ]
    if rules:
        caption.append(f"turn rules: {rules} (--turn-rules)")
    return Scorecard("conversation turns", SCORECARD_COLUMNS, rows, caption)


def markdown(data: dict[str, Any]) -> str:
    lines = [f"# Conversation report: {md(data['suite'])} on {md(data['backend']['backend'])}", ""]
    lines += [f"Started {data['started_at']}, {data['wall_s']:.1f} s. Settings: {md_code(data['settings'])}.", ""]
    if rules := data.get("turn_rules"):
        own = {k: v for k, v in rules.items() if k != "name"}
        lines += [f"Turn rules: **{md(rules['name'])}** {md_code(own)}.", ""]
    for line in data["dropped_fields"]:
        lines.append(f"- dropped: {md(line)}")
    for line in data.get("not_judged", []):
        lines.append(f"- not judged: {md(line)}")
    for mode, s in data["summary"].items():
        e = s["efficiency"]
        lines += [
            f"## {md(mode)}",
            "",
            f"{s['passed']}/{s['turns']} turns passed, {s['errors']} errors; mean context "
            f"{_num(s['mean_tokens'], 0)} tokens (max {s['max_tokens']}).",
            "",
            "| category | turns | passed | score | held / out of | " + " | ".join(COMPONENTS) + " | "
            "mean tokens | agent mean (measured, turns) | agent mean (suite's estimate, turns) |",
            "|---|---:|---:|---:|---:|" + "---:|" * len(COMPONENTS) + "---:|---:|---:|",
        ]
        for cat, c in s["categories"].items():
            row = [
                cat,
                str(c["turns"]),
                str(c["passed"]),
                _num(c["score"]),
                f"{c['held']}/{c['out_of']}",
                *(_num(c[k]) for k in COMPONENTS),
                *_token_cells(c),
            ]
            lines.append(tables.row(row))
        lines.append(
            "| all | "
            + f"{s['turns']} | {s['passed']} | – | – | "
            + " | ".join(_num(s["components"][k]) for k in COMPONENTS)
            + f" | {_num(s['mean_tokens'], 0)} | – | – |"
        )
        lines += ["", *_projects(s["projects"]), *_can_answer(s["can_answer"])]
        lines += [
            "",
            f"Efficiency (input tokens, cl100k_base): we sent {e['input_tokens']}, the whole history "
            f"{e['history_tokens']} ({_times(e['vs_history'])}); on the {e['agent_turns']} turns where the scripted "
            f"agent found the answer terms (beyond the question's own words) in the project, it read "
            f"{e['agent_tokens']} against our {e['agent_turns_input_tokens']} ({_times(e['vs_agent'])}); it never "
            f"found them on {e['agent_unanswered']} (left out of the ratio).",
            "",
            *(
                [
                    f"Acervo's own measure (the suite's estimated agent input tokens over the warm tokens we sent, "
                    f"on the {e['estimated_turns']} turns with an estimate): {e['estimated_agent_tokens']} / "
                    f"{e['estimated_turns_warm_tokens']} = {_times(e['acervo_ratio'])}.",
                    "",
                ]
                if e["estimated_turns"]
                else []
            ),
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
        lines += ["", "Input tokens per turn (a text chart; `write_chart` draws the same as a PNG):", ""]
        lines += [*md_fenced(text_chart([t for t in data["turns"] if t["mode"] == mode and t["error"] is None])), ""]
    return "\n".join(lines)


def _token_cells(numbers: Mapping[str, Any]) -> list[str]:
    return [
        _num(numbers["mean_tokens"], 0),
        f"{_num(numbers['agent_mean_tokens'], 0)} ({numbers['agent_turns']})",
        f"{_num(numbers['estimated_agent_mean_tokens'], 0)} ({numbers['estimated_turns']})",
    ]


def _projects(projects: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Per project (scenario): turns, verdicts, score with what it is out of, tokens, agent ratio."""
    rows = [
        [
            name,
            p["turns"],
            p["passed"],
            _num(p["score"]),
            f"{p['held']}/{p['out_of']}",
            *_token_cells(p),
            _times(p["vs_agent"]),
        ]
        for name, p in projects.items()
    ]
    header = ["project", "turns", "passed", "score", "held / out of", "mean tokens", "agent mean (measured, turns)"]
    header += ["agent mean (suite's estimate, turns)", "agent / ours"]
    return [*tables.table(header, rows, "|---|---:|---:|---:|---:|---:|---:|---:|---:|"), ""]


def _can_answer(by_category: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Acervo's approach comparison, per category with agent estimates."""
    lines: list[str] = []
    for cat, t in by_category.items():
        n, scripted, memory = t["turns"], t["scripted_agent"], t["memory"]
        estimate = t["agent_estimate"]
        rows = [
            ["stateless model (the suite's word)", f"{t['stateless']}/{n}", "–", "–"],
            [
                "agent with tools (the suite's estimate; Acervo assumes it always answers)",
                f"{estimate['answers']}/{n}",
                _num(estimate["mean_tokens"], 0),
                _num(estimate["mean_steps"], 1),
            ],
            [
                "scripted agent (measured on the project)",
                f"{scripted['answers']}/{scripted['turns']}",
                _num(scripted["mean_tokens"], 0),
                _num(scripted["mean_steps"], 1),
            ],
            [
                "memory (ours: deciding content held; warm tokens)",
                f"{memory['answers']}/{n}",
                _num(memory["mean_tokens"], 0),
                "0",
            ],
        ]
        header = ["approach", "can answer", "mean input tokens", "mean steps"]
        lines += [
            f"Can answer, {md(cat)} ({n} turns with an agent estimate; Acervo's ratio {_times(memory['ratio'])}):",
            "",
        ]
        lines += [*tables.table(header, rows, "|---|---:|---:|---:|"), ""]
    return lines


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
