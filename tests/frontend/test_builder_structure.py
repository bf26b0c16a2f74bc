"""The interpreter's structure (frontend_ast/__init__.py's module map): no
class of frontend_ast/ grows past ~40 methods, and the Builder is composed
of collaborators, not mixins."""
import ast
import pathlib

FRONTEND = pathlib.Path(__file__).resolve().parents[2] / "frontend_ast"


def _classes():
    for path in sorted(FRONTEND.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                yield path.name, node


def test_no_frontend_class_has_more_than_40_methods():
    big = [(f, c.name, n) for f, c in _classes()
           if (n := sum(isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                        for m in c.body)) > 40]
    assert big == []


def test_builder_is_composed_not_mixed_in():
    builder = next(c for f, c in _classes() if f == "builder.py" and c.name == "Builder")
    assert builder.bases == []
    assert not [c.name for _, c in _classes() if c.name.endswith("Mixin")]
