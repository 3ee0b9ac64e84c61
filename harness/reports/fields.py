"""A report's envelope field names and its checksum's key, importing nothing: the page's process
(`html/child.py`) reads them without the types of `document.py`, whose imports cost that process
about 0.3 s of its 1.3 s. `document.py` says what each field holds."""

FIELDS = (
    "kind",
    "suite",
    "origin",
    "inputs",
    "backend",
    "modes",
    "unsupported_modes",
    "settings",
    "shard",
    "incomplete",
    "incomplete_reason",
    "harness_version",
    "git_commit",
    "started_at",
    "wall_s",
    "files",
    "scores",
    "system",
    "not_applicable",
    "view",
    "concurrency",
    "throughput",
    "rules",
)
CHECKSUM = "checksum"
"""The JSON file's last key: `checksum(document)` of the rest (an older report has none)."""
