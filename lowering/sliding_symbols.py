"""How a required interval written in other Funcs' region symbols moves with a
loop, for sliding windows (bounds_inference._slide).

A Func computed inside a loop of a consumer that is itself computed at that
loop (the pyramid levels of Halide's interpolate app, each computed at the
output's row loop) has its required interval written in the consumer's region
symbols (`interpolated_1.r1.min`, ...), which are lets at the same level whose
values hold the loop variable. The interval slides as a direct one does when,
through those lets, both of its ends never decrease as the loop variable
grows; the min then moves past the previous iteration's max, which is the max
with the loop variable one less and each symbol depending on it replaced by a
let holding the symbol's value there (`<symbol>.prev`, added beside the
Func's own lets). A symbol that was slid itself (a select on the loop's first
iteration) never decreases when its unslid ends do not: `rising` records it.
"""
from __future__ import annotations

from pyhalide import ir

from .monotonic import non_decreasing


class SymbolTrends:
    """value_of(name): the Expr a let symbol is bound to where the Func is
    bounded (None for loop variables, parameters and other free names)."""

    def __init__(self, value_of):
        self.value_of = value_of
        self._deps = {}         # symbol -> frozenset of the names its value reaches
        self._trend = {}        # (symbol, var) -> +1, 0, -1 or None (unknown)
        self._prev = {}         # (symbol, var) -> Variable holding its previous value

    def depends(self, e, var: str) -> bool:
        """Whether e's value changes with `var`, directly or through lets."""
        return any(n == var or var in self._reach(n) for n in ir.free_vars(e))

    def _reach(self, name: str) -> frozenset:
        hit = self._deps.get(name)
        if hit is None:
            self._deps[name] = frozenset()           # (a cycle reaches nothing more)
            value = self.value_of(name)
            names = set() if value is None else set(ir.free_vars(value))
            for n in list(names):
                names |= self._reach(n)
            hit = self._deps[name] = frozenset(names)
        return hit

    def rising(self, name: str, var: str) -> None:
        """Symbol `name` never decreases as `var` grows (a slid min)."""
        self._trend[(name, var)] = 1

    def non_decreasing(self, e, var: str) -> bool:
        return non_decreasing(self._proxy(e, var), var)

    def _direction(self, name: str, var: str):
        key = (name, var)
        if key not in self._trend:
            self._trend[key] = None                  # (a cycle is unknown)
            value = self.value_of(name)
            if value is None:
                self._trend[key] = 0
            else:
                p = self._proxy(value, var)
                if non_decreasing(p, var):
                    self._trend[key] = 0 if not self.depends(p, var) else 1
                elif non_decreasing(ir.Sub(ir.index(0), p), var):
                    self._trend[key] = -1
        return self._trend[key]

    def _proxy(self, e, var: str):
        """e with each symbol that depends on `var` replaced by an expression
        of `var` moving the same way (an unknown one by a select, which
        monotonic does not see through)."""
        v = ir.Variable(ir.INDEX, var)
        sub = {}
        for name in ir.free_vars(e):
            if name == var or not self.depends(ir.Variable(ir.INDEX, name), var):
                continue
            d = self._direction(name, var)
            sub[name] = v if d == 1 else ir.Sub(ir.index(0), v) if d == -1 else \
                ir.Select(ir.GT(v, ir.index(0)), v, ir.index(0))
        return ir.substitute(e, sub) if sub else e

    def previous(self, e, var: str, add_let):
        """e at the previous iteration of loop `var`; add_let(name, value)
        places a let for each symbol that depends on `var` (once per symbol)."""
        sub = {var: ir.Sub(ir.Variable(ir.INDEX, var), ir.index(1))}
        for name in ir.free_vars(e):
            if name != var and var in self._reach(name):
                sub[name] = self._previous_symbol(name, var, add_let)
        return ir.substitute(e, sub)

    def _previous_symbol(self, name: str, var: str, add_let):
        key = (name, var)
        hit = self._prev.get(key)
        if hit is None:
            value = self.previous(self.value_of(name), var, add_let)
            count = sum(1 for (n, _) in self._prev if n == name)
            hit = self._prev[key] = ir.Variable(
                ir.INDEX, f"{name}.prev" if count == 0 else f"{name}.prev.{count}")
            add_let(hit.name, value)
        return hit
