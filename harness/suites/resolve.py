"""Turn a `--suite` argument into a loaded suite: `builtin`, `tenure:DIR` (the version detected
from the files), `tenure@paper:DIR` or `tenure@head:DIR` (named), or a suite folder; a
built-in lifecycle set (`lifecycle:builtin`) into its scenarios; and the built-in conversation
suite (`conversation:builtin`) into its turn files over its projects."""

from __future__ import annotations

import os
import re
from pathlib import Path

from harness.errors import HarnessError
from harness.models import Suite
from harness.models.conversation import ConversationSuite
from harness.models.scenario import LifecycleSuite
from harness.resources import data_root
from harness.suites.acervo import load_acervo
from harness.suites.mnemonic import load_mnemonic
from harness.suites.native import load_native
from harness.suites.tenure import load_tenure

BUILTIN = "builtin"
_TENURE = re.compile(r"tenure(?:@(?P<version>[^:]*))?:(?P<dir>.*)", re.DOTALL)


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


def load_lifecycle(name: str) -> LifecycleSuite:
    """A built-in set of lifecycle scenarios (`cases/lifecycle/<name>/`); only `builtin` so far."""
    if name != BUILTIN:
        raise HarnessError(
            f"lifecycle:{name}: no such built-in scenario set (lifecycle:builtin; mnemonic:PATH for yours)"
        )
    return load_mnemonic(cases_dir() / "lifecycle" / BUILTIN, name=f"lifecycle:{BUILTIN}")


def load_conversation(name: str) -> ConversationSuite:
    """A built-in conversation suite: turn files in `cases/conversation/<name>/` over the projects
    in `cases/conversation/projects/`; only `builtin` so far."""
    if name != BUILTIN:
        raise HarnessError(
            f"conversation:{name}: no such built-in conversation suite (conversation:builtin; acervo:DIR for yours)"
        )
    return load_acervo(cases_dir() / "conversation" / BUILTIN, name=f"conversation:{BUILTIN}")
