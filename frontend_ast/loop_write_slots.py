"""Consecutive element updates of one array inside a loop (a rewrite of
rewrites.py, order 11: after the helpers are inlined, before tuple_targets.py
splits tuple assignments, which phase mode compiles as they are): the
interpreter writes an array at one index expression per loop iteration, so
a run of two or more statements updating elements of the same array, one
after the other, becomes a loop over the run's "slots", one write each, in
Python's order:

    for j in range(n):                  for j in range(n):
        if i != j:                          if i != j:
            ...                                 ...
            acc[i, 0] += dx * inv               for ?slot1 in range(2):
            acc[i, 1] += dy * inv                   acc[i, ?slot1] += (dx * inv if ?slot1 == 0
                                                                       else dy * inv)

Each slot evaluates its own index and value (conditional expressions are
lazy), after the previous slot's write, as Python does, so the result and
any exception are Python's whatever the statements compute. An index
component equal in all statements is kept; components that are the
constants 0, 1, ..., N-1 in order become the slot variable; others a chain
of conditional expressions. Rewritten: runs of augmented assignments with
one operator (`+=` ...) inside a loop whose positions differ in more than
constant components (`h[k] += 1; h[m] += 2`, `out[i] += x; out[i + 1] += y`),
or differ in constant ones only (`acc[i, 0]`, `acc[i, 1]`) under an `if` in
a nest of loops, or that read the array they update; elsewhere the interpreter compiles such runs itself (faster
than slots: one update per position), and plain assignments (element swaps,
bubble sort) keep phase mode (carried_arrays.py).

The default schedule unrolls each slot loop (`unroll_slots`, called by
Specialization.default_schedule): lowering then makes one copy of the
update per slot with the slot a constant, so each copy's conditional
expression folds to its own statement's value and index, and what the
statements share (n-body's distance and its inverse cube) is computed once
per iteration, not once per slot. Unrolling changes no result."""
from __future__ import annotations

import ast

from pyhalide import ir
from pyhalide.var import RVar

from .rewrite_registry import register

_LOOPS = (ast.For, ast.While)
_SLOT = "?slot"
_MAX_UNROLLED = 16     # a run of more statements keeps its slot loop


@register(11)
def loop_write_slots(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    counter = [0]
    _block(tree.body, 0, False, counter)
    return tree


def _block(stmts, depth, in_if, counter):
    """Rewrite the runs of stmts (in place) and of the blocks nested in them;
    `depth`: the loops around stmts, `in_if`: an `if` between stmts and the
    innermost of them."""
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            sub = getattr(s, field, None)
            if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt):
                loop_body = isinstance(s, _LOOPS) and field == "body"
                _block(sub, depth + loop_body, False if loop_body else
                       in_if or isinstance(s, ast.If), counter)
    if depth == 0:
        return
    k = 0
    while k < len(stmts):
        run = _run_at(stmts, k)
        if len(run) >= 2 and _needed(run, depth, in_if):
            counter[0] += 1
            stmts[k:k + len(run)] = [_slot_loop(run, f"?slot{counter[0]}")]
        k += 1


def _needed(run, depth, in_if) -> bool:
    """Whether the run needs slots: positions that differ in other than
    constant components (the interpreter's element writes relate constant
    offsets only), or constant ones under an `if` in a loop nest (phase
    mode's limit); elsewhere the interpreter's own form is kept (faster)."""
    name = run[0].target.value.id
    if any(isinstance(n, ast.Name) and n.id == name for s in run
           for e in [s.value, s.target.slice] for n in ast.walk(e)):
        return True         # updates reading the array: ordered by the slots
    parts = [_update(s)[2] for s in run]
    if all(isinstance(c, ast.Constant) for p in parts for c in p):
        return False        # (separate cells of the scalar loop machinery)
    for c in range(len(parts[0])):
        options = [p[c] for p in parts]
        if any(ast.dump(o) != ast.dump(options[0]) for o in options) and \
                not all(isinstance(o, ast.Constant) for o in options):
            return True
    return in_if and depth >= 2


def _run_at(stmts, k) -> list:
    """The longest run of element updates of one array starting at k."""
    first = _update(stmts[k])
    if first is None:
        return []
    run = [stmts[k]]
    for s in stmts[k + 1:]:
        u = _update(s)
        if u is None or u[0] != first[0] or u[1] != first[1] or len(u[2]) != len(first[2]):
            break
        run.append(s)
    return run


def _update(s):
    """(array name, operator type, index components) of `a[i, j] op= e`, or None."""
    if not (isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Subscript) and
            isinstance(s.target.value, ast.Name)):
        return None
    idx = s.target.slice
    parts = list(idx.elts) if isinstance(idx, ast.Tuple) else [idx]
    name = s.target.value.id
    if any(isinstance(p, ast.Constant) and type(p.value) is not int for p in parts):
        return None         # (None, Ellipsis, a bool: not an element position)
    for e in parts + [s.value]:
        for n in ast.walk(e):
            if isinstance(n, (ast.Slice, ast.Starred, ast.NamedExpr, ast.Yield, ast.YieldFrom,
                              ast.Await, ast.Lambda)):
                return None
    return name, type(s.op), parts


def _slot_loop(run, var) -> ast.For:
    at = run[0]
    slot = ast.Name(var, ast.Load())
    parts = [_update(s)[2] for s in run]
    index = [_choose([p[c] for p in parts], slot) for c in range(len(parts[0]))]
    idx = index[0] if not isinstance(at.target.slice, ast.Tuple) else \
        ast.Tuple(index, ast.Load())
    target = ast.Subscript(ast.Name(at.target.value.id, ast.Load()), idx, ast.Store())
    body = ast.AugAssign(target, at.op, _chain([s.value for s in run], slot))
    loop = ast.For(ast.Name(var, ast.Store()),
                   ast.Call(ast.Name("range", ast.Load()), [ast.Constant(len(run))], []),
                   [body], [], None)
    for n in ast.walk(loop):
        if not hasattr(n, "lineno"):
            ast.copy_location(n, at)
    return loop


def _choose(options, slot):
    """The index component for each slot."""
    if all(ast.dump(o) == ast.dump(options[0]) for o in options):
        return options[0]
    if all(isinstance(o, ast.Constant) and type(o.value) is int and o.value == k
           for k, o in enumerate(options)):
        return ast.copy_location(ast.Name(slot.id, ast.Load()), options[0])
    return _chain(options, slot)


def _chain(options, slot):
    """`options[0] if slot == 0 else options[1] if slot == 1 else ...`."""
    out = options[-1]
    for k in range(len(options) - 2, -1, -1):
        test = ast.Compare(ast.Name(slot.id, ast.Load()), [ast.Eq()], [ast.Constant(k)])
        ast.copy_location(test, options[k])
        for n in ast.walk(test):
            ast.copy_location(n, options[k])
        out = ast.copy_location(ast.IfExp(test, options[k], out), options[k])
    return out


def unroll_slots(f) -> None:
    """Unroll the slot loop of each update of Func `f` that has one and
    whose loops no schedule changed: the innermost RVar of an RDom whose
    innermost loop is a slot loop (its name ends with the slot variable's:
    `r_j_?slot1`), of constant extent."""
    fn = f.function()
    for k, d in enumerate(fn.updates):
        rvars = d.rvars
        if not rvars or not d.rdom_name.rsplit("_", 1)[-1].startswith(_SLOT) or \
                d.schedule.splits:
            continue
        slot = rvars[0]
        if slot.name != d.rdom_name + "$x" or not isinstance(slot.extent, ir.Const) or \
                not 1 < slot.extent.value <= _MAX_UNROLLED:
            continue
        if all(dim.kind == "serial" for dim in d.schedule.dims if dim.var == slot.name):
            f.update(k).unroll(RVar(slot.name))
