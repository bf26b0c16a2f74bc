"""Integer division and modulo of a ramp by a constant that stays within
one quotient: `ramp(b, s, L) / c` as `broadcast(b / c)` and
`ramp(b, s, L) % c` as `ramp(b % c, s, L)`.

    ramp_div_mod(stmt) -> stmt

c is a positive constant power of two and s a constant >= 0. With b known
to be r modulo m (m a multiple of c: b's linear form through the lets in
scope, loop variables and parameters contributing multiples of their
constant factors), every lane b + i*s has the quotient of b where
r % c + (L - 1)*s < c (division and modulo are Euclidean: floor for a
positive divisor). The congruence is tracked modulo a power of two at most
2**32, which wrapping 32- and 64-bit arithmetic preserves; the lanes
themselves cannot wrap (b + (L - 1)*s stays below the next multiple of c,
and the largest value of the type is one less than a multiple of c).

The packed panels of the default `a @ b` (frontend_ast/array_dot.py) are
read at `(x % W, k, x / W)`: after vectorizing and unrolling the tile's
columns, that index is a dense load instead of a gather. Runs after
unroll (where the tile's column offsets are constants)."""
from __future__ import annotations

from math import gcd

from pyhalide import ir

_TOP = 1 << 32      # congruences are kept modulo a divisor of 2**32


def ramp_div_mod(stmt):
    if not _any_ramp_division(stmt):
        return stmt
    return _RampDivMod().mutate(stmt)


class _Finder(ir.Visitor):
    """Whether some Div or Mod divides a Ramp (each node visited once)."""

    def __init__(self):
        super().__init__()
        self.found = False

    def visit_Div(self, e):
        self.found = self.found or isinstance(e.a, ir.Ramp)
        self.visit_children(e)

    visit_Mod = visit_Div


def _any_ramp_division(stmt) -> bool:
    f = _Finder()
    f.visit(stmt)
    return f.found


def _pow2_part(m: int) -> int:
    """The largest power of two dividing m (at most 2**32; m == 0: 2**32)."""
    if m == 0:
        return _TOP
    return min(m & -m, _TOP)


def _const_int(e):
    while isinstance(e, ir.Broadcast):
        e = e.value
    if isinstance(e, ir.Const) and e.type.is_integer():
        return e.value
    return None


class _RampDivMod(ir.Mutator):
    def __init__(self):
        super().__init__()
        self.scope = {}         # let name -> (modulus, remainder) of its value

    def _mod_rem(self, e):
        """(m, r): e is congruent to r modulo m (m a power of two, at most
        2**32; m == 1 says nothing); scalar integer expressions."""
        if isinstance(e, ir.Const) and e.type.is_integer():
            return _TOP, e.value % _TOP
        if isinstance(e, ir.Variable):
            return self.scope.get(e.name, (1, 0))
        if isinstance(e, ir.Cast) and e.type.is_integer() and e.value.type.is_integer() \
                and e.value.type.bits >= 32 and e.type.bits >= e.value.type.bits:
            return self._mod_rem(e.value)
        if isinstance(e, (ir.Add, ir.Sub, ir.Mul)):
            m1, r1 = self._mod_rem(e.a)
            m2, r2 = self._mod_rem(e.b)
            if isinstance(e, ir.Add):
                m, r = gcd(m1, m2), r1 + r2
            elif isinstance(e, ir.Sub):
                m, r = gcd(m1, m2), r1 - r2
            else:
                m, r = gcd(gcd(m1 * m2, m1 * r2), m2 * r1), r1 * r2
            m = _pow2_part(m)
            return m, r % m
        return 1, 0

    def _within(self, ramp, c):
        """Whether every lane of `ramp` has the quotient of its base by c."""
        if not isinstance(ramp, ir.Ramp) or ramp.base.type.lanes != 1 or c is None or c <= 0 \
                or c & (c - 1) or c > _TOP:
            return False
        s = _const_int(ramp.stride)
        if s is None or s < 0:
            return False
        m, r = self._mod_rem(ramp.base)
        return m % c == 0 and r % c + (ramp.lanes - 1) * s < c

    def visit_Div(self, e):
        a, b = self.mutate(e.a), self.mutate(e.b)
        c = _const_int(b)
        if e.type.lanes > 1 and e.type.is_integer() and self._within(a, c):
            return ir.Broadcast(ir.Div(a.base, ir.Const(a.base.type, c)), a.lanes)
        return e if a is e.a and b is e.b else ir.Div(a, b)

    def visit_Mod(self, e):
        a, b = self.mutate(e.a), self.mutate(e.b)
        c = _const_int(b)
        if e.type.lanes > 1 and e.type.is_integer() and self._within(a, c):
            return ir.Ramp(ir.Mod(a.base, ir.Const(a.base.type, c)), a.stride, a.lanes)
        return e if a is e.a and b is e.b else ir.Mod(a, b)

    def _folded(self, e, make):
        """e (an Add, Sub or Mul of int vectors) with its operands rewritten;
        where one was rewritten, broadcasts and ramps combined lane by lane
        (`x(a) + ramp(b, s, L)` is `ramp(a + b, s, L)`, ...) so that an index
        made of them is one ramp (a dense load in codegen_llvm)."""
        a, b = self.mutate(e.a), self.mutate(e.b)
        if a is e.a and b is e.b:
            return e
        return _combine(make, a, b) or make(a, b)

    def visit_Add(self, e):
        return self._folded(e, ir.Add)

    def visit_Sub(self, e):
        return self._folded(e, ir.Sub)

    def visit_Mul(self, e):
        return self._folded(e, ir.Mul)

    def _scoped(self, n, make):
        """n (a Let or LetStmt) with its value's congruence in scope for the
        body; the memo is the body's own (the same body object under another
        binding of the name is rewritten again)."""
        value = self.mutate(n.value)
        known = self._mod_rem(value) if value.type.lanes == 1 and \
            value.type.is_integer() else (1, 0)
        saved, saved_memo = self.scope.get(n.name), self.memo
        self.scope[n.name], self.memo = known, {}
        try:
            body = self.mutate(n.body)
        finally:
            self.memo = saved_memo
            if saved is None:
                self.scope.pop(n.name, None)
            else:
                self.scope[n.name] = saved
        return n if value is n.value and body is n.body else make(n.name, value, body)

    def visit_LetStmt(self, s):
        return self._scoped(s, ir.LetStmt)

    def visit_Let(self, e):
        return self._scoped(e, ir.Let)

    def visit_For(self, s):
        # a loop variable shadows a let of the same name
        saved, saved_memo = self.scope.pop(s.name, None), self.memo
        self.memo = {}
        try:
            return self.mutate_children(s)
        finally:
            self.memo = saved_memo
            if saved is not None:
                self.scope[s.name] = saved


def _parts(e):
    """(base, stride) of a ramp, (value, None) of a broadcast of a scalar;
    None otherwise."""
    if isinstance(e, ir.Ramp) and e.base.type.lanes == 1:
        return e.base, e.stride
    if isinstance(e, ir.Broadcast) and e.value.type.lanes == 1:
        return e.value, None
    return None


def _combine(make, a, b):
    """make(a, b) as one ramp or broadcast, lane for lane the same, or None."""
    pa, pb = _parts(a), _parts(b)
    if pa is None or pb is None or not a.type.element_of().is_integer():
        return None
    (x, sx), (y, sy), lanes = pa, pb, a.type.lanes
    if sx is None and sy is None:
        return ir.Broadcast(make(x, y), lanes)
    if make is ir.Mul:
        if sx is not None and sy is not None:
            return None
        stride, factor = (sx, y) if sx is not None else (sy, x)
        return ir.Ramp(make(x, y), ir.Mul(stride, factor), lanes)
    zero = ir.Const(x.type, 0)
    return ir.Ramp(make(x, y), make(sx if sx is not None else zero,
                                    sy if sy is not None else zero), lanes)
