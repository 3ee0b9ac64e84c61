"""The systems under test: the built-in ones, third parties' through the `harness.systems` entry
point group, and `http:URL` for a service in any language.

An entry point names a `SystemSpec` (or a function of no arguments returning one):
`[project.entry-points."harness.systems"] mine = "my_package.harness:SPEC"`. Its name is the
`--system` name; it may not shadow a built-in one.
"""

from __future__ import annotations

from importlib.metadata import entry_points

from harness.errors import HarnessError
from harness.messages import redacted
from harness.systems import http, mem0, popoto, reference
from harness.systems.protocol import REFERENCE, SystemSpec

GROUP = "harness.systems"
BUILTIN: tuple[SystemSpec, ...] = (reference.SPEC, popoto.SPEC, mem0.SPEC)


def _load(name: str, target: object) -> SystemSpec:
    found = target() if callable(target) and not isinstance(target, SystemSpec) else target
    if not isinstance(found, SystemSpec):
        raise HarnessError(f"system {name!r} (entry point group {GROUP}): not a SystemSpec but {type(found).__name__}")
    if found.name != name:
        raise HarnessError(f"system entry point {name!r} declares the system {found.name!r}: the names must agree")
    return found


def installed() -> dict[str, SystemSpec]:
    """Every named system: built-in first, then entry points in name order."""
    systems = {s.name: s for s in BUILTIN}
    for point in sorted(entry_points(group=GROUP), key=lambda p: p.name):
        if point.name in systems:
            raise HarnessError(f"system entry point {point.name!r} shadows a built-in system")
        try:
            target = point.load()
        except Exception as exc:  # noqa: BLE001 - a third party's import error, said in one line
            raise HarnessError(f"system {point.name!r} (entry point {point.value}) cannot load: {exc}") from None
        systems[point.name] = _load(point.name, target)
    return systems


def resolve(name: str) -> SystemSpec:
    """The system `--system NAME` names: `http:URL`, or a built-in or installed one."""
    if name.startswith(("http://", "https://")):  # a bare URL: `http://host` would read as `http:` and `//host`
        shown = redacted(name)
        raise HarnessError(
            f"--system {shown!r}: a service is named by {http.PREFIX} and its URL: --system {http.PREFIX}{shown}"
        )
    if name.startswith(http.PREFIX):
        return http.spec(name.removeprefix(http.PREFIX))
    if name == REFERENCE:
        return reference.SPEC
    systems = installed()
    if name not in systems:
        raise HarnessError(f"unknown system {name!r} (one of: {', '.join(systems)}, or http:URL)")
    return systems[name]
