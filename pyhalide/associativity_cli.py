"""`pyhalide assoc "EXPR"`: the associative operator of an update given as a
Python expression.

EXPR is the update's value over `f` (the previous value; `f[0]`, `f[1]` for
a tuple), `r` (the reduction index) and free names, each an input read at
`r`; a top-level tuple is a tuple update. `min`, `max`, `select`, `clamp`,
`abs` and the type names (`int32(e)`, ...) are available.
"""
from __future__ import annotations

import ast
import importlib
import time

import numpy as np

_FUNCTIONS = ("min", "max", "select", "clamp", "abs", "sqrt", "exp", "log", "is_nan")
_SOURCES = {"table": "table entry",
            "synthesized": "synthesized (split from the update, proven by Z3)",
            "polynomial": "synthesized (associativity proven as a polynomial identity)"}
_CASTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "bool")


def _names(tree) -> tuple:
    """(free input names in order of appearance, tuple size)."""
    names, size = [], 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in ("f", "r") + _FUNCTIONS + _CASTS \
                and node.id not in names:
            names.append(node.id)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                node.value.id == "f" and isinstance(node.slice, ast.Constant):
            size = max(size, int(node.slice.value) + 1)
    if isinstance(tree.body, ast.Tuple):
        size = max(size, len(tree.body.elts))
    return names, size


def _namespace(ph, f, r, inputs: dict, size: int) -> dict:
    ns = {name: getattr(ph, name) for name in _FUNCTIONS}
    for c in _CASTS:
        t = ph.Bool() if c == "bool" else np.dtype(c)
        ns[c] = (lambda t: lambda e: ph.cast(t, e))(t)
    ns.update({name: buf[r.x] for name, buf in inputs.items()})
    ns["r"] = r.x
    ns["f"] = f[()]
    return ns


def build_update(text: str, types: list):
    """A Func `f` with one update whose value is `text` (and the RDom)."""
    import pyhalide as ph
    tree = ast.parse(text.strip(), mode="eval")
    names, size = _names(tree)
    if len(types) == 1:
        types = types * size
    if len(types) != size:
        raise ValueError(f"the update has {size} values but {len(types)} types were given")
    r = ph.RDom([(0, 16)], "r")
    f = ph.Func("f")
    f[()] = tuple(ph.cast(t, 0) for t in types) if size > 1 else ph.cast(types[0], 0)
    inputs = {n: ph.Buffer(np.zeros(16, dtype=types[0]), n) for n in names}
    value = eval(compile(tree, "<assoc>", "eval"), {"__builtins__": {}},
                 _namespace(ph, f, r, inputs, size))
    f[()] = value
    return f


def explain(text: str, type_names: str) -> tuple:
    """(report text, whether the update is associative)."""
    import pyhalide as ph

    from .tables import match_index
    importlib.import_module("pyhalide.tables.matcher")      # loaded before the search is timed
    types = [np.dtype(t.strip()) for t in type_names.split(",")]
    f = build_update(text, types)
    start = time.perf_counter()
    for t in f.types():
        match_index.index_for(t)
    loaded = time.perf_counter() - start
    op = ph.prove_associativity(f.update())
    d = f.update().definition()
    lines = [f"update       f = {', '.join(ph.Expr.wrap(v).__str__() for v in d.values)}"]
    if not op.associative:
        lines.append(f"associative  no: {op.reason}")
    else:
        n = len(op.ops)
        for i in range(n):
            tag = f"[{i}]" if n > 1 else ""
            lines.append(f"operator{tag:4s} {op.ops[i]}")
        for i in range(n):
            tag = f"[{i}]" if n > 1 else ""
            lines.append(f"identity{tag:4s} {op.identities[i]}  ({op.identity_side} identity)"
                         if i == 0 else f"identity{tag:4s} {op.identities[i]}")
        lines.append(f"commutative  {'yes' if op.commutative else 'no'}")
        for i, y in enumerate(op.ys):
            if y is not None:
                lines.append(f"y{i:<11d} {y}")
    if op.associative:
        lines.append(f"source       {_SOURCES[op.source]}")
    lines.append(f"search time  {op.search_time * 1e3:.2f} ms "
                 f"(tables loaded before, in {loaded * 1e3:.1f} ms"
                 + (f"; synthesis {op.synthesis_time * 1e3:.1f} ms)" if op.synthesis_time
                    else ")"))
    return "\n".join(lines), op.associative
