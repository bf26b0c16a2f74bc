"""The counter of a `while` loop as an index (used by loop_exits.py).

loop_exits.py makes `while i < n and c: ...; i += k` a loop
`for v in range(i, n, k)` whose iterations stop doing anything once the
stop flag is set. Its trip_range accepts a counter only when the body
assigns it once, by `i += k` at the top level, with no `continue` of the
loop before that statement; every iteration that runs (the flag not set)
therefore starts with `i == v` and has `i == v + k` after the step. In
the subscripts of the test and of the body the counter is read as that
expression of v, so that `out[i - 1]` and `out[i]` are positions the loop
code can relate (a recurrence through an array, loop_cycles.py) instead
of reads at a carried scalar. Values elsewhere keep reading `i` (its type
is the counter's; the loop variable's may be another integer type), and
`i += k` stays: after the loop `i` is what Python leaves there."""
from __future__ import annotations

import ast
import copy


def index_by_trip(test, body, counter: str, var: str, step: int, step_stmt):
    """(test, body) with the counter's loads inside subscripts replaced by
    `var` before step_stmt (a top-level statement of body) and in the test,
    and by `var + step` after it."""
    here = ast.Name(var, ast.Load())
    after = ast.BinOp(ast.Name(var, ast.Load()), ast.Add() if step > 0 else ast.Sub(),
                      ast.Constant(abs(step)))
    test = _Subscripts(counter, here).visit(test)
    out, seen = [], False
    for s in body:
        if s is step_stmt:
            seen = True
            out.append(s)
            continue
        out.append(_Subscripts(counter, after if seen else here).visit(s))
    return test, out


class _Subscripts(ast.NodeTransformer):
    """Replaces loads of one name inside the index part of subscripts."""

    def __init__(self, name, value):
        self.name, self.value, self.depth = name, value, 0

    def visit_Subscript(self, node):
        node.value = self.visit(node.value)
        self.depth += 1
        try:
            node.slice = self.visit(node.slice)
        finally:
            self.depth -= 1
        return node

    def visit_Name(self, node):
        if self.depth and node.id == self.name and isinstance(node.ctx, ast.Load):
            new = copy.deepcopy(self.value)
            for n in ast.walk(new):
                ast.copy_location(n, node)
            return new
        return node
