"""`harness doctor`: what this installation can run, what is missing, and the one command that fixes each.

The checks are derived, not listed by hand: the extras come from the installed package's own
metadata (pyproject's optional dependencies), the server backends from the backend registry and
their container specs. A user who reads "set up" in the README and still gets a skip or an exit 3
runs this to learn why. Nothing here starts, pulls or builds anything.
"""

from __future__ import annotations

import importlib.metadata as metadata
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from packaging.requirements import Requirement

from harness.backends import registry
from harness.resources import checkout_root, data_root, shared_datasets_dir

DISTRIBUTION = "memory-retrieval-harness"
SETUP = "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]'"
"""The README's set-up: every extra the tests and the README's examples use."""
START_ENGINE = "bash docker/start-engine.sh"
BUILD_IMAGES = "harness images build"


class Status(StrEnum):
    OK = "ok"
    MISSING = "missing"
    OPTIONAL = "optional"
    """Absent, and only some runs need it (a dataset, a registry image): reported, not a failure."""


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the doctor's table: what, its state, what was seen, and the command that fixes it."""

    name: str
    status: Status
    detail: str
    fix: str = ""


def checks() -> list[Check]:
    """Every check, in the order a user sets up: Python, extras, embeddings, Docker, images, data."""
    found = [_python(), *_extras(), _torch_build()]
    engine = _docker_engine()
    found.append(engine)
    if engine.status is Status.OK:
        found.extend(_images())
    found.append(_shared_datasets())
    return found


def healthy(found: list[Check]) -> bool:
    return all(c.status is not Status.MISSING for c in found)


def _python() -> Check:
    version = ".".join(map(str, sys.version_info[:3]))
    ok = sys.version_info >= (3, 11)
    return Check("python", Status.OK if ok else Status.MISSING, version, "" if ok else "use Python 3.11 or newer")


def _extras() -> Iterator[Check]:
    """One check for the core dependencies and one per extra: each requirement installed at a fitting version."""
    try:
        requirements = [Requirement(r) for r in metadata.requires(DISTRIBUTION) or []]
        extras = metadata.metadata(DISTRIBUTION).get_all("Provides-Extra") or []
    except metadata.PackageNotFoundError:
        yield Check("package", Status.MISSING, f"{DISTRIBUTION} is not installed (running from a path)", SETUP)
        return
    for extra in ["", *extras]:
        wanted = [r for r in requirements if _selected(r, extra)]
        problems = [p for r in wanted if (p := _problem(r)) is not None]
        name = f"extra [{extra}]" if extra else "core dependencies"
        if problems:
            fix = SETUP if checkout_root() else f"pip install '{DISTRIBUTION}[{extra or 'dev'}]'"
            yield Check(name, Status.MISSING, "; ".join(problems), fix)
        else:
            yield Check(name, Status.OK, f"{len(wanted)} requirement(s) installed")


def _selected(requirement: Requirement, extra: str) -> bool:
    """Whether the requirement belongs to this extra (`extra == "embed"` in its marker), or to the core for ""."""
    marker = requirement.marker
    if marker is None:
        return not extra
    in_core = marker.evaluate({"extra": ""})
    return in_core if not extra else marker.evaluate({"extra": extra}) and not in_core


def _problem(requirement: Requirement) -> str | None:
    """Why an installed environment does not meet one requirement, or None when it does."""
    try:
        version = metadata.version(requirement.name)
    except metadata.PackageNotFoundError:
        return f"{requirement.name} not installed"
    if requirement.specifier and not requirement.specifier.contains(version, prereleases=True):
        return f"{requirement.name} {version} does not satisfy {requirement.specifier}"
    return None


def _torch_build() -> Check:
    """Which torch build the embed extra runs on: a CUDA build on a machine without a GPU is gigabytes for nothing."""
    try:
        version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        return Check(
            "torch", Status.OPTIONAL, "not installed: vector modes use committed or cached vectors only", SETUP
        )
    cuda = sorted(d.metadata["Name"] for d in metadata.distributions() if d.metadata["Name"].startswith("nvidia-"))
    if cuda:
        return Check("torch", Status.OK, f"{version}, a CUDA build ({len(cuda)} nvidia-* packages installed)")
    return Check("torch", Status.OK, f"{version}, CPU build")


def _docker_engine() -> Check:
    try:
        from harness.containers.engine import docker_available
    except ImportError:
        return Check("docker engine", Status.MISSING, "the containers extra is missing", SETUP)
    reason = docker_available()
    if reason is None:
        return Check("docker engine", Status.OK, "answering")
    return Check(
        "docker engine",
        Status.MISSING,
        f"{reason}; the postgres, redis and valkey legs skip",
        START_ENGINE if shutil.which("apt-get") else "start Docker (Docker Desktop, or the docker service)",
    )


def _images() -> Iterator[Check]:
    """Per server backend in the default test run: its local build or registry image present."""
    from harness.containers import load_spec
    from harness.containers.engine import docker_client

    client = docker_client()
    try:
        present = {tag for image in client.images.list() for tag in image.tags}
    finally:
        client.close()
    for name in registry.servers():
        spec = load_spec(registry.container_spec(name), data_root())
        have = [i for i in (spec.local_image, spec.image) if i and _tagged(i) in present]
        needed = registry.descriptor(name).local
        if have:
            yield Check(f"image {name}", Status.OK, have[0])
        elif spec.local_image:
            status = Status.MISSING if needed else Status.OPTIONAL
            detail = f"neither {spec.local_image} nor {spec.image} is here"
            yield Check(f"image {name}", status, detail, f"{BUILD_IMAGES} (or docker pull {spec.image})")
        else:
            detail = f"{spec.image} is not here and has no local build (pytest --backend {name} pulls it)"
            yield Check(f"image {name}", Status.OPTIONAL, detail, f"docker pull {spec.image}")


def _tagged(image: str) -> str:
    return image if ":" in image.rsplit("/", 1)[-1] else f"{image}:latest"


def _shared_datasets() -> Check:
    folder = shared_datasets_dir()
    if folder.is_dir():
        return Check("public datasets", Status.OK, str(folder))
    return Check("public datasets", Status.OPTIONAL, f"{folder} is absent: dataset tests skip with the reason")
