"""What an HTTP route registration looks like, for every language: a registering call named for
a method (`get`, `post`, ...) or for any method (`HandleFunc`, `route`, ...) and a path literal,
optionally prefixed by a method as Go 1.22's mux patterns are (`"GET /items/{id}"`)."""

from __future__ import annotations

import re

HTTP_METHODS = frozenset({"get", "post", "put", "delete", "patch", "head", "options"})
ANY_METHOD = frozenset({"handle", "handlefunc", "route", "api_route", "all", "any"})
_PATTERN = re.compile(r"^(?:(?P<method>[A-Z]+)\s+)?(?P<path>/\S*)$")


def registers_routes(callee: str) -> bool:
    """Whether a call of this name (`app.get`, `mux.HandleFunc`) can register a route."""
    verb = callee.rsplit(".", 1)[-1].lower()
    return verb in HTTP_METHODS or verb in ANY_METHOD


def route_title(callee: str, path: str, methods: tuple[str, ...] = ()) -> str | None:
    """`GET /items` for a registration through `callee` of the literal `path`; None when `path`
    is not a route. The method is the pattern's own, else the callee's, else `methods` (a
    `methods=[...]` argument), else ANY."""
    match = _PATTERN.match(path.strip())
    if match is None:
        return None
    verb = callee.rsplit(".", 1)[-1].lower()
    method = match["method"] or (
        verb.upper() if verb in HTTP_METHODS else "|".join(m.upper() for m in methods) or "ANY"
    )
    return f"{method} {match['path']}"
