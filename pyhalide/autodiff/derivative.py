"""hl.propagate_adjoints and hl.Derivative (Halide 21's autodiff)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.errors import CompileError
from pyhalide.lowering.interval import Interval
from pyhalide.source import at, user_location

from .reverse import propagate


class Derivative:
    """The adjoints propagate_adjoints made: d[f] (the adjoint of f's pure
    definition), d[f, i] (after update i), d[buffer], d[param]; each a Func."""

    def __init__(self, adjoints: dict):
        self._adjoints = adjoints

    def __getitem__(self, key):
        from pyhalide.func import Func
        update = -1
        if isinstance(key, tuple):
            key, update = key
        if isinstance(key, Func):
            name = key.name()
        elif hasattr(key, "name"):
            name = key.name()
        else:
            raise TypeError(f"Derivative[...] takes a Func, (Func, update index), a Buffer or a "
                            f"Param, not {type(key).__name__}")
        f = self._adjoints.get((name, int(update)))
        if f is None:
            raise CompileError(f"Derivative: {name}" + (f" (update {update})" if update >= 0 else "")
                               + f" is not read by the differentiated output{at(user_location())}")
        return f

    def __repr__(self):
        return f"<halide.Derivative of {len(self._adjoints)} Funcs>"


def _index(v) -> ir.Expr:
    """A bound given as a Python int or an integer Expr, as an index Expr."""
    from pyhalide.expr import cast_node, to_node
    n = to_node(v)
    if not n.type.is_integer():
        raise TypeError(f"propagate_adjoints: a bound must be an integer, not {n.type}")
    return cast_node(ir.INDEX, n)


def propagate_adjoints(output, adjoint=None, output_bounds=None) -> Derivative:
    """Halide's propagate_adjoints(output), (output, adjoint Buffer) or
    (output, adjoint Func, bounds [(min, extent), ...]): the derivatives of
    the output with respect to every Func, buffer and Param it reads."""
    from pyhalide.boundary_conditions import constant_exterior
    from pyhalide.buffer import Buffer
    from pyhalide.func import Func
    from pyhalide.var import Var
    if not isinstance(output, Func) or not output.defined():
        raise CompileError(f"propagate_adjoints needs a defined Func{at(user_location())}")
    dims = output.dimensions()
    if adjoint is None:
        adjoint = Func("adjoint")
        args = [Var(a) for a in output.function().args]
        from pyhalide.expr import Expr
        adjoint[tuple(args)] = Expr.wrap(ir.one(output.type()))
        box = [Interval(ir.index(0), ir.index(0)) for _ in range(dims)]
    elif isinstance(adjoint, Buffer):
        if adjoint.dimensions() != dims:
            raise CompileError(f"propagate_adjoints: the adjoint Buffer has "
                               f"{adjoint.dimensions()} dimensions, the output {dims}")
        box = [Interval(ir.index(adjoint.dim(i).min()),
                        ir.index(adjoint.dim(i).min() + adjoint.dim(i).extent() - 1))
               for i in range(dims)]
        adjoint = constant_exterior(adjoint, 0.0)
    else:
        if not isinstance(adjoint, Func) or output_bounds is None:
            raise TypeError("propagate_adjoints takes (output), (output, adjoint Buffer) or "
                            "(output, adjoint Func, bounds)")
        if adjoint.dimensions() != dims or len(output_bounds) != dims:
            raise CompileError("output dimensions, adjoint dimensions and output_bounds must "
                               f"match{at(user_location())}")
        box = []
        for b in output_bounds:
            lo, ext = (b.min, b.extent) if hasattr(b, "extent") else b
            lo = _index(lo)
            box.append(Interval(lo, ir.Add(lo, _index(ext))))     # (as Halide: min + extent)
    return Derivative(propagate(output, adjoint, box))
