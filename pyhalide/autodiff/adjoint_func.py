"""An adjoint Func under construction: its definitions are collected while
the adjoints propagate (a later step may replace them, as Halide's
propagate_adjoints redefines the adjoint of an earlier update when it masks
the points the update overwrites) and given to the Func at the end."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.expr import Expr


class AdjointFunc:
    """The adjoint of one definition of a Func, or of a buffer or Param:
    a Func named `name` over the pure Vars `args` (names) with values of
    `types`; `pure` holds the pure definition's values, `updates` the
    updates as (lhs, values, overwrite): `f[lhs] = values` when overwrite,
    else `f[lhs] += values`."""

    def __init__(self, name: str, args: list, types: tuple):
        from pyhalide.func import Func
        self.func = Func(name)
        self.args = list(args)
        self.types = tuple(types)
        self.pure = [ir.zero(t) for t in self.types]
        self.updates: list = []

    def call(self, args, index: int = 0) -> ir.Call:
        """A call to this adjoint Func at `args` (ir Exprs)."""
        fn = self.func.function()
        return ir.Call(self.types[index], fn.name, tuple(args), ir.FUNC, index, fn)

    def arg_vars(self) -> list:
        return [ir.Variable(ir.INDEX, a) for a in self.args]

    def reset(self, pure_values: list) -> None:
        """Drop every definition: the pure values are `pure_values`."""
        self.pure, self.updates = list(pure_values), []

    def add(self, lhs: list, value, index: int, overwrite: bool) -> None:
        """`f[lhs][index] += value` (or `= value` when overwrite), merged into
        the last definition when that has the same left side and neither
        reduces (as Halide merges them)."""
        has_rvars = any(v.kind == "rvar" for v in ir.free_vars(list(lhs) + [value]).values())
        last_lhs = self.updates[-1][0] if self.updates else self.arg_vars()
        last_values = self.updates[-1][1] if self.updates else self.pure
        last_reduces = any(v.kind == "rvar" for v in
                           ir.free_vars(list(last_lhs) + [x for x in last_values if x is not None]).values())
        if not has_rvars and not last_reduces and len(lhs) == len(last_lhs) and \
                all(ir.equal(a, b) for a, b in zip(lhs, last_lhs)):
            last_values[index] = value if overwrite else ir.Add(last_values[index], value)
            if overwrite and self.updates:
                self.updates[-1][2] = True      # (`+= a` then `= b` is `= b`)
            return
        values = [None] * len(self.types)
        values[index] = value
        self.updates.append([list(lhs), values, overwrite])

    def define(self) -> None:
        """Give the Func its collected definitions."""
        from pyhalide.var import Var
        f = self.func
        names = set(self.args)
        f[tuple(Var(a) for a in self.args)] = _values(self.pure)
        for lhs, values, overwrite in self.updates:
            items = tuple(Var(a.name) if isinstance(a, ir.Variable) and a.kind == ""
                          and a.name in names else Expr.wrap(a) for a in lhs)
            full = []
            for i, v in enumerate(values):
                old = self.call(lhs, i)
                full.append(old if v is None else v if overwrite else ir.Add(old, v))
            f[items] = _values(full)


def _values(nodes):
    return Expr.wrap(nodes[0]) if len(nodes) == 1 else tuple(Expr.wrap(n) for n in nodes)
