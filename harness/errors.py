"""Errors a user can cause and fix; the CLI prints them as one line and exits non-zero."""

from __future__ import annotations

from pathlib import Path


class HarnessError(Exception):
    """A user-facing failure: bad input, missing data, a backend that cannot start."""

    exit_code = 2


class CaseFileError(HarnessError):
    """A corpus or case file that does not parse or validate, located as precisely as known."""

    def __init__(self, path: Path | str, message: str, *, case_id: str | None = None, field: str | None = None):
        self.path = Path(path)
        self.message = message
        self.case_id = case_id
        self.field = field
        where = [str(self.path)]
        if case_id:
            where.append(f"case {case_id!r}")
        if field:
            where.append(field)
        super().__init__(f"{': '.join(where)}: {message}")

    @classmethod
    def missing(cls, path: Path | str, message: str) -> CaseFileError:
        """A path that is not there; a relative one also says where it was looked for, since the
        current folder is easy to mistake (a run started from another folder than the suite's)."""
        path = Path(path)
        if not path.is_absolute():
            message += f"; looked for {path.absolute()}, relative to the current folder {Path.cwd()}"
        return cls(path, message)


class BackendUnavailable(HarnessError):
    """A backend that cannot be reached or started (no engine, no image, no client library)."""

    exit_code = 3


class ModelUnavailable(HarnessError):
    """A well-formed embedding model name whose model cannot be loaded here (not cached offline, no extra)."""

    exit_code = 3


class HarnessWarning(UserWarning):
    """Something the user should know that does not stop the run; the CLI prints it as one line."""


class Interrupted(BaseException):
    """SIGINT or SIGTERM, raised by the CLI's signal handler.

    A BaseException like KeyboardInterrupt, so no `except Exception` swallows it and every `finally`
    (containers, namespaces) runs; typer turns KeyboardInterrupt into a silent exit 130, not this.
    `detail` says what was interrupted, added by whoever knows (the run and its partial report).
    """

    def __init__(self, signal_name: str, exit_code: int):
        super().__init__(signal_name)
        self.signal_name = signal_name
        self.exit_code = exit_code
        self.detail: str | None = None
