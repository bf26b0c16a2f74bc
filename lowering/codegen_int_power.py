"""NumPy's integer power of a run-time exponent, wrapping: the intrinsic
`int_power(x, e)` of an integer type t (scalar or vector), x ** e modulo
2 ** bits, as NumPy's loop computes it for an integer dtype.

    int_power(b, x, e) -> LLVM value of x's type

It calls the module's internal function pyhalide_int_power.<type> (one per
LLVM type, scalar or vector), a loop over the exponent's bits, square and
multiply:

    acc = 1; do { if e & 1: acc *= x;  x *= x;  e >>= 1 (logical) } while e != 0

(a vector: lane by lane in vector registers, until every lane's exponent is
0). The product of the squares x ** (2 ** k) of the exponent's set bits is
x ** e in the ring of integers modulo 2 ** bits whatever the order of the
products, so the result is the unrolled square and multiply's (and
NumPy's). The shift is logical: an exponent read as unsigned (a negative
int exponent, whose ValueError the frontend raises, or a uint64 past
2 ** 63) ends the loop after at most `bits` steps. x ** 0 is 1 (also 0 ** 0).

The loop instead of the unrolled steps keeps the IR small: an int64 power
unrolled was 63 steps (~250 instructions) that LLVM's passes took ~0.6 s to
optimize in a kernel (tests/frontend/test_array_gaps: 2.5 s for a kernel of
four powers)."""
from __future__ import annotations

from llvmlite import ir as ll

__all__ = ["int_power"]

PREFIX = "pyhalide_int_power."


def int_power(b: ll.IRBuilder, x, e):
    """x ** e, wrapping, for LLVM integer values (or vectors) of one type."""
    return b.call(_function(b.module, x.type), [x, e])


def _type_name(t) -> str:
    if isinstance(t, ll.VectorType):
        return f"v{t.count}i{t.element.width}"
    return f"i{t.width}"


def _function(mod: ll.Module, t):
    name = PREFIX + _type_name(t)
    fn = mod.globals.get(name)
    if fn is not None:
        return fn
    fn = ll.Function(mod, ll.FunctionType(t, [t, t]), name=name)
    fn.linkage = "internal"
    for attr in ("nounwind", "readnone"):
        fn.attributes.add(attr)
    set.add(fn.attributes, "willreturn")            # not in llvmlite's known set
    _body(fn, t)
    return fn


def _body(fn: ll.Function, t):
    x, e = fn.args
    entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "loop", "done"))
    vector = isinstance(t, ll.VectorType)
    lanes = t.count if vector else 1
    elem = t.element if vector else t

    def c(v):
        scalar = ll.Constant(elem, v)
        return ll.Constant(t, [scalar] * lanes) if vector else scalar

    b = ll.IRBuilder(entry)
    b.branch(loop)

    b.position_at_end(loop)
    acc, base, k = b.phi(t), b.phi(t), b.phi(t)
    odd = b.icmp_unsigned("!=", b.and_(k, c(1)), c(0))
    acc_next = b.select(odd, b.mul(acc, base), acc)
    base_next = b.mul(base, base)
    k_next = b.lshr(k, c(1))
    left = b.icmp_unsigned("!=", k_next, c(0))
    if vector:      # any lane's exponent left: the lanes' bits as one integer
        left = b.icmp_unsigned("!=", b.bitcast(left, ll.IntType(lanes)),
                               ll.Constant(ll.IntType(lanes), 0))
    b.cbranch(left, loop, done)
    for phi, start, again in ((acc, c(1), acc_next), (base, x, base_next), (k, e, k_next)):
        phi.add_incoming(start, entry)
        phi.add_incoming(again, loop)

    b.position_at_end(done)
    b.ret(acc_next)
