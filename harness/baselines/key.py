"""What a baseline is of (suite, backend, mode, and the system under test), and the file names that stay safe for any suite name.

Suite names come from users (`tenure:/abs/path`, a folder, a dataset name), so a file name is a
slug of it: lower-case letters, digits, `.`, `_` and `-`, and, whenever the slug is not the name
itself, a short hash of the name, so two names never share a file. The file also records the
names themselves, and loading checks them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from harness.systems.protocol import REFERENCE

_UNSAFE = re.compile(r"[^a-z0-9._-]+")
_SLUG_LENGTH = 60
"""Characters kept of a name before its hash: file names stay far under every file system's limit."""


def slug(name: str) -> str:
    """A file-name-safe form of `name`: itself when already safe, else a cleaned prefix plus its hash."""
    cleaned = _UNSAFE.sub("-", name.lower()).strip("-.")[:_SLUG_LENGTH].rstrip("-.")
    if cleaned == name:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{cleaned}-{digest}" if cleaned else digest


@dataclass(frozen=True, slots=True, order=True)
class BaselineKey:
    suite: str
    """The suite (or dataset, or scenario set) as runs name it: `builtin`, `tenure:DIR`, `locomo`, ..."""
    backend: str
    mode: str
    system: str = REFERENCE
    """The system under test; the reference system's baselines keep the names they had before systems."""

    def __str__(self) -> str:
        system = "" if self.system == REFERENCE else f" / {self.system}"
        return f"{self.suite} / {self.backend} / {self.mode}{system}"

    @property
    def folder(self) -> str:
        """The suite's folder under the baselines root (its baselines)."""
        return slug(self.suite)

    @property
    def file_name(self) -> str:
        system = "" if self.system == REFERENCE else f"--{slug(self.system)}"
        return f"{slug(self.backend)}-{slug(self.mode)}{system}.json"
