"""Errors of the container layer, each one readable line for the CLI."""


class ContainerError(RuntimeError):
    """A backend container cannot be specified, built, started or reached."""


class DockerUnavailable(ContainerError):
    """No Docker engine answers, so nothing container-backed can run."""
