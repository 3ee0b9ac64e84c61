"""The code parsers beyond the sample project: HTTP routes (group prefixes and middleware, handler wrappers and factories,
local names standing for what they were assigned from, Python decorators) and functions held by class fields."""

from __future__ import annotations

from harness.pipeline.code_answer import split_route
from harness.suites.projects import python_code, tree_sitter_code
from harness.suites.projects.routes import route_title

GO_GROUPS = """package server

func register(s *Server) {
	s.echo.GET("/health", h.Health)
	api := s.echo.Group("/api/v1", jsonOnly())
	guard := auth.Guard(key)
	write := api.Group("/docs", requireWorkspace(s.db), guard)
	write.POST("", handlers.Save(s.store))
	write.DELETE("/:id", withLog(s.remove))
}
"""


def routes(parsed) -> dict[str, tuple[str, ...]]:
    return {p.name: p.calls for p in parsed.pieces if p.kind.value == "route"}


def test_go_groups_prefix_and_middleware() -> None:
    assert routes(tree_sitter_code.parse(GO_GROUPS, "go")) == {
        "GET /health": ("h.Health",),
        # `guard` stands for what it was assigned from (auth.Guard) and is kept as written too
        "POST /api/v1/docs": (
            "jsonOnly",
            "requireWorkspace",
            "s.db",
            "auth.Guard",
            "guard",
            "handlers.Save",
            "s.store",
        ),
        "DELETE /api/v1/docs/:id": (
            "jsonOnly",
            "requireWorkspace",
            "s.db",
            "auth.Guard",
            "guard",
            "withLog",
            "s.remove",
        ),
    }


def test_go_mux_method_pattern() -> None:
    source = 'package m\n\nfunc r(mux *http.ServeMux) { mux.Handle("PUT /items/{id}", put) }\n'
    assert routes(tree_sitter_code.parse(source, "go")) == {"PUT /items/{id}": ("put",)}


def test_express_routes_at_top_level_and_in_functions() -> None:
    source = """const api = express.Router();
api.get("/a", auth, (req, res) => { listA(); });
function mount(app) {
  app.delete("/b/:id", removeB);
}
"""
    assert routes(tree_sitter_code.parse(source, "javascript")) == {
        "GET /a": ("auth", "listA"),
        "DELETE /b/:id": ("removeB",),
    }


def test_a_string_that_is_not_a_path_registers_nothing() -> None:
    source = 'function f(cache) { cache.get("key", fallback); }\n'
    assert routes(tree_sitter_code.parse(source, "javascript")) == {}


def test_python_decorators() -> None:
    source = """
@app.route("/items", methods=["GET", "POST"])
def items():
    pass


@router.delete("/items/{id}")
async def drop(id):
    pass
"""
    assert routes(python_code.parse(source)) == {"GET|POST /items": ("items",), "DELETE /items/{id}": ("drop",)}


def test_route_titles() -> None:
    assert route_title("mux.HandleFunc", "/x") == "ANY /x"
    assert route_title("r.Post", "/x") == "POST /x"
    assert route_title("app.get", "key") is None
    assert split_route("GET /health") == ("GET", "/health")
    assert split_route("/health") == ("ANY", "/health")


def test_functions_held_by_class_fields_are_methods() -> None:
    source = "class Api { base = 1; handle = async (req) => { route(req); }; }\nfunction route(r) {}\n"
    for language in ("typescript", "javascript"):
        pieces = {p.name: p for p in tree_sitter_code.parse(source, language).pieces}
        assert set(pieces) == {"Api", "Api.handle", "route"}, language
        assert pieces["Api.handle"].calls == ("route",)
        assert pieces["Api.handle"].parent == "Api"
