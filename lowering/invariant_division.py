"""Integer division and modulo by a loop-invariant run-time divisor become a
multiply-high and shifts whose constants are computed once, before the loop.

An integer Div or Mod whose divisor is not a constant is one `idiv` per
element (20-90 cycles for 64 bits; a vector's lanes are divided one by one),
although a divisor that cannot change inside a loop has constants that turn
every division by it into a multiplication. For an N-bit unsigned d >= 1
(Granlund and Montgomery 1994, figure 4.1, the "round-up" method; exact for
every N-bit n):

    l   = ceil(log2 d)                        (the bit length of d - 1)
    m   = floor(2^N * (2^l - d) / d) + 1      (fits in N bits)
    sh1 = min(l, 1),  sh2 = max(l - 1, 0)
    n / d = (t + ((n - t) >> sh1)) >> sh2,    t = mul_hi(m, n)

`mul_hi(a, b)` is the intrinsic giving the high N bits of the unsigned
2N-bit product (codegen_ops.mul_hi: one `mulx` for a 64-bit scalar, four
`vpmuludq` of 32-bit halves for a 64-bit vector, one for a 32-bit vector). m is computed in 2N-bit arithmetic for N <= 32, and for
N = 64 by a straight-line 128/64 division (Hacker's Delight's `divlu`, with
the dividend's low word 0 and its two quotient-digit corrections unrolled
into selects). The signed (Euclidean) division reduces to the unsigned one
on |d|, with s = n >> (N-1) (0 or -1):

    qf    = udiv(n ^ s, |d|) ^ s          floor(n / |d|)
    n / d = d < 0 ? -qf : qf              ((qf ^ ds) - ds, ds = d >> (N-1))
    n % d = n - qf * |d|                  (in [0, |d|))

The IR's definitions (DESIGN.md, "Semantics") hold for every divisor: the
results are and-ed with a mask that is 0 when d == 0 (n / 0 == n % 0 == 0);
d == -1 gives -n, wrapping (INT_MIN / -1 == INT_MIN), and 0; d == INT_MIN
is |d| = 2^(N-1), unsigned. Unsigned types are the same without s and ds.

A divisor is loop-invariant when it reads no memory and mentions no name
bound inside the loop (a divisor bound by a Let inside the loop is left as
it is: which binding a name means could then depend on the place of each
mention, and the IR allows shadowing). The constants are LetStmts just before the
outermost such loop; a loop with a constant extent below MIN_TRIPS leaves
its divisions to its inner loops (or as they are). Divisions whose dividend
is invariant too are left to LLVM's hoisting; a Div and a Mod by the same
divisor (Python's floor division makes both) share the constants.
PYHALIDE_DEBUG=1 reports each loop's rewrites."""
from __future__ import annotations

import dataclasses
import itertools

from pyhalide import ir
from pyhalide.ir.config import debug_print

MIN_TRIPS = 4


def hoist_invariant_division(stmt: ir.Stmt) -> ir.Stmt:
    """Divide by loop-invariant run-time divisors with constants computed
    before the loop (see the module docstring)."""
    finder = _Divisions()
    finder.visit(stmt)
    if not any(_strip(e.b) is not None and ir.const_value(_strip(e.b)) is None
               for e in finder.found):
        return stmt
    return _Loops(itertools.count()).mutate(stmt)


def _c(t: ir.Type, v) -> ir.Expr:
    return ir.const(t, v)


def _strip(d):
    """The scalar divisor of a Div/Mod (a Broadcast's value), or None."""
    if isinstance(d, ir.Broadcast):
        d = d.value
    return d if d.type.is_scalar() else None


class _Loops(ir.Mutator):
    """Finds the outermost loop in which each division's divisor is invariant."""

    stmts_only = True

    def __init__(self, counter):
        super().__init__()
        self.counter = counter

    def visit_For(self, s):
        body = s.body
        extent = ir.const_value(s.extent)
        lets = []
        if not (isinstance(extent, int) and extent < MIN_TRIPS):
            body, lets = _rewrite_loop(s, self.counter)
        new_body = self.mutate(body)
        out = s if new_body is s.body else dataclasses.replace(s, body=new_body)
        for name, value in reversed(lets):
            out = ir.LetStmt(name, value, out)
        return out


class _Bound(ir.Visitor):
    """The names bound inside a loop (by For, Let and LetStmt)."""

    def __init__(self):
        super().__init__()
        self.names = set()

    def visit_For(self, s):
        self.names.add(s.name)
        self.visit_children(s)

    def visit_Let(self, e):
        self.names.add(e.name)
        self.visit_children(e)

    visit_LetStmt = visit_Let


class _Invariance:
    """invariant(e): whether e reads no memory and mentions no name bound in
    the loop (then every mention of its names in the loop means the binding
    outside it, whatever the scopes and shared subexpressions inside)."""

    def __init__(self, loop: ir.For):
        b = _Bound()
        b.visit(loop.body)
        self.bound = b.names | {loop.name}

    def invariant(self, e) -> bool:
        return not ir.reads_memory(e) and self.bound.isdisjoint(ir.free_vars(e))


class _Divisions(ir.Visitor):
    def __init__(self):
        super().__init__()
        self.found = []

    def _div(self, e):
        if e.type.is_int() or e.type.is_uint():
            self.found.append(e)
        self.visit_children(e)

    visit_Div = visit_Mod = _div


def _rewrite_loop(loop: ir.For, counter):
    """(the loop's body with its invariant divisions rewritten, the
    LetStmts [(name, value)] of their constants)."""
    finder = _Divisions()
    finder.visit(loop.body)
    if not finder.found:
        return loop.body, []
    inv = _Invariance(loop)
    plans = {}          # (scalar type, divisor text) -> _Magic
    chosen = {}         # id(divisor node) -> _Magic
    for e in finder.found:
        d = _strip(e.b)
        if d is None or ir.const_value(d) is not None or id(e.b) in chosen:
            continue
        if not inv.invariant(d) or inv.invariant(e.a):
            continue
        key = (d.type, ir.expr_to_str(d))
        if key not in plans:
            plans[key] = _Magic(d, f"{loop.name}.dm{next(counter)}")
        chosen[id(e.b)] = plans[key]
    if not chosen:
        return loop.body, []
    body = _Rewrite(chosen, counter).mutate(loop.body)
    lets = [kv for m in plans.values() if m.used for kv in m.lets]
    debug_print(1, f"invariant division: loop {loop.name}: "
                   + "; ".join(f"{k[1]} ({k[0]})" for k, m in plans.items() if m.used)
                   + ": constants computed before the loop")
    return body, lets


class _Rewrite(ir.Mutator):
    def __init__(self, chosen, counter):
        super().__init__()
        self.chosen, self.counter = chosen, counter

    def _div(self, e):
        magic = self.chosen.get(id(e.b))
        if magic is None:
            return self.mutate_children(e)
        n = self.mutate(e.a)
        name = f"{magic.prefix}.n{next(self.counter)}"
        var = ir.Variable(n.type, name)
        return ir.Let(name, n, magic.apply(var, isinstance(e, ir.Mod)))

    visit_Div = visit_Mod = _div


class _Magic:
    """The constants of one divisor (LetStmts, made on first use) and the
    per-element sequence."""

    def __init__(self, divisor: ir.Expr, prefix: str):
        self.divisor, self.prefix = divisor, prefix
        self.t = divisor.type
        self.u = self.t.with_code("uint")
        self.bits = self.t.bits
        self.lets = []
        self.used = False

    def let(self, suffix, value) -> ir.Variable:
        name = f"{self.prefix}.{suffix}"
        self.lets.append((name, value))
        return ir.Variable(value.type, name)

    def _constants(self):
        if self.used:
            return
        self.used = True
        t, u, n_bits = self.t, self.u, self.bits
        d = self.let("d", self.divisor)
        zero = ir.EQ(d, _c(t, 0))
        self.mask = self.let("mask", ir.Select(zero, _c(t, 0), _c(t, -1)))
        if t.is_int():
            self.dsign = self.let("dsign", ir.Shr(d, _c(t, n_bits - 1)))
            absd = self.let("absd", ir.Select(ir.LT(d, _c(t, 0)), ir.Sub(_c(t, 0), d), d))
            self.absd = absd
            a = ir.Cast(u, absd)
        else:
            self.absd = d
            a = d
        a = self.let("a", ir.Select(zero, _c(u, 1), a))       # >= 1: the mask zeroes d == 0
        l_ = self.let("l", _bit_length(self, ir.Sub(a, _c(u, 1)), "l"))
        p = self.let("p", ir.Sub(ir.Shl(_c(u, 1), l_), a))     # 2^l - a, mod 2^N
        if n_bits <= 32:
            w = u.with_bits(2 * n_bits)
            q = ir.Div(ir.Shl(ir.Cast(w, p), _c(w, n_bits)), ir.Cast(w, a))
            m = ir.Cast(u, q)
        else:
            m = _divlu(self, p, a)
        self.m = self.let("m", ir.Add(m, _c(u, 1)))
        first = ir.EQ(l_, _c(u, 0))
        self.sh1 = self.let("sh1", ir.Select(first, _c(u, 0), _c(u, 1)))
        self.sh2 = self.let("sh2", ir.BitAnd(ir.Select(first, _c(u, 0), ir.Sub(l_, _c(u, 1))),
                                             _c(u, n_bits - 1)))

    def apply(self, n: ir.Variable, want_mod: bool) -> ir.Expr:
        """n / d or n % d (n: the dividend, a scalar or vector Variable)."""
        self._constants()
        lanes = n.type.lanes

        def b(x):
            return x if lanes == 1 else ir.Broadcast(x, lanes)
        tv, uv = n.type, self.u.with_lanes(lanes)
        if self.t.is_int():
            s = ir.Shr(n, b(_c(self.t, self.bits - 1)))
            nu = ir.Cast(uv, ir.BitXor(n, s))
        else:
            nu = n
        t1 = ir.Call(uv, "mul_hi", (b(self.m), nu), ir.INTRINSIC)
        q = ir.Shr(ir.Add(ir.Shr(ir.Sub(nu, t1), b(self.sh1)), t1), b(self.sh2))
        if self.t.is_int():
            q = ir.BitXor(ir.Cast(tv, q), s)              # floor(n / |d|)
        if want_mod:
            out = ir.Sub(n, ir.Mul(q, b(self.absd)))
        elif self.t.is_int():
            out = ir.Sub(ir.BitXor(q, b(self.dsign)), b(self.dsign))
        else:
            out = q
        return ir.BitAnd(out, b(self.mask))


def _bit_length(magic: _Magic, x: ir.Expr, tag: str) -> ir.Expr:
    """The bit length of the unsigned x (0 for 0), by halving steps."""
    u, n_bits = magic.u, magic.bits
    x = magic.let(f"{tag}x", x)
    length = _c(u, 0)
    k = n_bits // 2
    while k >= 1:
        hi = ir.Shr(x, _c(u, k))
        big = magic.let(f"{tag}b{k}", ir.NE(hi, _c(u, 0)))
        x = magic.let(f"{tag}x{k}", ir.Select(big, hi, x))
        length = magic.let(f"{tag}n{k}", ir.Add(length, ir.Select(big, _c(u, k), _c(u, 0))))
        k //= 2
    return ir.Add(length, ir.Select(ir.NE(x, _c(u, 0)), _c(u, 1), _c(u, 0)))


def _divlu(magic: _Magic, p: ir.Expr, a: ir.Expr) -> ir.Expr:
    """floor(p * 2^64 / a) for uint64 p < a (a >= 1): Hacker's Delight's
    divlu (two 32-bit quotient digits, each estimated from the divisor's
    normalized high half and corrected at most twice)."""
    u = magic.u
    half, base = 32, 1 << 32
    s = magic.let("s", ir.Sub(_c(u, 64), _bit_length(magic, a, "s")))
    v = magic.let("v", ir.Shl(a, s))
    vn1 = magic.let("vn1", ir.Shr(v, _c(u, half)))
    vn0 = magic.let("vn0", ir.BitAnd(v, _c(u, base - 1)))
    un32 = magic.let("un32", ir.Shl(p, s))

    def digit(tag, num):
        q = magic.let(f"{tag}q", ir.Div(num, vn1))
        r = magic.let(f"{tag}r", ir.Sub(num, ir.Mul(q, vn1)))

        def too_big(q, r):
            return ir.Or(ir.GE(q, _c(u, base)),
                         ir.GT(ir.Mul(q, vn0), ir.Shl(r, _c(u, half))))
        c1 = magic.let(f"{tag}c1", too_big(q, r))
        q = magic.let(f"{tag}q1", ir.Sub(q, ir.Select(c1, _c(u, 1), _c(u, 0))))
        r = magic.let(f"{tag}r1", ir.Add(r, ir.Select(c1, vn1, _c(u, 0))))
        c2 = ir.And(ir.And(c1, ir.LT(r, _c(u, base))), too_big(q, r))
        return magic.let(f"{tag}q2", ir.Sub(q, ir.Select(c2, _c(u, 1), _c(u, 0))))
    q1 = digit("hi", un32)
    un21 = magic.let("un21", ir.Sub(ir.Shl(un32, _c(u, half)), ir.Mul(q1, v)))
    q0 = digit("lo", un21)
    return ir.Add(ir.Shl(q1, _c(u, half)), q0)
