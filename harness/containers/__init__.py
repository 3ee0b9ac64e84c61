"""Backend containers: declarative specs, local images, start/ready/stop, clean-up."""

from .cleanup import Sweep, remove_all, remove_dead, remove_leftovers, remove_run
from .engine import docker_available, docker_client
from .errors import ContainerError, DockerUnavailable, NoDockerEngine
from .images import BuildResult, build_images, choose_image, ensure_base_image
from .runtime import RunningContainer, start_container
from .spec import ContainerSpec, available_specs, load_spec

__all__ = [
    "BuildResult",
    "ContainerError",
    "ContainerSpec",
    "DockerUnavailable",
    "NoDockerEngine",
    "RunningContainer",
    "Sweep",
    "available_specs",
    "build_images",
    "choose_image",
    "docker_available",
    "docker_client",
    "ensure_base_image",
    "load_spec",
    "remove_all",
    "remove_dead",
    "remove_leftovers",
    "remove_run",
    "start_container",
]
