"""Inline reductions: sum, product, minimum, maximum, argmin, argmax.

Each builds an anonymous Func (or fills the one given) over the pure Vars free
in the expression, reducing over the RDom of its RVars, and returns a call to
it, as Halide's inline reductions do."""
from __future__ import annotations

from . import ir
from .errors import CompileError
from .expr import Expr, select, to_node
from .func import Func
from .var import Var


def _setup(e, holder, default_name: str):
    node = to_node(e)
    free = ir.free_vars(node)
    rvars = [v for v in free.values() if v.kind == "rvar"]
    if not rvars:
        raise CompileError(f"{default_name}() needs an expression that uses an RVar")
    rdom = rvars[0].param
    pure = [Var(name) for name, v in sorted(free.items()) if v.kind == ""]
    if isinstance(holder, Func):
        f = holder
    else:
        f = Func(holder if isinstance(holder, str) else default_name)
    return node, rdom, pure, f


def _fold(name: str, init_of, combine):
    def reduction(e, f=None):
        node, rdom, pure, func = _setup(e, f, name)
        t = node.type
        func[tuple(pure)] = Expr.wrap(ir.const(t, init_of(t)))
        current = func[tuple(pure)]
        func[tuple(pure)] = combine(current, Expr.wrap(node))
        return func[tuple(pure)]
    reduction.__name__ = name
    reduction.__doc__ = (f"{name}(e[, f]): reduce e over the RDom of its RVars; f (a Func or "
                         f"a name) holds the reduction so it can be scheduled.")
    return reduction


sum = _fold("sum", lambda t: 0, lambda a, b: a + b)
product = _fold("product", lambda t: 1, lambda a, b: a * b)
minimum = _fold("minimum", lambda t: t.max_value(),
                lambda a, b: Expr.wrap(ir.Min(a.node, b.node)))
maximum = _fold("maximum", lambda t: t.min_value(),
                lambda a, b: Expr.wrap(ir.Max(a.node, b.node)))


def _arg_reduction(name: str, better):
    def reduction(e, f=None):
        node, rdom, pure, func = _setup(e, f, name)
        t = node.type
        n = rdom.dimensions()
        init = tuple(Expr.wrap(ir.index(0)) for _ in range(n))
        worst = t.max_value() if name == "argmin" else t.min_value()
        func[tuple(pure)] = init + (Expr.wrap(ir.const(t, worst)),)
        ref = func[tuple(pure)]
        value = Expr.wrap(node)
        cond = better(value, ref[n])
        coords = tuple(rdom[i] for i in range(n))
        func[tuple(pure)] = select(cond, coords + (value,), tuple(ref[i] for i in range(n + 1)))
        return tuple(func[tuple(pure)][i] for i in range(n + 1))
    reduction.__name__ = name
    reduction.__doc__ = (f"{name}(e[, f]): a Tuple (coordinates of the RDom..., value) of the "
                         f"first point where e is {'smallest' if name == 'argmin' else 'largest'}.")
    return reduction


argmin = _arg_reduction("argmin", lambda v, best: v < best)
argmax = _arg_reduction("argmax", lambda v, best: v > best)
