"""The import structure the layering in DESIGN.md asks for, read from the
ASTs of the sources (module-level and function-local imports alike):
no import cycle among frontend_ast's modules, the value modules in one order,
no private name imported from another module and no private attribute of
another module's objects read, lowering/ importing only
pyhalide.ir of the layers above it, and neither lowering/ nor frontend_ast/
importing the package face (`import pyhalide`)."""
from __future__ import annotations

import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
# source folder -> the package it installs as (pyproject.toml's package-dir)
PACKAGES = {"pyhalide": "pyhalide", "frontend_ast": "pyhalide.frontend_ast",
            "lowering": "pyhalide.lowering", "tables": "pyhalide.tables"}
# each imports only leftward
VALUE_MODULES = ["types", "values", "unions", "convert", "complex_values", "ops"]


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(ROOT)
    parts = [PACKAGES[rel.parts[0]], *rel.parts[1:-1]]
    if path.stem != "__init__":
        parts.append(path.stem)
    return ".".join(parts)


def _files():
    out = {}
    for folder in PACKAGES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            out[_module_name(path)] = path
    return out


FILES = _files()


def _imports_in(text: str, module: str, is_package: bool = False):
    """[(line, imported module, name or None)] of every import statement in
    the source of `module`, at any depth; `from package import submodule`
    names the submodule, `from module import name` the module and the name."""
    package = module if is_package else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in FILES:
                    out.append((node.lineno, sub, None))
                else:
                    out.append((node.lineno, source, alias.name))
    return out


@functools.lru_cache(maxsize=None)
def _imports(module: str):
    path = FILES[module]
    return _imports_in(path.read_text(), module, path.stem == "__init__")


def _package_graph(package: str) -> dict:
    """Module -> the modules of the same package it imports (short names)."""
    prefix = package + "."
    return {module[len(prefix):]: {m[len(prefix):] for _, m, _ in _imports(module)
                                   if m.startswith(prefix)}
            for module in FILES if module.startswith(prefix)}


@functools.lru_cache(maxsize=None)
def _frontend_graph() -> dict:
    return _package_graph("pyhalide.frontend_ast")


def _cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (or one
    importing itself), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


# ---- import cycles --------------------------------------------------------------------------
def test_the_checks_see_function_local_imports_and_cycles():
    text = ("from __future__ import annotations\n"
            "from . import ops\n"
            "def f():\n"
            "    from .convert import _py, cast\n"
            "    import pyhalide as ph\n")
    found = _imports_in(text, "pyhalide.frontend_ast.unions")
    assert (2, "pyhalide.frontend_ast.ops", None) in found
    assert (4, "pyhalide.frontend_ast.convert", "_py") in found
    assert (5, "pyhalide", None) in found
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"a"}}) == [["a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_frontend_import_cycle():
    assert _cycles(_frontend_graph()) == []


def test_no_lowering_import_cycle():
    assert _cycles(_package_graph("pyhalide.lowering")) == []


def test_value_modules_import_in_one_direction():
    graph = _frontend_graph()
    for i, module in enumerate(VALUE_MODULES):
        later = set(VALUE_MODULES[i:])
        assert not graph[module] & later, (module, graph[module] & later)
    # and none of them imports anything of the frontend but these and ranges.py
    for module in VALUE_MODULES:
        assert graph[module] <= set(VALUE_MODULES) | {"ranges"}, (module, graph[module])


# ---- private names --------------------------------------------------------------------------
def _private_imports(keep):
    return [(module, line, source, name) for module in FILES if keep(module)
            for line, source, name in _imports(module)
            if name and name.startswith("_") and not name.startswith("__")
            and source.startswith("pyhalide") and source != module]


def test_no_private_name_imported_from_another_module():
    assert _private_imports(lambda m: True) == []


def _add_definition(n, names: set):
    """The name node n defines in its module, if any: an attribute it
    assigns, a function, class or variable, a string argument of a call
    (__slots__ entries, attributes set by name)."""
    if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
        names.add(n.attr)
    elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        names.add(n.name)
    elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
        names.add(n.id)
    elif isinstance(n, ast.Call):
        names.update(a.value for a in n.args
                     if isinstance(a, ast.Constant) and isinstance(a.value, str))


def _private_reads_in(text: str) -> list:
    """`obj._name` reads where obj is not self/cls and the module defines no
    `_name` itself: another module's private attribute (by name: a guard,
    not a proof). One walk of the tree gathers both (it is most of the
    test's time)."""
    own, candidates = set(), []
    for n in ast.walk(ast.parse(text)):
        _add_definition(n, own)
        if isinstance(n, ast.Attribute) and n.attr.startswith("_") and \
                not n.attr.startswith("__") and \
                not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")):
            candidates.append(n)
    return [(n.lineno, ast.unparse(n)) for n in candidates
            if n.attr not in own and ast.unparse(n) != "sys._getframe"]


def _private_reads(keep) -> list:
    return [(module, *hit) for module, path in FILES.items() if keep(module)
            for hit in _private_reads_in(path.read_text())]


def test_the_private_read_finder_sees_one():
    text = "def f(p, q):\n    q._mine = 1\n    return p._specs, q._mine, self._x\n"
    assert _private_reads_in(text) == [(3, "p._specs")]


def test_no_private_attribute_of_another_module_read():
    assert _private_reads(lambda m: True) == []


# ---- layers ---------------------------------------------------------------------------------
def _within(module: str, packages) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _project_imports_outside(package: str, allowed) -> list:
    """Imports of pyhalide modules outside `allowed` by the modules of `package`."""
    return [(module, line, source, name) for module in FILES if _within(module, [package])
            for line, source, name in _imports(module)
            if _within(source, ["pyhalide"]) and not _within(source, allowed)]


def test_lowering_imports_only_the_ir_of_the_project():
    assert _project_imports_outside("pyhalide.lowering",
                                    ["pyhalide.ir", "pyhalide.lowering"]) == []


def test_tables_import_only_the_ir_of_the_project():
    assert _project_imports_outside("pyhalide.tables", ["pyhalide.ir", "pyhalide.tables"]) == []
    # the command line that runs them is a face (pyhalide/cli_tables.py)
    cli = [(module, line, source) for module in FILES if _within(module, ["pyhalide.tables"])
           for line, source, _ in _imports(module) if _within(source, ["typer", "rich", "click"])]
    assert cli == []


def _face_imports(keep):
    """Imports of the package face (pyhalide/__init__.py) itself: `import
    pyhalide`, `from pyhalide import Func`."""
    return [(module, line, name) for module in FILES if keep(module)
            for line, source, name in _imports(module) if source == "pyhalide"]


def test_lowering_and_frontend_do_not_import_the_package_face():
    assert _face_imports(lambda m: m.startswith(("pyhalide.lowering",
                                                 "pyhalide.frontend_ast"))) == []


def test_frontend_reaches_lowering_only_through_the_api():
    bad = [(module, line, source) for module in FILES
           if module.startswith("pyhalide.frontend_ast")
           for line, source, _ in _imports(module) if source.startswith("pyhalide.lowering")]
    assert bad == []


# ---- fields of the frontend's values ---------------------------------------------------------
# What the value modules compute with: a Val's fields, and the ones a Loop is
# given at construction. Outside the value modules they are passed to the
# constructors, never written on an object made elsewhere.
VALUE_FIELDS = {"node", "ty", "lo", "hi", "lbs", "ubs", "static", "const", "risky", "facts",
                "origin", "union", "pure_var", "val", "max_trip"}


def _foreign_writes_in(text: str, fields) -> list:
    """`obj.field = ...` (also augmented, in tuples, deleted) where obj is
    not self/cls and field is one of `fields`."""
    out = []
    for n in ast.walk(ast.parse(text)):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del)) \
                and n.attr in fields \
                and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")):
            out.append((n.lineno, ast.unparse(n)))
    return out


def test_the_field_write_finder_sees_one():
    text = "def f(v, w):\n    self.facts = 1\n    v.facts = 2\n    w.a, w.origin = 3, 4\n"
    assert _foreign_writes_in(text, {"facts", "origin"}) == [(3, "v.facts"), (4, "w.origin")]


def test_values_get_their_fields_at_construction():
    from pyhalide.frontend_ast.values import Val
    assert set(Val.__slots__) <= VALUE_FIELDS
    keep = {f"pyhalide.frontend_ast.{m}" for m in VALUE_MODULES}
    bad = [(module, *hit) for module, path in FILES.items()
           if module.startswith("pyhalide.frontend_ast.") and module not in keep
           for hit in _foreign_writes_in(path.read_text(), VALUE_FIELDS)]
    assert bad == []
