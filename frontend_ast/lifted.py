"""Array values computed inside loops: a Func made by array code while loops
run (a named array value, a reduction, a scan) gets one more pure dimension
per enclosing loop, so that one Func holds the value of every iteration
(`D[i, j] = np.sqrt(((A[:, i] - B[:, j]) ** 2).sum())` makes the sum a Func
over (i, j)). It is computed before the loop nest, like any array value, so
it must not read what the nest writes nor a scalar the loop carries; both are
located errors.

Array code addresses such a Func with the array's own indices: reads append
the loops' variables (their placeholders, which the loop machinery maps to
Vars or RVars where the read is emitted), definitions append the lifted pure
Vars and have the placeholders replaced by them."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.expr import Expr, to_node
from pyhalide.func import FuncRef
from pyhalide.var import Var

from .lifted_checks import gate_lifted_checks
from .lifted_ranges import gate_loop_ranges


class LiftedFunc:
    """A Func with trailing pure dimensions for `loops` (outermost last in
    Halide's argument order). Indexing and definitions take the array's own
    indices; everything else is the Func's (`base`)."""

    def __init__(self, base, loops, taken, check, cx):
        self.base = base
        self.loops = list(loops)            # outermost first
        self.vars = []
        for l in self.loops:
            name = f"{l.name}_l"
            while name in taken:
                name += "_"
            taken.add(name)
            self.vars.append(Var(name))
        self.mapping = {l.sym: v.node for l, v in zip(self.loops, self.vars)}
        self.check = check                  # check(nodes): located errors
        self.cx = cx

    def __getattr__(self, name):
        return getattr(self.base, name)

    def _items(self, key):
        return tuple(key) if isinstance(key, tuple) else (key,)

    def __getitem__(self, key) -> FuncRef:
        at = tuple(Expr.wrap(l.var) for l in reversed(self.loops))
        return self.base[self._items(key) + at]

    def __setitem__(self, key, value):
        values = value if isinstance(value, tuple) else (value,)
        if isinstance(value, FuncRef) and len(value) > 1:
            values = tuple(value)
        nodes = [to_node(v) for v in values]
        self.check(nodes)
        nodes = gate_lifted_checks(self.cx, nodes, self.check, self.mapping)
        nodes = self.gate_ranges(nodes)
        items = self._items(key)
        if self.cx.typing:
            # a typing run's values read placeholders of other typing state;
            # only the Func's types matter (the Func itself is dropped)
            keep = {k.name() for k in items if isinstance(k, Var)} | set(self.mapping)
            nodes = [_placeholders_zero(n, keep) for n in nodes]
        lifted = tuple(Expr.wrap(self.lift(n)) for n in nodes)
        keys = []
        for k in items:
            n = getattr(k, "node", None)
            keys.append(Expr.wrap(self.lift(n)) if n is not None and not isinstance(k, Var) else k)
        self.base[tuple(keys) + tuple(reversed(self.vars))] = \
            lifted if len(lifted) > 1 else lifted[0]

    def gate_ranges(self, nodes):
        """nodes (of a definition or its predicates) with their run-time
        checks passing outside the loops' ranges (lifted_ranges.py)."""
        return gate_loop_ranges(self.cx, list(nodes), self.loops, self.check)

    def lift(self, node):
        """node with the loops' placeholders replaced by the lifted Vars."""
        return ir.substitute(node, self.mapping)

    def check_rdom(self, rdom):
        """A located error where an RDom's bounds depend on the loops."""
        cx, names = self.cx, set(self.mapping)
        for k in range(rdom.dimensions()):
            rv = rdom[k]
            used = set(ir.free_vars([rv.min().node, rv.extent().node]))
            if used & names:
                raise cx.err(cx.cur_node, "inside a loop, an array whose size depends on the "
                                          "loop variable cannot be reduced or stored",
                             hint="give the array a size that does not change with the loop "
                                  "(mask the elements with np.where instead)")



def _placeholders_zero(node, keep):
    """node with its free variables other than those named in `keep`, RVars
    and parameters replaced by zeros of their types."""
    subst = {}
    for name, v in ir.free_vars(node).items():
        if v.kind == "" and name not in keep:
            subst[name] = ir.zero(v.type)
    return ir.substitute(node, subst) if subst else node
