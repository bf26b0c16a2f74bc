"""Halide 21's undef(t): in an update definition, a value left unchanged.

`f[x] = ph.Tuple(f[x][0] + 1, ph.undef(f.type(1)))` updates value 0 only;
`f[x] = ph.undef(t)` stores nothing. pyhalide writes the current value at
the same site in its place (a store of the value already there). undef
anywhere else (inside an expression, in a pure definition) is refused, as
Halide refuses a value it cannot define.
"""
from __future__ import annotations

from . import ir
from .errors import CompileError
from .expr import Expr, to_node
from .source import at

__all__ = ["undef"]

_UNDEF = "undef"


def undef(t) -> Expr:
    """Halide's undef(t): see the module docstring."""
    return Expr.wrap(ir.Call(ir.as_type(t), _UNDEF, (), ir.INTRINSIC))


def _is_undef(n) -> bool:
    return isinstance(n, ir.Call) and n.name == _UNDEF and not n.args


def _has_undef(n) -> bool:
    """Whether an undef call is anywhere in n (each shared node walked once)."""
    return any(_is_undef(c) for c in ir.find_calls(n))


def resolve_undef(func, items, values, loc) -> tuple:
    """The values of the definition func[items] = values with each top-level
    undef replaced by func's current value at items; an undef elsewhere is
    a CompileError."""
    from .func import FuncRef
    nodes = [to_node(v) if isinstance(v, Expr) else None for v in values]
    if not any(n is not None and _has_undef(n) for n in nodes):
        return values
    name = func.name()
    if func.function().pure is None:
        raise CompileError(f"undef() in the pure definition of {name}: pyhalide needs every "
                           f"value of a Func defined{at(loc)}")
    if any(n is not None and not _is_undef(n) and _has_undef(n) for n in nodes):
        raise CompileError(f"undef() inside an expression in the update of {name}: it can only "
                           f"be a whole value (the value left unchanged){at(loc)}")
    ref = FuncRef(func, items)
    here = [ref] if len(values) == 1 else [ref[i] for i in range(len(values))]
    out = []
    for i, (v, n) in enumerate(zip(values, nodes)):
        if n is not None and _is_undef(n):
            t = func.function().output_types[i]
            if n.type != t:
                raise CompileError(f"undef({n.type}) as value {i} of {name}, which holds {t}"
                                   f"{at(loc)}")
            v = here[i]
        out.append(v)
    return tuple(out)
