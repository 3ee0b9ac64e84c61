"""Errors of the container layer, each one readable line for the CLI."""


class ContainerError(RuntimeError):
    """A backend container cannot be specified, built, started or reached."""


class DockerUnavailable(ContainerError):
    """No Docker engine answers, so nothing container-backed can run."""


def one_line(exc: BaseException) -> str:
    """First line of an exception's message, for one-line errors."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
