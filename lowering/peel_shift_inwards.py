"""The last vector of a ShiftInwards split runs apart from the others.

A vectorized dimension of extent E split by K with ShiftInwards becomes

    for (v, 0, (E + K - 1) / K) {
      let base = min(v * K, max(E - K, 0))
      ... vectors at base ...
    }

so every vector pays for the clamp (a compare and a `cmov` before its
address: a copy of 4096x4096 float32 ran 1.12x Halide's time on the AVX-512
host of session 13, where Halide peels the last vector). Only the last
iteration can be clamped: for v <= N - 2, with N = (E + K - 1) / K,
v * K <= E - K - 1 (and N <= 1 when E < K). So an innermost loop of that
form, whose body stores a vector and holds no loop, becomes

    for (v, 0, N - 1) { let base = v * K  ... }
    fallback for (v, max(N - 1, 0), min(N, 1)) { let base = min(v * K, max(E - K, 0))  ... }

exact for every E (an extent <= 0 runs nothing); the one-vector loop is
a fallback loop, which LLVM neither unrolls nor vectorizes (less to
compile). A body that may leave the loop (a LoopExit) is not peeled. Nor
is a body computing more than PEEL_MAX_WORK distinct vector expressions:
there the clamp is a few scalar operations beside that much vector work,
while the copy doubles the body's code (interpolate's nine upsampling
levels per tile, 40 vector expressions each: peeled, they took a quarter of
LLVM's time for the app, for no measurable speed). Only the pattern above,
with the same E and K in the extent and the clamp, is peeled; loops whose
extent is a constant are left to LLVM, which folds their clamps.

PYHALIDE_DEBUG=1 reports each peel."""
from __future__ import annotations

from dataclasses import replace

from pyhalide import ir
from pyhalide.ir.config import debug_print

from .cold_copies import LeavesColdCopies, cold_copies

# a body computing more vector expressions than this is not peeled (above)
PEEL_MAX_WORK = 24


def peel_shift_inwards(stmt: ir.Stmt) -> ir.Stmt:
    """Peel the last vector of innermost ShiftInwards loops (see the module
    docstring)."""
    return _Peel(cold_copies(stmt)).mutate(stmt)


def _const(e):
    return e.value if isinstance(e, ir.Const) and isinstance(e.value, int) else None


def _minus(e):
    """(E, k) with e == E - k, k a constant (E - k or E + (-k)), else None."""
    if isinstance(e, ir.Sub) and _const(e.b) is not None:
        return e.a, _const(e.b)
    if isinstance(e, ir.Add) and _const(e.b) is not None:
        return e.a, -_const(e.b)
    return None


def _split_extent(extent):
    """(E, K) with extent == (E + K - 1) / K, K > 1 a constant, else None."""
    if not isinstance(extent, ir.Div) or _const(extent.b) is None or _const(extent.b) < 2:
        return None
    k = _const(extent.b)
    got = _minus(extent.a)
    if got is None or got[1] != -(k - 1):
        return None
    return got[0], k


def _is_clamp(value, v: str, e, k: int) -> bool:
    """value == min(v * k, max(e - k, 0))."""
    if not isinstance(value, ir.Min):
        return False
    lhs, rhs = value.a, value.b
    if not (isinstance(lhs, ir.Mul) and isinstance(lhs.a, ir.Variable) and lhs.a.name == v
            and _const(lhs.b) == k):
        return False
    if not (isinstance(rhs, ir.Max) and _const(rhs.b) == 0):
        return False
    got = _minus(rhs.a)
    return got is not None and got[1] == k and ir.equal(got[0], e)


class _Stores(ir.Visitor):
    """Whether a body stores a vector, whether it holds a loop or an exit,
    and its work: the distinct vector expressions it computes."""

    def __init__(self):
        super().__init__()
        self.vector, self.unsafe = False, False
        self.work = 0

    def visit(self, n):
        if isinstance(n, ir.Expr) and id(n) not in self.seen and n.type.lanes > 1:
            self.work += 1
        super().visit(n)

    def visit_Store(self, s):
        self.vector = self.vector or s.value.type.lanes > 1
        self.visit_children(s)

    def visit_For(self, s):
        self.unsafe = True

    def visit_LoopExit(self, s):
        self.unsafe = True      # (an exit must leave both copies: not peeled)


class _Peel(LeavesColdCopies, ir.Mutator):
    stmts_only = True

    def visit_For(self, s):
        s = self.mutate_children(s)
        if s.kind != ir.ForKind.SERIAL or not ir.is_const(s.min, 0) or _const(s.extent) is not None:
            return s
        got = _split_extent(s.extent)
        if got is None:
            return s
        e, k = got
        found = _Stores()
        found.visit(s.body)
        if not found.vector or found.unsafe or found.work > PEEL_MAX_WORK:
            return s
        main = self._unclamped(s.body, s.name, e, k)
        if main is None:
            return s
        debug_print(1, f"pyhalide: peel the last vector of loop {s.name}")
        n = s.extent
        last = ir.Sub(n, ir.index(1))
        return ir.block(replace(s, extent=last, body=main),
                        replace(s, min=ir.Max(last, ir.index(0)), extent=ir.Min(n, ir.index(1)),
                                kind=ir.ForKind.FALLBACK))

    def _unclamped(self, body, v, e, k):
        """body with its clamp let (in the chain of lets at its top) set to
        v * k, or None when there is none."""
        if not isinstance(body, ir.LetStmt):
            return None
        if _is_clamp(body.value, v, e, k):
            return replace(body, value=body.value.a)
        inner = self._unclamped(body.body, v, e, k)
        return None if inner is None else replace(body, body=inner)
