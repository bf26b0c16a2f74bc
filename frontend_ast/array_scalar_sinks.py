"""Scalar operands of array code computed where Python computes them.

A scalar operand of an array operation (`a * b[k]`, `np.full(n, b[k])`,
`np.where(m, b[k], 0.0)`) is evaluated by Python once, before the
operation, whatever the array's size; compiled, it is part of the element
expression, so its run-time checks (an index check of `b[k]` under an `if`
of data, in a loop) never run where the array is empty or the element is
not computed: `if x[0] > 5: s = (a * b[k]).sum()` with a empty and k out of
range returned 0.0 where Python raises IndexError. Each such operand (a
scalar with run-time checks of its own, checks.eager) is computed where the
statement runs: outside loops an unreturned scalar output under the
enclosing `if`s (Builder.sinks, as an unused assignment), inside loops a
hidden 0-d array written at each iteration (check_order.LoopSinks' way).
The lazy operands it sits in (`x if c else a * b[k]`) hold: it is computed
only where they do."""
from __future__ import annotations

import ast

import numpy as np

from pyhalide import checks, ir

from . import ops
from .arrayexpr import ArrayExpr
from .types import np_ty
from .values import Arr, Val

_ARRAY_OPS = (ast.Call, ast.BinOp, ast.Compare, ast.UnaryOp)


class ScalarLog:
    """The checked scalars evaluated by one statement and those of them
    used as operands of array code (`used`: [(Val, lazy conditions)])."""

    def __init__(self, base):
        self.base = base            # len(Context.assumed) where the statement starts
        self.vals = {}              # id(AST node) -> (Val, lazy conditions)
        self.used = []
        self.seen = set()
        # [(check, bool node)]: checks moved out of lifted array code
        # (lifted_checks._move_invariant), each with its conditions
        self.moved = []


def note(cx, node, out):
    """Record `out`, the value of AST node `node` (Exprs.ev), in the
    statement's log."""
    log = cx.scalar_log
    if log is None:
        return
    if isinstance(out, Val) and out.union:
        # (a value of several types: each alternative where it is chosen,
        # union_parts)
        if out.risky and union_parts(cx, out):
            log.vals[id(node)] = (out, list(cx.assumed[log.base:]))
        return
    if isinstance(out, Val) and out.ty.is_complex():
        # (a complex value: its parts, _complex_parts)
        if out.risky and _complex_parts(cx, out):
            log.vals[id(node)] = (out, list(cx.assumed[log.base:]))
        return
    if isinstance(out, Val):
        # (typing runs build no checks: a risky operand is logged there so
        # that its store's reads of the loop's state are known)
        # (a complex Val has no node: its parts are not operands here)
        if not out.union and not out.ty.is_complex() and out.node is not None and \
                out.risky and (cx.typing or checks.eager(out.node)):
            log.vals[id(node)] = (out, list(cx.assumed[log.base:]))
        return
    if not isinstance(out, (Arr, ArrayExpr)) or not isinstance(node, _ARRAY_OPS):
        return
    for child in [d for c in _operands(node) for d in _lazy_parts(c)]:
        got = log.vals.get(id(child))
        if got is not None and id(child) not in log.seen:
            log.seen.add(id(child))
            log.used.append(got)


def _lazy_parts(node):
    """node and, for a conditional expression or `and`/`or`, its parts
    (each logged with the lazy conditions it is evaluated under)."""
    if isinstance(node, ast.IfExp):
        return [node] + [d for c in (node.test, node.body, node.orelse) for d in _lazy_parts(c)]
    if isinstance(node, ast.BoolOp):
        return [node] + [d for c in node.values for d in _lazy_parts(c)]
    return [node]


def _operands(node):
    if isinstance(node, ast.Call):
        out = list(node.args) + [k.value for k in node.keywords]
        if isinstance(node.func, ast.Attribute):
            out.append(node.func.value)
        return [a.value if isinstance(a, ast.Starred) else a for a in out]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.Compare):
        return [node.left] + list(node.comparators)
    return [node.operand]


def values(cx, log, flags) -> list:
    """The logged operands, each as `flags(v)` (its checks: a Val whose
    checks fail where the operand's do) evaluated only where its lazy
    conditions hold."""
    out = []
    # (a union's parts whole: flags() keeps the eager checks only, and a
    # part's own are under its condition's lazy select)
    used = [(w, lazy) for v, lazy in log.used
            for w in (union_parts(cx, v) if v.union else
                      [flags(p) for p in _complex_parts(cx, v)] if v.ty.is_complex() else
                      [flags(v)])]
    for v, lazy in used:
        terms = []
        for c, when in lazy:
            if c is None:
                continue
            t = ops.truth(cx, c)
            if t.is_const:
                if bool(t.const) != when:
                    terms = None
                    break
                continue
            if t.node is None or not t.node.type.is_bool():
                terms = None
                break
            terms.append(t.node if when else ir.Not(t.node))
        if terms is None:
            continue            # not reached, or a condition not an IR bool: left out
        cond = ir.conjunction(terms)
        if cond is not None:
            n = v.node
            zero = ir.Const(n.type, False if n.type.is_bool() else 0)
            v = Val(ir.Call(n.type, "if_then_else", (cond, n, zero), ir.INTRINSIC), v.ty,
                    risky=True)
        out.append(v)
    return out


def union_parts(cx, v) -> list:
    """The alternatives of union v (a value of several types: `d = b[k]`
    under an `if`, `d = 0.0` before it) that read checks, each a Val of its
    own type computed lazily where its condition holds (0 elsewhere)."""
    out = []
    for c, w in v.union:
        if c is None or c.node is None or not isinstance(w, Val) or w.union or \
                not w.risky or w.ty.is_complex() or w.node is None or \
                not (cx.typing or _checked(w.node)):
            continue
        out.append(ops.select(cx, c, w, Val(ir.Const(w.node.type, 0), w.ty)))
    return out


def _complex_parts(cx, v) -> list:
    """The parts (real, imaginary) of complex v that have run-time checks
    of their own (`b[k] + 1j`: the real part reads b[k])."""
    return [p for p in (v.re, v.im)
            if isinstance(p, Val) and not p.union and p.risky and p.node is not None and
            (cx.typing or checks.eager(p.node))]


def _checked(e) -> bool:
    """Whether e reads a check image (also inside its lazy selects: an
    alternative assigned under an `if` is computed only where it holds)."""
    return any(checks.is_check_read(c) for c in ir.find_calls([e]))


def moved_values(log, operands) -> list:
    """The checks moved out of lifted array code in this statement
    (ScalarLog.moved), each as a Val that raises where the check fails and
    its conditions hold (lazily: evaluated nowhere else); not those read
    by the stored `operands` (values(): `y[k]` of `x * y[k]` is stored as an
    operand already, under the same conditions or fewer)."""
    stored = {c.name for v in operands if v.node is not None for c in ir.find_calls([v.node])
              if checks.is_check_read(c)}
    out = []
    for cond, reached in log.moved:
        if cond.a.name in stored:
            continue
        one = ir.Const(ir.Float(64), 1.0)
        node = ir.lazy_select(reached, checks.apply([cond], one), ir.Const(ir.Float(64), 0.0))
        out.append(Val(node, np_ty(np.float64), risky=True))
    return out
