"""NumPy's integer power of a run-time exponent, wrapping: the intrinsic
`int_power(x, e)` of an integer type t (scalar or vector), x ** e modulo
2 ** bits, as NumPy's loop computes it for an integer dtype.

    int_power(b, x, e) -> LLVM value of x's type
    checked_power(b, x, e, part) -> part 0: Python's int power in int64
        (int_power_checked), part 1: whether it fits (int_power_fits)

It calls the module's internal function pyhalide_int_power.<type> (one per
LLVM type, scalar or vector), a loop over the exponent's bits, square and
multiply:

    acc = 1; do { if e & 1: acc *= x;  x *= x;  e >>= 1 (logical) } while e != 0

(a vector: all lanes at once in vector registers, until every lane's exponent is
0). The product of the squares x ** (2 ** k) of the exponent's set bits is
x ** e in the ring of integers modulo 2 ** bits whatever the order of the
products, so the result is the unrolled square and multiply's (and
NumPy's). The shift is logical: an exponent read as unsigned (a negative
int exponent, whose ValueError the frontend raises, or a uint64 past
2 ** 63) ends the loop after at most `bits` steps. x ** 0 is 1 (also 0 ** 0).

The loop instead of the unrolled steps keeps the IR small: an int64 power
unrolled was 63 steps (~250 instructions) that LLVM's passes took ~0.6 s to
optimize in a kernel (tests/frontend/test_array_gaps: 2.5 s for a kernel of
four powers).

checked_power is the same loop in int64 with LLVM's exact signed
multiply-overflow flag on each product and each needed square
(pyhalide_int_power_checked, returning the value and the flag; the two
intrinsics call it with the same arguments, which LLVM merges: it is
readnone), for the frontend's checked Python-int power of an exponent
without a small bound (frontend_ast/ops.py _int_power), before seven
unrolled steps with a division per product check."""
from __future__ import annotations

from llvmlite import ir as ll

from .codegen_module_function import call_each_lane, module_function

__all__ = ["int_power", "checked_power"]

PREFIX = "pyhalide_int_power."


def int_power(b: ll.IRBuilder, x, e):
    """x ** e, wrapping, for LLVM integer values (or vectors) of one type."""
    return b.call(_function(b.module, x.type), [x, e])


def _type_name(t) -> str:
    if isinstance(t, ll.VectorType):
        return f"v{t.count}i{t.element.width}"
    return f"i{t.width}"


def _function(mod: ll.Module, t):
    return module_function(mod, PREFIX + _type_name(t), ll.FunctionType(t, [t, t]),
                           lambda fn: _body(fn, t))


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


CHECKED = "pyhalide_int_power_checked"


def checked_power(b: ll.IRBuilder, x, e, part: int):
    """Python's int power in int64 (x, e int64 values or vectors of them, e
    not negative): part 0 the power (wrapped where it overflows), part 1
    whether it fits in int64 (an i1)."""
    fn = _checked_function(b.module)
    if not isinstance(x.type, ll.VectorType):
        return b.extract_value(b.call(fn, [x, e]), part)
    return call_each_lane(b, fn, x, e, ll.IntType(64) if part == 0 else ll.IntType(1), part)


def _checked_function(mod: ll.Module):
    """pyhalide_int_power_checked(i64 x, i64 e) -> {i64, i1}: square and
    multiply over e's bits (logical shifts), each product at a set bit and
    each square x ** (2 ** k) where e has a bit at k or above with LLVM's
    exact signed multiply-overflow flag; the i1 is that none overflowed,
    which is exactly where Python's x ** e fits in int64 (every such product
    and square divides the result, or is 1 or the result itself when |x| <=
    1)."""
    i64, i1 = ll.IntType(64), ll.IntType(1)
    pair = ll.LiteralStructType([i64, i1])
    return module_function(mod, CHECKED, ll.FunctionType(pair, [i64, i64]), _checked_body)


def _checked_body(fn: ll.Function):
    mod, pair = fn.module, fn.function_type.return_type
    i64, i1 = pair.elements
    smul = mod.globals.get("llvm.smul.with.overflow.i64") or ll.Function(
        mod, ll.FunctionType(pair, [i64, i64]), name="llvm.smul.with.overflow.i64")
    x, e = fn.args
    entry, loop, square, done = (fn.append_basic_block(n)
                                 for n in ("entry", "loop", "square", "done"))

    def c(v, t=i64):
        return ll.Constant(t, v)

    b = ll.IRBuilder(entry)
    b.branch(loop)

    b.position_at_end(loop)
    acc, base, k, ok = b.phi(i64), b.phi(i64), b.phi(i64), b.phi(i1)
    odd = b.icmp_unsigned("!=", b.and_(k, c(1)), c(0))
    prod = b.call(smul, [acc, base])
    acc_next = b.select(odd, b.extract_value(prod, 0), acc)
    ok_prod = b.and_(ok, b.not_(b.and_(odd, b.extract_value(prod, 1))))
    k_next = b.lshr(k, c(1))
    b.cbranch(b.icmp_unsigned("!=", k_next, c(0)), square, done)

    b.position_at_end(square)           # x ** (2 ** (k + 1)): a higher bit needs it
    sq = b.call(smul, [base, base])
    sq_value = b.extract_value(sq, 0)
    ok_sq = b.and_(ok_prod, b.not_(b.extract_value(sq, 1)))
    b.branch(loop)
    for phi, start, again in ((acc, c(1), acc_next), (base, x, sq_value),
                              (k, e, k_next), (ok, c(1, i1), ok_sq)):
        phi.add_incoming(start, entry)
        phi.add_incoming(again, square)

    b.position_at_end(done)
    out = b.insert_value(ll.Constant(pair, ll.Undefined), acc_next, 0)
    b.ret(b.insert_value(out, ok_prod, 1))
