"""Errors of the container layer, each one readable line for the CLI."""


class ContainerError(RuntimeError):
    """A backend container cannot be specified, built, started or reached."""


class DockerUnavailable(ContainerError):
    """No Docker engine answers, so nothing container-backed can run."""


class NoDockerEngine(DockerUnavailable):
    """No engine is there at all (its socket does not exist): no container can be running, so
    `harness down` has nothing to do rather than failing."""
