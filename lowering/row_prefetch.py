"""Software prefetch of the next group of rows in a loop that reads several
rows of one buffer side by side (the default schedule of a row sum,
frontend_ast/sum_order.py: ROWS rows' chunks interleaved along their
columns).

On the AMD host of session 22 (znver5, docs/issue16_reductions_amd.md) the
hardware prefetchers follow one sequential stream well but lose several
interleaved ones (rows 16 KiB apart): `a.sum(axis=1)` of 2048 x 2048
float64 read from DRAM ran 1.5x NumPy's one-row-at-a-time loop, while in
cache it was faster. Prefetching into L2 the same column of the row one
group further on (G rows of the group, G x the row stride ahead, a stride
known only at run time) brought a C loop of that order from 0.93-1.27 ms to
0.75-1.04 ms; prefetches along the row (4-16 KiB ahead) did not.

RowGroups(name, body) answers, for a serial loop `name` over `body` that
only reads streams (codegen_ops.streaming_loop), which dense loads are rows
of such a group: a load of buffer `buf` whose index is a ramp of stride 1
with base `T * buf.stride.k + U` (k >= 1), T not moving with the loop (the
row) and U moving with it (the column). A buffer is a group when two or
more distinct rows T are read in the body; the prefetch distance is then
(number of rows) x stride elements."""
from __future__ import annotations

import itertools

from llvmlite import ir as ll

from pyhalide import ir

from . import codegen_ops as ops

# llvm.prefetch's locality for the next group: 2 (prefetcht1, into L2). The
# L1 variant (prefetcht0) made the C loop slower than no prefetch.
LOCALITY = 2

# The prefetch runs only where the rows of the buffer span more than this
# many bytes (extent x stride of the row axis): in cache the prefetches are
# only instructions (8 per chunk of 8 rows); on the session 22 host they made
# 512 x 512 float64 (2 MiB) 14% and 1024 x 1024 (8 MiB, in its 32 MiB L3
# shared by other processes) 15-20% slower. LLVM unswitches the loop on it.
LARGE_BYTES = 16 << 20


def _terms(e: ir.Expr) -> list:
    """The terms of e's tree of Adds."""
    if isinstance(e, ir.Add):
        return _terms(e.a) + _terms(e.b)
    return [e]


def row_term(base: ir.Expr, buf: str):
    """(T, stride Variable, the other terms) where `base` is a sum with one
    term T * buf.stride.k (k >= 1, either order); else None."""
    terms = _terms(base)
    for i, t in enumerate(terms):
        if not isinstance(t, ir.Mul):
            continue
        for row, s in ((t.a, t.b), (t.b, t.a)):
            if isinstance(s, ir.Variable) and s.name.startswith(buf + ".stride.") \
                    and s.name[len(buf) + 8:] not in ("", "0"):
                return row, s, terms[:i] + terms[i + 1:]
    return None


class RowGroups:
    """The row groups of the serial loop `name` over `body`, walked on first
    use: `rows(buf, base)` is the number of rows of buf's group when a load
    of buf at ramp(base, 1, ..) is one of its rows, else 0."""

    __slots__ = ("name", "body", "memo", "_rows")

    def __init__(self, name: str, body: ir.Stmt, memo: dict | None = None):
        self.name, self.body, self.memo, self._rows = name, body, memo, None

    def rows(self, buf: str, base: ir.Expr) -> int:
        if self._rows is None:
            self._rows = {}
            if ops.streaming_loop(self.name, self.body, self.memo):
                v = _Rows(self.name, self.memo)
                v.visit(self.body)
                self._rows = {b: len(ts) for b, ts in v.rows.items() if len(ts) >= 2}
        n = self._rows.get(buf, 0)
        return n if n and row_term(base, buf) is not None else 0


class _Rows(ir.Visitor):
    """RowGroups' walk: `rows[buf]` the distinct rows T (the lets of the
    body substituted) of buf's dense loads that are a row read along its
    columns; `moving` the names that move with the loop."""

    memoize = False     # a body unrolled under lets repeats one subtree object

    def __init__(self, name: str, memo: dict | None = None):
        super().__init__()
        self.moving = {name}
        self.names_memo: dict = {} if memo is None else memo
        self.lets: dict = {}
        self.rows: dict = {}
        self.scope = 0      # numbers each binding of the lets: a node once per scope
        self.scopes = itertools.count(1)

    def visit(self, n):
        key = (id(n), self.scope)
        if n is not None and key not in self.seen:
            self.seen.add(key)
            super().visit(n)

    def _moves(self, e) -> bool:
        return bool(ir.mentioned_names(e, self.names_memo) & self.moving)

    def visit_LetStmt(self, s):
        self.visit(s.value)
        old, scope = self.lets.get(s.name), self.scope
        if self._moves(s.value):
            self.moving.add(s.name)
        else:
            self.lets[s.name] = ir.substitute(s.value, self.lets)
        self.scope = next(self.scopes)
        self.visit(s.body)
        self.scope = scope
        if old is not None:
            self.lets[s.name] = old
        else:
            self.lets.pop(s.name, None)

    visit_Let = visit_LetStmt

    def visit_For(self, s):
        self.moving.add(s.name)
        self.visit_children(s)

    def visit_Load(self, e):
        self.visit_children(e)
        idx = e.index
        if not (isinstance(idx, ir.Ramp) and isinstance(idx.stride, ir.Const)
                and idx.stride.value == 1):
            return
        found = row_term(idx.base, e.name)
        if found is None:
            return
        row, _, rest = found
        if self._moves(row) or not any(self._moves(t) for t in rest):
            return
        row = ir.substitute(row, self.lets)
        seen = self.rows.setdefault(e.name, [])
        if not any(ir.equal(row, r) for r in seen):
            seen.append(row)


def larger_than_cache(b: ll.IRBuilder, stride, extent, elem_bytes: int):
    """The i1 `extent * stride * elem_bytes > LARGE_BYTES` (i64 operands:
    the product of two int32 cannot wrap; a negative stride gives false)."""
    span = b.mul(b.mul(stride, extent), ll.Constant(ops.I64, elem_bytes))
    return b.icmp_signed(">", span, ll.Constant(ops.I64, LARGE_BYTES))


def prefetch_next_group(b: ll.IRBuilder, p, etype, elem_bytes: int, lanes: int, ahead):
    """Prefetch into L2 the `lanes` elements `ahead` (an i64 LLVM value, in
    elements) past `p`: one prefetch per cache line the vector spans."""
    fn = ops.intrinsic(b.module, "llvm.prefetch.p0", ll.VoidType(),
                       [ops.PTR, ops.I32, ops.I32, ops.I32])
    per_line = max(ops.CACHE_LINE // elem_bytes, 1)
    count = -(-lanes * elem_bytes // ops.CACHE_LINE)
    for k in range(count):
        at = b.add(ahead, ll.Constant(ops.I64, k * per_line)) if k else ahead
        q = b.gep(p, [at], source_etype=etype)
        b.call(fn, [q, ll.Constant(ops.I32, 0), ll.Constant(ops.I32, LOCALITY),
                    ll.Constant(ops.I32, 1)])
