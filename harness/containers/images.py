"""Which image a backend runs, and building the local ones.

Where no registry answers, the harness runs images built here from Debian
packages; elsewhere it pulls the upstream images. The choice is explicit
(override > local build > registry) so a run's report can say what ran.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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
WHEELS = "wheels.txt"
"""In a build context: Python packages the image unpacks, fetched into its `wheels/` by the host's
pip (its index and certificates) before the build, so the build itself needs only Debian's mirror."""
_BASE = re.compile(r"^FROM\s+debian:([a-z]+)-slim\b", re.MULTILINE)

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
        for release in sorted(
            {r for s in todo if s.dockerfile for r in base_releases(root / DOCKER_DIR / s.dockerfile)}
        ):
            ensure_base_image(root, progress, release)
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


def base_releases(dockerfile: Path) -> list[str]:
    """The Debian releases whose slim images a Dockerfile builds FROM (trixie, bullseye, ...)."""
    try:
        return _BASE.findall(dockerfile.read_text(encoding="utf-8"))
    except OSError:
        return []


def ensure_base_image(root: Path, progress: Progress, release: str = "trixie") -> None:
    """Run docker/make-base-image.sh RELEASE (pull debian:RELEASE-slim, or debootstrap it)."""
    script = root / DOCKER_DIR / BASE_IMAGE_SCRIPT
    argv = ["bash", str(script), release]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
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
    with _context(dockerfile.parent, backend, progress) as context:
        stream = client.api.build(
            path=str(context), dockerfile=dockerfile.name, tag=tag, rm=True, forcerm=True, decode=True
        )
        for chunk in stream:
            if "error" in chunk:
                detail = "\n".join(tail)
                raise ContainerError(f"{backend}: building {tag} failed: {chunk['error'].strip()}\n{detail}")
            for line in chunk.get("stream", "").splitlines():
                tail.append(line)
                if line.startswith("Step "):
                    progress(f"{backend}: {line}")


@contextmanager
def _context(folder: Path, backend: str, progress: Progress) -> Iterator[Path]:
    """The build context: the Dockerfile's folder, or, where it lists wheels (`wheels.txt`), a
    temporary copy with them downloaded into `wheels/` (the checkout is never written to)."""
    if not (folder / WHEELS).is_file():
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="harness-build-") as tmp:
        context = Path(tmp) / "context"
        shutil.copytree(folder, context)
        progress(f"{backend}: pip download -r {WHEELS}")
        argv = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:"]
        done = subprocess.run(
            [*argv, "-r", str(folder / WHEELS), "-d", str(context / "wheels")],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or [f"pip exited with {done.returncode}"])[-1]
            raise ContainerError(f"{backend}: downloading the wheels in {folder / WHEELS} failed: {last}")
        yield context


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
