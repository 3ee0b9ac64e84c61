"""`pytest --harness-system`: each system under test bound once per process and backend, on the run's
shared servers (an HTTP service's namespaces are dropped by the system itself when closed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.backends import registry
from harness.backends.base import Backend
from harness.systems.bound import BoundSystem, bind_on_engine
from harness.systems.registry import resolve

if TYPE_CHECKING:
    from harness.pytest_plugin.items import GroupRuns, ItemParam
    from harness.pytest_plugin.servers import Connections


class Systems:
    """Per process: the selected systems by name, each bound on a backend when an item first needs it."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self._bound: dict[tuple[str, str, bool], BoundSystem] = {}

    def bound(self, param: ItemParam, backend: Backend, connections: Connections, runs: GroupRuns) -> BoundSystem:
        """The item's system on its backend."""
        key = (param.system, param.backend, param.mode.needs_vectors)  # with the encoder only where a mode needs it
        if key not in self._bound:
            url = connections.url(param.backend) if registry.descriptor(param.backend).server else None
            embedder = runs.vectors([param.mode])
            bound = bind_on_engine(resolve(param.system), backend, param.backend, url, embedder, recorded=False)
            self._bound[key] = bound
        return self._bound[key]
