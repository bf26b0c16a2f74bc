"""The final test of a `while` loop whose trips a counter bounds.

`while b[k + i] >= 0 and i < n: ... i += 1` runs as a `for` over
range(i, n, 1) (LoopExits.trip_range) with the test at the top of each
trip; Python evaluates the test once more, where it fails: at i == n it
reads b[k + n] before `i < n` is false, and raises IndexError there (also
where the loop runs no trip: the test is evaluated once). When a conjunct
before the bounding comparison may raise, the range has one trip more,
the one that evaluates the failing test (the test, kept whole, is false
there and stops the loop)."""
from __future__ import annotations

import ast
import copy

_MAY_RAISE = (ast.Subscript, ast.Call, ast.BinOp)


def final_stop(conjuncts, bound_conjunct, stop, counter: str, step: int):
    """The stop of the trip range: `stop`, or `max(stop, counter) + step`
    (`min` for a negative step) where a conjunct of the test before
    `bound_conjunct` may raise (a subscript, call or arithmetic)."""
    before = conjuncts[:next(k for k, c in enumerate(conjuncts) if c is bound_conjunct)]
    if not any(isinstance(n, _MAY_RAISE) for c in before for n in ast.walk(c)):
        return stop
    edge = ast.Call(ast.Name("max" if step > 0 else "min", ast.Load()),
                    [copy.deepcopy(stop), ast.Name(counter, ast.Load())], [])
    return ast.BinOp(edge, ast.Add() if step > 0 else ast.Sub(), ast.Constant(abs(step)))
