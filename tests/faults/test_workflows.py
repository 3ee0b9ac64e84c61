"""The CI workflows pass a security review (zizmor, actionlint): every action pinned to a commit
with its version in a comment, no token permission by default and read-only contents per job, no
checkout credentials left in the workspace, matrix values reaching scripts only through `env:`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

WORKFLOWS = sorted((Path(__file__).parents[2] / ".github" / "workflows").glob("*.yml"))
PINNED = re.compile(r"^\s*-?\s*uses: [\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$")


@pytest.fixture(params=WORKFLOWS, ids=[p.name for p in WORKFLOWS])
def workflow(request: pytest.FixtureRequest) -> tuple[Path, str, dict]:
    text = request.param.read_text(encoding="utf-8")
    return request.param, text, yaml.safe_load(text)


def test_every_action_is_pinned_to_a_commit(workflow) -> None:
    _, text, _ = workflow
    uses = [line for line in text.splitlines() if "uses:" in line]
    assert uses
    for line in uses:
        assert PINNED.match(line), line


def test_permissions_are_least_privilege(workflow) -> None:
    _, _, data = workflow
    assert data["permissions"] == {}, "no permission by default"
    for name, job in data["jobs"].items():
        assert job.get("permissions") == {"contents": "read"}, name


def test_checkouts_keep_no_credentials(workflow) -> None:
    _, _, data = workflow
    for name, job in data["jobs"].items():
        for step in job["steps"]:
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False, name


def test_no_expression_is_expanded_into_a_script(workflow) -> None:
    _, _, data = workflow
    for name, job in data["jobs"].items():
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), f"{name}: {step['run']}"
