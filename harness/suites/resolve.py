"""Turn a `--suite` argument into a loaded suite: `builtin`, `tenure:DIR` (the version detected
from the files), `tenure@paper:DIR` or `tenure@head:DIR` (named), or a suite folder; and the
conversation suites, which are another kind of case: `conversation:builtin` and `acervo:DIR`."""

from __future__ import annotations

import os
import re
from pathlib import Path

from harness.models import Suite
from harness.models.conversation import ConversationSuite
from harness.resources import data_root
from harness.suites.acervo import load_acervo
from harness.suites.native import load_native
from harness.suites.tenure import load_tenure

BUILTIN = "builtin"
_TENURE = re.compile(r"tenure(?:@(?P<version>[^:]*))?:(?P<dir>.*)", re.DOTALL)
CONVERSATION_BUILTIN = "conversation:builtin"
_ACERVO = re.compile(r"acervo:(?P<dir>.+)", re.DOTALL)


def cases_dir() -> Path:
    """`cases/` of the checkout or the installed package (override: HARNESS_CASES_DIR)."""
    override = os.environ.get("HARNESS_CASES_DIR")
    return Path(override) if override else data_root() / "cases"


def load_suite(spec: str) -> Suite:
    if spec == BUILTIN:
        return load_native(cases_dir() / "builtin", name=BUILTIN)
    if tenure := _TENURE.fullmatch(spec):
        return load_tenure(Path(tenure["dir"]).expanduser(), tenure["version"])
    return load_native(Path(spec).expanduser())


def load_conversation_suite(spec: str) -> ConversationSuite | None:
    """The conversation suite `spec` names (`conversation:builtin`: `cases/conversation/builtin`,
    turn files over the projects in `cases/conversation/projects`; `acervo:DIR`: an Acervo-format
    folder), or None when it names a belief suite."""
    if spec == CONVERSATION_BUILTIN:
        return load_acervo(cases_dir() / "conversation" / "builtin", name=CONVERSATION_BUILTIN)
    if acervo := _ACERVO.fullmatch(spec):
        return load_acervo(Path(acervo["dir"]).expanduser(), name=spec)
    return None
