"""Hypothesis profiles (CI runs are reproducible and never spend minutes shrinking a failure),
the backends as markers, `any_backend`: each registered backend in turn, for tests that must give the same answer on all,
and pytest's own `pytester` (tests of the plugin run pytest in process)."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import Phase, settings

from harness.backends import registry
from harness.backends.base import Backend

pytest_plugins = ["pytester"]


def pytest_configure(config: pytest.Config) -> None:
    """This repository's tests mark themselves with backends (the plugin registers them only when
    its items run), so each backend is a marker from the start: `-m redis` and --strict-markers."""
    for name in registry.names():
        config.addinivalue_line("markers", f"{name}: runs on the {name} backend")


settings.register_profile(
    "ci",
    derandomize=True,
    print_blob=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
)
settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture(
    scope="module",
    params=[pytest.param(d.name, id=d.name, marks=getattr(pytest.mark, d.name)) for d in registry.DESCRIPTORS],
)
def any_backend(request: pytest.FixtureRequest, server_url) -> Iterator[Backend]:
    """Each registered backend in turn (a server backend only when selected with `--harness-backend`)."""
    name = request.param
    backend = registry.connect(name, server_url(name) if registry.descriptor(name).server else None)
    yield backend
    backend.close()
