"""Serial loops that run where a guard of their whole body fails: cut
(an upper bound of the loop variable) or skipped (a split's empty tail).

    trim_loop_guards(stmt) -> stmt

A serial loop

    for (x, lo, ext) { <chain> if (... && g && ...) S }

where <chain> is For loops (of any kind), LetStmts and `if`s without
`else` (nothing with an effect, no Call in their expressions) does
nothing at an iteration where the conjunct g fails at every iteration of
the chain's loops. With the chain's lets substituted, let g be `e <= B` or
`e < B` of 32-bit integers with e - B linear, reading no memory, whose
names bound inside the loop are x and loop variables of the chain.

- Cut: x has coefficient 1 in e - B, no other name bound inside the
  loop occurs in it, and the chain holds an unrolled or vectorized loop (a
  register tile; elsewhere a constant extent LLVM may unroll and
  partition_loops' guard-free copy are kept): g fails at every later
  iteration once it fails. The
  loop becomes `for (x, lo, max(min(ext, B - r - lo + 1), 0))` (r = e - x,
  the extent computed in 64 bits; it lies in [0, ext]) and g is removed
  (it holds on the new range): the last k block of the default `a @ b`
  (frontend_ast/array_dot.py) runs its remaining terms unguarded, so its
  register tile is promoted (promote_tile_accumulators.py) and
  partition_loops makes no copy for it.
- Skip: ext is a constant of at least 2, the chain holds a serial loop,
  x has a positive coefficient, and each chain loop in e has a constant
  min and extent: the body is wrapped in
  `if (g')`, g' being g at the chain loops' values that make e - B
  smallest (g holds at some chain iteration only if g' holds). g stays.
  A split's inner loop whose chunks lie wholly beyond the extent (the
  tiles of the last block of `a @ b`'s columns past the last column) runs
  one test per chunk instead of its guarded nest. Not made where g' holds
  at the loop's last iteration by simplification alone.

Exact under the assumption bounds inference and partition_loops make
(32-bit index arithmetic of loop variables does not overflow). Runs before
partition_loops."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import Mutator
from pyhalide.ir.ops import find_calls, free_vars, reads_memory, substitute

from .branch_facts import as_upper, conjuncts, int_compare
from .cold_copies import LeavesColdCopies, cold_copies
from .linear import linear_form
from .simplify import simplify

_I32, _I64 = ir.Int(32), ir.Int(64)


def trim_loop_guards(stmt: ir.Stmt) -> ir.Stmt:
    return _Trim(cold_copies(stmt)).mutate(stmt)


class _Trim(LeavesColdCopies, Mutator):
    def visit_For(self, s):
        body = self.mutate(s.body)
        if s.kind == ir.ForKind.SERIAL and s.min.type == _I32:
            trimmed = _trim(s, body)
            if trimmed is not None:
                return trimmed
        if body is s.body:
            return s
        return ir.For(s.name, s.min, s.extent, s.kind, body)


def _trim(loop: ir.For, body: ir.Stmt):
    """The loop cut or skipped by its guard (module docstring), or None."""
    env, lets, loops, path = {}, set(), {}, []
    skips = []
    s = body
    while True:
        if isinstance(s, ir.LetStmt):
            if find_calls(s.value):
                return None
            env[s.name] = substitute(s.value, env) if env else s.value
            lets.add(s.name)
            path.append(s)
            s = s.body
        elif isinstance(s, ir.For):
            if find_calls(s.min) or find_calls(s.extent):
                return None
            mn, ext = simplify(s.min), simplify(s.extent)
            loops[s.name] = (mn.value, mn.value + ext.value - 1) \
                if isinstance(mn, ir.Const) and isinstance(ext, ir.Const) and ext.value > 0 \
                else None
            path.append(s)
            s = s.body
        elif isinstance(s, ir.IfThenElse) and s.else_case is None:
            if find_calls(s.condition):
                return None
            parts = conjuncts(s.condition)
            for i, c in enumerate(parts):
                form = _form(c, loop.name, env, lets | set(loops))
                if form is None:
                    continue
                small, big, strict, coef, inner = form
                if coef == 1 and not inner and _tiled(path):
                    h = ir.Sub(ir.Cast(_I64, substitute(big, {loop.name: _zero()})),
                               ir.Cast(_I64, substitute(small, {loop.name: _zero()})))
                    if strict:
                        h = ir.Sub(h, ir.Const(_I64, 1))
                    return _cut(loop, path, s, parts[:i] + parts[i + 1:], h)
                if coef > 0:
                    skips.append(_skip_condition(small, big, strict, inner, loops))
            path.append(s)
            s = s.then_case
        else:
            break
    return _skip(loop, body, [c for c in skips if c is not None], path)


def _tiled(path) -> bool:
    """The chain holds an unrolled or vectorized loop (a register tile: the
    cut loop's constant extent is then not worth keeping for LLVM)."""
    return any(isinstance(p, ir.For) and p.kind in (ir.ForKind.UNROLLED, ir.ForKind.VECTORIZED)
               for p in path)


def _zero():
    return ir.Const(_I32, 0)


def _form(c, x: str, env: dict, bound: set):
    """(small, big, strict, coefficient of x, {chain loop: its coefficient})
    of a conjunct `small <= big` / `small < big` (lets substituted) linear in
    the names bound inside the loop, else None."""
    if not int_compare(c) or c.a.type != _I32:
        return None
    small, big, strict = as_upper(c)
    if env:
        small, big = substitute(small, env), substitute(big, env)
    if reads_memory(small) or reads_memory(big) or find_calls(small) or find_calls(big):
        return None
    lf = linear_form(ir.Sub(small, big))
    coef, inner = 0, {}
    for atom, k in lf.terms.values():
        if k == 0:
            continue
        if isinstance(atom, ir.Variable) and atom.name == x:
            coef = k
        elif isinstance(atom, ir.Variable) and atom.name in bound:
            inner[atom.name] = k
        elif set(free_vars(atom)) & (bound | {x}):
            return None
    if coef == 0 or set(inner) & set(env):
        return None
    return small, big, strict, coef, inner


def _skip_condition(small, big, strict, inner: dict, loops: dict):
    """The conjunct at the chain loops' values that make it easiest to
    hold, or None where a loop's range is not constant."""
    vals = {}
    for name, k in inner.items():
        rng = loops.get(name)
        if rng is None:
            return None
        vals[name] = ir.Const(_I32, rng[0] if k > 0 else rng[1])
    a, b = substitute(small, vals), substitute(big, vals)
    return ir.LT(a, b) if strict else ir.LE(a, b)


def _skip(loop: ir.For, body, conds, path):
    ext = simplify(loop.extent)
    if not conds or not isinstance(ext, ir.Const) or ext.value < 2 or \
            not any(isinstance(p, ir.For) and p.kind == ir.ForKind.SERIAL for p in path):
        return None
    last = {loop.name: simplify(ir.Add(loop.min, ir.Const(_I32, ext.value - 1)))}
    keep = []
    for c in conds:
        if not ir.is_const(simplify(substitute(c, last)), True) and \
                not any(ir.equal(c, k) for k in keep):
            keep.append(c)
    if not keep:
        return None
    cond = keep[0]
    for c in keep[1:]:
        cond = ir.And(cond, c)
    return ir.For(loop.name, loop.min, loop.extent, loop.kind, ir.IfThenElse(cond, body, None))


def _cut(loop, path, guard, rest, h):
    inner = guard.then_case
    if rest:
        cond = rest[0]
        for c in rest[1:]:
            cond = ir.And(cond, c)
        inner = ir.IfThenElse(cond, inner, None)
    for p in reversed(path):
        if isinstance(p, ir.LetStmt):
            inner = ir.LetStmt(p.name, p.value, inner)
        elif isinstance(p, ir.For):
            inner = ir.For(p.name, p.min, p.extent, p.kind, inner)
        else:
            inner = ir.IfThenElse(p.condition, inner, None)
    room = ir.Add(ir.Sub(h, ir.Cast(_I64, loop.min)), ir.Const(_I64, 1))
    ext = ir.Max(ir.Min(ir.Cast(_I64, loop.extent), room), ir.Const(_I64, 0))
    return ir.For(loop.name, loop.min, simplify(ir.Cast(_I32, ext)), loop.kind, inner)
