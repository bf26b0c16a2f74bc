"""What the IR verifier checks of a node, summarized bottom-up: the variable
names it uses outside their binders, the buffer names it loads or stores
outside their allocations, and whether it holds a node storage flattening
removes (Realize, Provide, a call that is not an intrinsic). A Stmt passes
the verifier iff its free names are defined, its free buffers are known and,
flattened, it holds no such node: verify.py's fast path.

The summaries are memoized by node identity (holding the node) in a dict the
caller keeps for one lowering: a pass leaves most subtrees as they are, so
checking its result walks only what it rebuilt."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import children

_EMPTY = frozenset()
_NOTHING = (_EMPTY, _EMPTY, False)


def _union(a: frozenset, b: frozenset) -> frozenset:
    if not b or b is a:
        return a
    if not a:
        return b
    if len(b) <= len(a):
        return a if b <= a else a | b
    return b if a <= b else a | b


def _combine(parts) -> tuple:
    names, bufs, multi = _EMPTY, _EMPTY, False
    for n, b, m in parts:
        names = _union(names, n)
        bufs = _union(bufs, b)
        multi = multi or m
    return names, bufs, multi


def _without(s: frozenset, name: str) -> frozenset:
    return s - {name} if name in s else s


def summary(n, memo: dict) -> tuple:
    """(free variable names, free buffer names, holds a multi-dimensional
    node) of IR node `n`."""
    hit = memo.get(id(n))
    if hit is not None and hit[0] is n:
        return hit[1]
    t = type(n)
    if t is ir.Variable:
        r = (frozenset((n.name,)), _EMPTY, False)
    elif t is ir.Const:
        r = _NOTHING
    elif t is ir.For:
        names, bufs, multi = summary(n.body, memo)
        r = _combine((summary(n.min, memo), summary(n.extent, memo),
                      (_without(names, n.name), bufs, multi)))
    elif t is ir.LetStmt or t is ir.Let:
        names, bufs, multi = summary(n.body, memo)
        r = _combine((summary(n.value, memo), (_without(names, n.name), bufs, multi)))
    elif t is ir.Allocate or t is ir.Realize:
        names, bufs, multi = summary(n.body, memo)
        outer = [summary(k, memo) for k in children(n) if k is not n.body]
        outer.append((names, _without(bufs, n.name), multi or t is ir.Realize))
        r = _combine(outer)
    else:
        r = _combine([summary(k, memo) for k in children(n)])
        if t is ir.Load or t is ir.Store:
            r = (r[0], _union(r[1], frozenset((n.name,))), r[2])
        elif (t is ir.Provide or (t is ir.Call and n.call_type != ir.INTRINSIC)) and not r[2]:
            r = (r[0], r[1], True)
    memo[id(n)] = (n, r)
    return r


def passes(stmt, defined: set, buffers: set, flattened: bool, memo: dict) -> bool:
    """Whether the verifier finds nothing wrong in `stmt` (True is exact;
    False: it reports at least one problem)."""
    names, bufs, multi = summary(stmt, memo)
    return names <= defined and bufs <= buffers and not (flattened and multi)
