"""A CI run as Markdown for the place reviewers look (GitHub's `$GITHUB_STEP_SUMMARY`, written by
`harness ci`): the verdict and the JUnit counts, each report's scorecard as a table, and the
baseline check's lines. Everything the run did not write itself (system, suite and case names,
reasons) goes through `tables`/`escape`, so a name cannot become markup or HTML on the page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.reports.document import Scorecard
from harness.reports.escape import md, md_code, md_fenced
from harness.reports.junit import Tally
from harness.reports.tables import table


def _counts(tally: Tally) -> str:
    rate = "no case ran" if tally.pass_rate is None else f"pass rate {tally.pass_rate:.1%}"
    return (
        f"{tally.tests} cases: {tally.passed} passed, {tally.failures} failed, {tally.errors} errored, "
        f"{tally.skipped} skipped ({rate})"
    )


def _scorecard(card: Scorecard) -> list[str]:
    return [
        f"### {md(card.title)}",
        "",
        *table(card.columns, card.rows),
        "",
        *(f"- {md(line)}" for line in card.caption),
    ]


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def summary_markdown(
    exit_code: int,
    scorecards: Sequence[Scorecard],
    problems: Sequence[str],
    regressed: Mapping[str, int],
    baseline_lines: Sequence[str],
    tally: Tally,
) -> str:
    """The summary of one run: `problems` are the run's own failure lines (errors, gates), `regressed`
    the baselines whose check failed, each with how many of its cases regressed (the step's
    `regressed-baselines` and `regressed-cases`), `baseline_lines` everything the check said."""
    verdict = "passed" if exit_code == 0 else f"failed (exit {exit_code})"
    lines = ["## memory-retrieval-harness: " + verdict, "", _counts(tally), ""]
    if regressed:
        cases = _many(sum(regressed.values()), "case")
        lines += [f"**Regressed against the baseline**: {cases} in {_many(len(regressed), 'baseline')}", ""]
        lines += [f"- {md_code(key)}: {_many(n, 'case')} regressed" for key, n in regressed.items()] + [""]
    lines += [f"- {md(problem)}" for problem in problems] + ([""] if problems else [])
    for card in scorecards:
        lines += [*_scorecard(card), ""]
    if baseline_lines:
        lines += ["### Baselines", "", *md_fenced(list(baseline_lines)), ""]
    return "\n".join(lines)


def stopped_markdown(exit_code: int, line: str) -> str:
    """The summary of a run that stopped before it reported (bad input, a missing baseline, a lost engine)."""
    return f"## memory-retrieval-harness: stopped (exit {exit_code})\n\n{md(line)}\n"
