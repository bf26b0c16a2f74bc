"""The Func graph of a pipeline: every Function, input image and scalar Param
reachable from the outputs, and a fingerprint of algorithm + schedule."""
from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

from . import ir
from .errors import CompileError


def _definition_exprs(d: ir.Definition):
    yield from d.args
    yield from d.values
    yield from d.predicates
    if d.exit is not None:
        yield d.exit
    for rv in d.schedule.rvars:
        yield rv.min
        yield rv.extent
    for s in d.schedule.splits:
        if s.factor is not None:
            yield s.factor


def _function_exprs(fn: ir.Function):
    for d in fn.definitions():
        yield from _definition_exprs(d)
    for b in fn.schedule.bounds:                  # Func.bound / align_bounds Exprs
        yield from (e for e in (b.min, b.extent, b.modulus, b.remainder) if e is not None)


def _variable_names(fn: ir.Function):
    """The names lowering renames in fn's definitions by name: its pure Vars,
    its RVars and the Vars its definitions' coordinates mention."""
    yield from fn.args
    for d in fn.definitions():
        yield from (rv.name for rv in d.schedule.rvars)
        for a in d.args:
            yield from (n for n, v in ir.free_vars(a).items() if v.kind != "param")


class _Params(ir.Visitor):
    def __init__(self):
        super().__init__()
        self.found = {}

    def visit_Variable(self, v):
        if v.kind == "param":
            self.found.setdefault(v.name, v)


def _params_in(e) -> dict:
    """name -> Variable of the Params `e` reads (ir.free_vars keeps one Variable
    per name, which may be a Var of the same name)."""
    p = _Params()
    p.visit(e)
    return p.found


class Graph:
    def __init__(self):
        self.env: dict = {}       # name -> ir.Function
        self.images: dict = {}    # name -> Buffer or ImageParam
        self.params: dict = {}    # name -> Param
        self.var_owner: dict = {}  # a Var's or RVar's name -> the first Func using it
        self.canonical: dict = {}  # token -> name, of the names fingerprint() made canonical
        self.canonical_buffers: dict = {}  # a Func's or image's name -> its token

    def _add_source(self, table, name, obj, what):
        old = table.get(name)
        if old is not None and old is not obj:
            raise CompileError(f"two different {what}s are named {name!r}")
        table[name] = obj

    def visit(self, fn: ir.Function):
        if fn.name in self.env:
            if self.env[fn.name] is not fn:
                raise CompileError(f"two different Funcs are named {fn.name!r}")
            return
        self.env[fn.name] = fn
        for name in _variable_names(fn):
            self.var_owner.setdefault(name, fn.name)
        for e in _function_exprs(fn):
            for c in ir.find_calls(e):
                if c.call_type == ir.FUNC and c.func is not None:
                    self.visit(c.func)
                elif c.call_type == ir.IMAGE:
                    self._add_source(self.images, c.name, c.func, "input image")
            for name, v in _params_in(e).items():
                if hasattr(v.param, "_geometry"):   # ImageParam geometry
                    self._add_source(self.images, v.param.name(), v.param, "input image")
                else:
                    self._add_source(self.params, name, v.param, "Param")

    # views for lowering ---------------------------------------------------------
    def image_names(self) -> list:
        return sorted(self.images)

    def param_names(self) -> list:
        return sorted(self.params)

    def input_images(self) -> list:
        return [ir.InputImage(n, self.images[n].type(), self.images[n].dimensions())
                for n in self.image_names()]

    def scalar_params(self) -> list:
        return [ir.ScalarParam(n, self.params[n].type()) for n in self.param_names()]

    # values at run time ---------------------------------------------------------
    def input_array(self, name: str) -> np.ndarray:
        src = self.images[name]
        if hasattr(src, "get"):
            buf = src.get()
            if buf is None:
                raise ValueError(f"ImageParam {name} is not set: call {name}.set(buffer)")
            return np.asarray(buf)
        return np.asarray(src)

    def param_value(self, name: str):
        value = self.params[name].get()
        if value is None:
            raise ValueError(f"Param {name} has no value: call .set(value)")
        return value


def collect_graph(outputs: list) -> Graph:
    g = Graph()
    for fn in outputs:
        g.visit(fn)
    _check_param_names(g)
    return g


def _check_param_names(g: Graph):
    """A Param named like a Var or RVar of a Func would be read as that Var
    (variables are identified by name in lowering, as in Halide, which then
    computes x + x for `f[x] = x + p` with p named "x"): refused."""
    for name in sorted(set(g.params) & set(g.var_owner)):
        raise CompileError(f"Param {name!r} has the name of a Var or RVar of Func "
                           f"{g.var_owner[name]!r}; the Param would be read as that "
                           f"variable: give one of them another name")


class _Names:
    """The canonical names of a graph: each name a token `\x00fN` (a Func) or
    `\x00vN` (a Var, RVar, let-bound name, input image or Param; the two
    kinds of names are apart, so a Func and a Var of one name get two
    tokens), numbered in the order the fingerprint first meets it, so two
    graphs equal up to their names get one fingerprint. The kernel takes its
    inputs and params in the order of their sorted names: the fingerprint
    lists their tokens in that order, so graphs whose names sort otherwise
    differ. An image's geometry (`a.extent.0`) is renamed with the image.
    Other strings (intrinsic names, messages, kinds) stay as they are; a
    graph that traces realizations keeps every name (the compiled code
    reports its Funcs by name)."""

    def __init__(self, graph: "Graph"):
        self.tokens: dict = {}        # (kind, name) -> token
        self.images = set(graph.images)
        self.on = not any(fn.schedule.trace_realizations for fn in graph.env.values())

    def _token(self, kind: str, name: str) -> str:
        if not self.on or not name:
            return name
        token = self.tokens.get((kind, name))
        if token is None:
            token = self.tokens[(kind, name)] = f"\x00{kind}{len(self.tokens)}"
        return token

    def func(self, name: str) -> str:
        return self._token("f", name)

    def var(self, name: str) -> str:
        head, dot, rest = name.partition(".")
        if dot and head in self.images:        # an image's geometry
            return self._token("v", head) + dot + rest
        return self._token("v", name)

    def canonical(self) -> dict:
        """token -> name."""
        return {t: name for (_, name), t in self.tokens.items()}


# the string fields of schedule entries and definitions that hold names
_NAME_FIELDS = {("LoopLevel", "func"): "func", ("LoopLevel", "var"): "var",
                ("Dim", "var"): "var", ("Split", "old"): "var", ("Split", "outer"): "var",
                ("Split", "inner"): "var", ("ReductionVariable", "name"): "var",
                ("FuncBound", "var"): "var", ("Definition", "rdom_name"): "var"}


def _node_digest(n: ir.IRNode, memo: dict, names: _Names) -> str:
    """A structural digest of an IR tree, computed once per shared node, so
    a DAG of shared subexpressions costs its number of nodes (its printed
    text can be exponentially longer), with the names of Funcs (calls),
    images, variables and lets canonical. Deterministic across processes."""
    hit = memo.get(id(n))
    if hit is not None and hit[0] is n:
        return hit[1]
    h = hashlib.sha256(type(n).__name__.encode())
    for name in ir.node_fields(type(n)):
        v = getattr(n, name)
        if name == "name" and isinstance(v, str):
            if isinstance(n, ir.Call):
                v = names.func(v) if n.call_type == ir.FUNC else \
                    names.var(v) if n.call_type == ir.IMAGE else v
            elif isinstance(n, (ir.Variable, ir.Let, ir.LetStmt)):
                v = names.var(v)
        h.update(b"|" + _field_text(v, memo, names).encode())
    out = h.hexdigest()[:32]
    memo[id(n)] = (n, out)
    return out


def _field_text(v, memo: dict, names: _Names) -> str:
    if isinstance(v, ir.IRNode):
        return _node_digest(v, memo, names)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_field_text(x, memo, names) for x in v) + "]"
    if v is None or isinstance(v, (str, int, float, bool, ir.Type)):
        return repr(v) if not isinstance(v, ir.Type) else str(v)
    name = getattr(v, "name", None)            # a Function, Param or ImageParam behind a node
    name = name() if callable(name) else name
    if isinstance(name, str):
        name = names.func(name) if isinstance(v, ir.Function) else names.var(name)
    return f"{type(v).__name__}:{name}"


def _sched_text(obj, memo: dict, names: _Names) -> str:
    if isinstance(obj, ir.IRNode):
        return _node_digest(obj, memo, names)
    if dataclasses.is_dataclass(obj):
        cls = type(obj).__name__
        parts = []
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            kind = _NAME_FIELDS.get((cls, f.name))
            if kind is not None and isinstance(v, str):
                parts.append(repr(getattr(names, kind)(v)))
            else:
                parts.append(_sched_text(v, memo, names))
        return cls + "(" + ",".join(parts) + ")"
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(_sched_text(x, memo, names) for x in obj) + "]"
    return repr(obj)


def fingerprint(outputs: list, graph: Graph) -> str:
    """A key that changes whenever the algorithm, a schedule or an input/param
    type changes, and not with the names of Funcs, Vars, RVars, images and
    Params (_Names): a pipeline built again (its Funcs named `f$1`, `f$2`,
    ...) has the key of the first. The names met are left in
    `graph.canonical` (token -> name) for the kernel's buffer, param and
    error names (realize.Pipeline._kernel, Kernel.with_names)."""
    h = hashlib.sha256()
    memo: dict = {}
    names = _Names(graph)
    h.update(",".join(names.func(fn.name) for fn in outputs).encode())
    for fn in graph.env.values():       # in the order collect_graph met them
        h.update(f"|{names.func(fn.name)}({','.join(map(names.var, fn.args))}):"
                 f"{fn.output_types}<{names.func(fn.factored_from)}".encode())
        h.update(_sched_text(fn.schedule, memo, names).encode())
        for d in fn.definitions():
            h.update(_sched_text(d, memo, names).encode())
    for img in graph.input_images():          # in the kernel's order: sorted by name
        h.update(f"|img {names.var(img.name)}:{img.type}:{img.dimensions}".encode())
    for p in graph.scalar_params():
        h.update(f"|param {names.var(p.name)}:{p.type}".encode())
    graph.canonical = names.canonical()
    graph.canonical_buffers = {name: t for (kind, name), t in names.tokens.items()
                               if kind == "f" or name in graph.images}
    return h.hexdigest()
