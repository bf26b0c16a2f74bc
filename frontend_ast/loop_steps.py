"""Range loops whose step is computed (a rewrite, order 21, after loop_forms.py):
`for v in range(a, b, s)` with a step that is not a literal (the sieve's
`range(i * i, n, i)`) becomes a loop over the iteration count, with v
computed from it, keeping Python's meaning:

    for v in range(a, b, s):         start, stop, step = a, b, s      (evaluated once, in order)
        body                         assert <step != 0>        ValueError, as range() raises
                                     trips = <the number of iterations>  (exact, no check)
                                     first = <min(start, stop) for a positive step, max for a negative>
                                     for k in range(<trips, checked>):
                                         v = <first + k * step, within [start, stop)>
                                         body

Each of a, b, s is read as a Python int (`index`: range() takes integers
only). The bracketed parts are `range(...)` calls marked with STEP_ATTR, computed
by loop_step_values.py: each picks the form of the step's sign when the
step's range decides it (the sieve's step i >= 2: no check, one form) and
selects between both at run time otherwise. `first` is the start clamped to
the stop (a loop that runs starts there anyway), so it stays within the
stop's range. A count that may exceed 2**31 - 1 (a loop's limit) is checked
where the loop's bounds are computed (OverflowError, as loops.py's checks
of bounds raise). v is assigned in the body, so after the loop it holds its
last value, or its earlier binding when the loop did not run, as in Python.

A step that is a literal or made only of global names (constants at
specialization: loops.py takes those as they are) is left alone."""
from __future__ import annotations

import ast

from .loop_seqs import FreshLocals, NodeBuilder, const_int
from .names import VALUE_ATTR
from .rewrite_registry import register

STEP_ATTR = "_pyhalide_range_step"     # on the range() calls built here: what they compute
RAISES_ATTR = "_pyhalide_raises"       # on the asserts built here (see asserts.py)
INT32_MAX = (1 << 31) - 1


@register(21)
def loop_steps(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    _StepRewriter(tree, smap).run(tree)
    return tree


class _StepRewriter(FreshLocals, NodeBuilder, ast.NodeTransformer):
    def __init__(self, tree, smap):
        self.smap = smap
        self.init_names(tree)
        self.ref = None

    def _computed_step(self, node: ast.For) -> bool:
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                it.func.id == "range" and len(it.args) == 3 and not it.keywords and
                not any(isinstance(a, ast.Starred) for a in it.args)):
            return False
        step = it.args[2]
        if const_int(step) is not None:
            return False
        return any(isinstance(n, ast.Name) and n.id in self.local and
                   getattr(n, VALUE_ATTR, None) is None for n in ast.walk(step))

    def visit_For(self, node: ast.For):
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        if not self._computed_step(node):
            return node
        shadowed = sorted(self.local & {"range", "min", "max"})
        if shadowed:
            raise self.smap.error(node, f"this loop's range() has a computed step, and the "
                                        f"function names a variable {shadowed[0]!r} (which "
                                        f"hides the builtin)", hint="rename that variable")
        saved, self.ref = self.ref, node.iter
        try:
            return self._rewrite(node)
        finally:
            self.ref = saved

    def _marked(self, what, args):
        c = self.call("range", args)
        setattr(c, STEP_ATTR, what)
        return c

    def _check(self, what, arg, exc, message):
        a = self.node(ast.Assert(test=self._marked(what, [arg]), msg=self.const(message)))
        setattr(a, RAISES_ATTR, exc)
        return a

    def _rewrite(self, node: ast.For) -> list:
        start, stop, step, trips, first, k = (self.fresh(w) for w in (
            "range_start", "range_stop", "range_step", "range_trips", "range_first", "k"))
        out = [self.assign(self.name(n, store=True), self._marked("index", [self.copy(a)]))
               for n, a in zip((start, stop, step), node.iter.args)]
        out.append(self._check("nonzero", self.name(step), "ValueError",
                               "range() arg 3 must not be zero"))

        def minmax(fn, a, b):
            return self.call(fn, [a, b])

        out.append(self.assign(self.name(trips, store=True), self._marked("trips", [
            self.name(step), self.name(start), self.name(stop)])))
        out.append(self.assign(self.name(first, store=True), self._marked("pick", [
            minmax("min", self.name(start), self.name(stop)),
            minmax("max", self.name(start), self.name(stop)), self.name(step)])))
        value = self._marked("value", [
            self.binop(self.name(first), ast.Add(),
                       self.binop(self.name(k), ast.Mult(), self.name(step))),
            self.name(start), self.name(stop), self.name(step)])
        loop = ast.For(target=self.name(k, store=True),
                       iter=self.call("range", [self._marked("clamp", [self.name(trips)])]),
                       body=[self.assign(self.copy(node.target), value)] + node.body,
                       orelse=node.orelse, type_comment=None)
        self.node(loop)
        ast.copy_location(loop, node)
        ast.copy_location(loop.target, node.target)
        out.append(loop)
        return out
