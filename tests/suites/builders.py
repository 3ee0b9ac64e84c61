"""Small native suites written to tmp_path, so each loader error can be provoked on its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def memory(memory_id: str, **fields: Any) -> dict[str, Any]:
    record = {
        "id": memory_id,
        "user": "u-ana",
        "type": "entity",
        "name": memory_id.replace("-", "_"),
        "aliases": [],
        "content": f"Payload of {memory_id}.",
        "scopes": ["domain:code"],
    }
    record.update(fields)
    return record


def valid_suite() -> dict[str, Any]:
    """A corpus of three memories, two static cases and two session cases; every id resolves."""
    return {
        "corpus": {
            "default_user": "u-ana",
            "memories": [
                memory("m-pg", name="postgres_database", aliases=["postgres"]),
                memory(
                    "m-ts",
                    type="preference",
                    name="typescript_strict",
                    pinned=True,
                    scopes=["user:universal"],
                ),
                memory(
                    "m-oq",
                    type="open_question",
                    name="hosting_choice",
                    scopes=["domain:code"],
                ),
            ],
        },
        "static": {
            "cases": [
                {
                    "id": "s-alias",
                    "scopes": ["domain:code"],
                    "query": "postgres is slow",
                    "expect": {
                        "relevant": {"should_only_include": ["m-pg"]},
                        "pinned": {"must_include": ["m-ts"]},
                    },
                },
                {
                    "id": "s-empty",
                    "category": "design_boundary",
                    "scopes": ["domain:writing"],
                    "query": "",
                    "expect": {"relevant": {"should_only_include": []}},
                },
            ]
        },
        "session": {
            "cases": [
                {
                    "id": "sess-create",
                    "turns": [
                        {
                            "index": 0,
                            "label": "establishes_topic",
                            "scopes": ["domain:code"],
                            "message": "add a redis cache",
                            "create": memory("m-redis", name="redis_cache", aliases=["redis"]),
                            "expect": {"relevant": {"should_only_include": ["m-redis"]}},
                        }
                    ],
                },
                {
                    "id": "sess-later",
                    "turns": [
                        {
                            "index": 0,
                            "label": "re_entry",
                            "scopes": ["domain:code"],
                            "message": "is the cache layer warm",
                            "update": {
                                "memory_id": "m-redis",
                                "add_aliases": ["cache layer"],
                            },
                            "expect": {
                                "relevant": {"must_include": ["m-redis"]},
                                "noise": {"must_not_surface": ["m-pg"]},
                            },
                        }
                    ],
                },
            ]
        },
    }


def write_suite(folder: Path, data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for key in ("corpus", "static", "session"):
        if key in data:
            (folder / f"{key}.json").write_text(json.dumps(data[key], indent=2), encoding="utf-8")
    return folder
