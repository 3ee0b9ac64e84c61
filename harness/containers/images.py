"""Which image a backend runs, and building the local ones.

Where no registry answers, the harness runs images built here from Debian
packages; elsewhere it pulls the upstream images. The choice is explicit
(override > local build > registry) so a run's report can say what ran.
"""

import os
import subprocess
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import docker
from docker.errors import DockerException, ImageNotFound

from harness.messages import one_line

from .engine import docker_client
from .errors import ContainerError
from .spec import ContainerSpec, load_spec

DOCKER_DIR = "docker"
BASE_IMAGE_SCRIPT = "make-base-image.sh"

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BuildResult:
    backend: str
    tag: str
    built: bool
    seconds: float


def choose_image(spec: ContainerSpec, client: docker.DockerClient) -> str:
    """HARNESS_<BACKEND>_IMAGE if set, else the local build if present, else the registry image.

    The chosen image is made present (pulled if need be), failing with what to do.
    """
    override = os.environ.get(spec.image_override_var)
    if override:
        return _ensure_present(client, override, f"set by {spec.image_override_var}")
    if spec.local_image and _exists(client, spec.local_image):
        return spec.local_image
    hint = (
        f"run `harness images build` to build {spec.local_image} locally"
        if spec.local_image
        else f"{spec.name} has no local build; run it where a registry answers"
    )
    return _ensure_present(client, spec.image, hint)


def build_images(root: Path, backends: Iterable[str], progress: Progress, *, force: bool = False) -> list[BuildResult]:
    """Build each backend's local image from docker/<dockerfile>, base image first.

    An image that already exists is kept unless `force`.
    """
    specs = [load_spec(b, root) for b in backends]
    client = docker_client(timeout=600)
    try:
        todo = [s for s in specs if s.local_image and (force or not _exists(client, s.local_image))]
        if todo:
            ensure_base_image(root, progress)
        results = []
        for spec in specs:
            if spec.local_image is None or spec.dockerfile is None:
                progress(f"{spec.name}: no local build ({spec.image} is pulled where a registry answers)")
            elif spec not in todo:
                progress(f"{spec.name}: {spec.local_image} already built (force to rebuild)")
                results.append(BuildResult(spec.name, spec.local_image, False, 0.0))
            else:
                started = time.monotonic()
                _build(client, root / DOCKER_DIR / spec.dockerfile, spec.local_image, spec.name, progress)
                seconds = time.monotonic() - started
                progress(f"{spec.name}: built {spec.local_image} in {seconds:.1f}s")
                results.append(BuildResult(spec.name, spec.local_image, True, seconds))
        return results
    finally:
        client.close()


def ensure_base_image(root: Path, progress: Progress) -> None:
    """Run docker/make-base-image.sh (pull debian:trixie-slim, or debootstrap it)."""
    script = root / DOCKER_DIR / BASE_IMAGE_SCRIPT
    with subprocess.Popen(["bash", str(script)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None
        last = ""
        for line in proc.stdout:
            last = line.rstrip()
            progress(last)
    if proc.returncode != 0:
        raise ContainerError(f"base image: {last or f'{script} exited with {proc.returncode}'}")


def _build(client: docker.DockerClient, dockerfile: Path, tag: str, backend: str, progress: Progress) -> None:
    """Legacy-builder build through the API, streaming each Dockerfile step."""
    if not dockerfile.is_file():
        raise ContainerError(f"{backend}: Dockerfile {dockerfile} does not exist")
    tail: deque[str] = deque(maxlen=15)
    stream = client.api.build(
        path=str(dockerfile.parent), dockerfile=dockerfile.name, tag=tag, rm=True, forcerm=True, decode=True
    )
    for chunk in stream:
        if "error" in chunk:
            detail = "\n".join(tail)
            raise ContainerError(f"{backend}: building {tag} failed: {chunk['error'].strip()}\n{detail}")
        for line in chunk.get("stream", "").splitlines():
            tail.append(line)
            if line.startswith("Step "):
                progress(f"{backend}: {line}")


def _exists(client: docker.DockerClient, image: str) -> bool:
    try:
        client.images.get(image)
    except ImageNotFound:
        return False
    return True


def _ensure_present(client: docker.DockerClient, image: str, hint: str) -> str:
    if not _exists(client, image):
        try:
            client.images.pull(image)
        except DockerException as exc:
            raise ContainerError(f"image {image} is not here and cannot be pulled ({one_line(exc)}); {hint}") from exc
    return image
