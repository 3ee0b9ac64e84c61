"""How many items the built-in suite of each kind makes on one backend and mode, counted from the
suites' own files (not from the plugin that collects them)."""

from __future__ import annotations

import json
from collections import Counter

from harness.suites import BUILTIN, load_suite
from harness.suites.code_tasks import load_builtin
from harness.suites.longmemeval import ABSTENTION_SUFFIX
from harness.suites.resolve import cases_dir, load_conversation, load_lifecycle


def builtin_items() -> Counter[str]:
    """Kind -> its built-in items: every belief case, every haystack question with evidence (an
    abstention question has none to find: no item), scenario, conversation turn and code task."""
    beliefs = load_suite(BUILTIN)
    questions = json.loads((cases_dir() / "haystack" / "builtin.json").read_text())
    return Counter(
        {
            "beliefs": len(beliefs.static_cases) + len(beliefs.session_cases),
            "haystack": sum(not q["question_id"].endswith(ABSTENTION_SUFFIX) for q in questions),
            "lifecycle": len(load_lifecycle("builtin").scenarios),
            "conversation": load_conversation("builtin").turns,
            "code-tasks": len(load_builtin("builtin").tasks),
        }
    )
