"""Loading the embedding model a run names, before the run, with an exit code that says whose problem it is.

The rule: a name the user got wrong is bad input (exit 2): a path (it starts with `/`, `.` or `~`,
or names something on disk) that is not a loadable model folder, or a string that is not a valid
Hugging Face model id. A valid model id that cannot be loaded here is an unavailable resource
(exit 3): nothing is downloaded at run time, so it is not in the local cache (or the embed extra
is missing).
"""

from __future__ import annotations

from pathlib import Path

from harness.embeddings import Device, TextEncoder, load_encoder
from harness.errors import HarnessError, ModelUnavailable


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a model at all, or None: a missing path or an invalid model id."""
    path = Path(name).expanduser()
    if path.exists():
        return None
    if name.startswith(("/", ".", "~")):
        return f"no such model folder {name}"
    try:
        from huggingface_hub.utils import HFValidationError, validate_repo_id
    except ImportError:  # no embed extra: loading says so
        return None
    try:
        validate_repo_id(name)
    except HFValidationError as exc:
        return f"invalid model name {name!r}: {exc}"
    return None


def load_model(name: str, device: Device = Device.CPU) -> TextEncoder:
    """The loaded encoder, or one-line errors: exit 2 for a wrong name or folder, 3 for a model not available."""
    if (problem := name_problem(name)) is not None:
        raise HarnessError(problem)
    try:
        return load_encoder(name, device)
    except HarnessError as exc:
        if Path(name).expanduser().exists():
            raise HarnessError(f"{name} is not a loadable embedding model: {exc}") from None
        raise ModelUnavailable(
            f"embedding model {name!r} is not available here (nothing is downloaded): {exc}"
        ) from None
