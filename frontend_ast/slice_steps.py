"""Slice stores whose step is computed at run time (a rewrite of
rewrites.py, order 20.5, before loop_steps.py takes the loop it makes):
the sieve's `is_p[i * i::i] = False`. A statement `a[s:e:k] = c`, with one
slice item whose step is not a literal and c a constant every dtype holds
exactly as `a[j] = c` stores it (_SAFE), becomes a loop over the positions
slice(s, e, k).indices(len(a)) gives, in NumPy's order:

    a[s:e:k] = c            _ph_start, _ph_stop, _ph_step = s, e, k    (once, in order)
                            if _ph_step == 0:
                                raise ValueError("slice step cannot be zero")
                            _ph_n = a.shape[0]
                            for _ph_j in range(<first>, <end>, _ph_step):
                                a[_ph_j] = c

where <first> and <end> are the slice's bounds clamped as `indices` clamps
them, for either sign of the step (`x if _ph_step > 0 else y`, decided at
compile time where the step's range proves its sign). Every position the
loop visits is inside the array, and each element is stored once, as
NumPy stores it. An omitted start or stop is None's meaning.

Values other than such constants (NumPy converts the value once and
broadcasts an array over the region; a value NumPy refuses raises even
for an empty region), several slice items, augmented assignments (an
in-place ufunc with NumPy's casting rule) and reads `a[s:e:k]` keep the
located error of a computed step."""
from __future__ import annotations

import ast
import math

from .loop_seqs import FreshLocals, NodeBuilder, const_int
from .loop_steps import STEP_ATTR
from .names import VALUE_ATTR
from .rewrite_registry import register


@register(20.5)
def slice_steps(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    _SliceSteps(tree).run(tree)
    return tree


def _safe(c) -> bool:
    """Whether constant node c is stored unchanged-in-meaning into every
    dtype, with no error for any (a bool; an int in [0, 127]; a finite
    float in (-1, 127])."""
    if not isinstance(c, ast.Constant):
        return False
    v = c.value
    if type(v) is bool:
        return True
    if type(v) is int:
        return 0 <= v <= 127
    if type(v) is float:
        return math.isfinite(v) and -1.0 < v <= 127.0
    return False


class _SliceSteps(FreshLocals, NodeBuilder, ast.NodeTransformer):
    def __init__(self, tree):
        self.init_names(tree)
        self.ref = None

    def _taken(self, s) -> bool:
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and _safe(s.value)):
            return False
        t = s.targets[0]
        if not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and
                isinstance(t.slice, ast.Slice) and t.slice.step is not None):
            return False
        step = t.slice.step
        return const_int(step) is None and any(
            isinstance(n, ast.Name) and n.id in self.local and
            getattr(n, VALUE_ATTR, None) is None for n in ast.walk(step))

    def generic_visit(self, node):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                setattr(node, field, self._block(stmts))
        return node

    def visit_Assign(self, s):
        if not self._taken(s):
            return s
        saved, self.ref = self.ref, s.targets[0].slice
        try:
            return self._rewrite(s)
        finally:
            self.ref = saved

    def _rewrite(self, s) -> list:
        t = s.targets[0]
        arr = t.value.id
        sl = t.slice
        start, stop, step = (self.fresh(w) for w in ("slice_start", "slice_stop", "slice_step"))
        out = []
        for name, e in ((start, sl.lower), (stop, sl.upper), (step, sl.step)):
            if e is not None:
                out.append(self.assign(self.name(name, store=True), self.copy(e)))
        err = self.call("ValueError", [self.const("slice step cannot be zero")])
        zero = self.node(ast.UnaryOp(op=ast.Not(), operand=self._sign("nonzero", step)))
        out.append(self.node(ast.If(test=zero,
                                    body=[self.node(ast.Raise(exc=err, cause=None))], orelse=[])))

        def n():
            return self.node(ast.Subscript(
                value=self.node(ast.Attribute(value=self.name(arr), attr="shape", ctx=ast.Load())),
                slice=self.const(0), ctx=ast.Load()))

        def n_minus_1():
            return self.binop(n(), ast.Sub(), self.const(1))

        def clamped(name, low, high):
            # indices(): x < 0 -> max(x + n, low), else min(x, high)
            return self.node(ast.IfExp(
                test=self._sign("nonneg", name), body=self.call("min", [self.name(name), high]),
                orelse=self.call("max", [self.binop(self.name(name), ast.Add(), n()),
                                         self.const(low)])))

        def loop(first, end):
            j = self.fresh("j")
            elem = self.node(ast.Subscript(value=self.name(arr), slice=self.name(j),
                                           ctx=ast.Store()))
            return self.node(ast.For(
                target=self.name(j, store=True),
                iter=self.call("range", [first, end, self.name(step)]),
                body=[self.node(ast.Assign(targets=[elem], value=self.copy(s.value)))],
                orelse=[], type_comment=None))

        # a positive step: a start >= 0 is taken as it is (a loop from past the
        # end runs no iteration), so its form stays that of the start
        end = n() if sl.upper is None else clamped(stop, 0, n())
        if sl.lower is None:
            up = [loop(self.const(0), end)]
        else:
            wrapped = self.call("max", [self.binop(self.name(start), ast.Add(), n()),
                                        self.const(0)])
            up = [self.node(ast.If(test=self._sign("nonneg", start),
                                   body=[loop(self.name(start), end)],
                                   orelse=[loop(wrapped, self.copy(end))]))]
        first = n_minus_1() if sl.lower is None else clamped(start, -1, n_minus_1())
        end = self.const(-1) if sl.upper is None else clamped(stop, -1, n_minus_1())
        down = [loop(first, end)]
        out.append(self.node(ast.If(test=self._sign("positive", step), body=up, orelse=down)))
        return out

    def _sign(self, what, name):
        """`name >= 1` / `name >= 0` / `name != 0`, constant where the value's
        range decides it (loop_step_values.py)."""
        c = self.call("range", [self.name(name)])
        setattr(c, STEP_ATTR, what)
        return c
