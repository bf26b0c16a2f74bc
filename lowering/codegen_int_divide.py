"""Python's `int / int`: the float64 nearest to the exact quotient of two
int64 values (ties to even), as CPython computes it.

    true_divide(b, x, y) -> LLVM double (or vector of doubles)

float(x) / float(y) rounds twice when |x| or |y| is above 2**53 (the
conversions round), so `(10**17 + 1) / 3` would come out one ulp off. The
module's internal function pyhalide_int_true_divide(i64, i64) -> double
divides exactly:

- n = |x|, d = |y| as unsigned 64-bit values (|-2**63| = 2**63 fits);
- both at most 2**53 (exact as doubles), or n == 0, or d == 0: one fdiv,
  which is correctly rounded (d == 0 is never a result: the frontend guards
  it with ZeroDivisionError, but the call must not trap where a select
  evaluates it eagerly);
- otherwise q = n // d, r = n % d, then one quotient bit per step (r < d <=
  2**63, so 2r fits in 64 bits) until q >= 2**54: q then has at least two
  bits below the 53 kept, so q | (r != 0) holds the round bit and a sticky
  bit, and uitofp rounds it to nearest even exactly as the infinite quotient
  would be; the k steps are undone by a multiplication with 2**-k (exact:
  n / d >= 2**-63, far from the subnormals). At most 54 + 63 steps.
- the sign is (x < 0) xor (y < 0), also on a zero quotient (0 / -5 is -0.0).
"""
from __future__ import annotations

from llvmlite import ir as ll

from .codegen_module_function import call_each_lane, module_function

__all__ = ["true_divide"]

NAME = "pyhalide_int_true_divide"
I64 = ll.IntType(64)
F64 = ll.DoubleType()
EXACT_LIMIT = 2 ** 53          # integers up to this are exact doubles
ENOUGH_BITS = 2 ** 54          # a quotient this large keeps a round and a sticky bit


def true_divide(b: ll.IRBuilder, x, y):
    """x / y for int64 LLVM values (scalars or vectors of equal lanes), rounded once."""
    fn = module_function(b.module, NAME, ll.FunctionType(F64, [I64, I64]), _body)
    if not isinstance(x.type, ll.VectorType):
        return b.call(fn, [x, y])
    return call_each_lane(b, fn, x, y, F64)


def _body(fn: ll.Function):
    x, y = fn.args
    entry, fast, slow, loop, step, finish, done = (
        fn.append_basic_block(n) for n in ("entry", "fast", "slow", "loop", "step",
                                           "finish", "done"))
    c = lambda v: ll.Constant(I64, v)  # noqa: E731
    b = ll.IRBuilder(entry)
    x_neg, y_neg = b.icmp_signed("<", x, c(0)), b.icmp_signed("<", y, c(0))
    negative = b.xor(x_neg, y_neg)
    n = b.select(x_neg, b.sub(c(0), x), x)
    d = b.select(y_neg, b.sub(c(0), y), y)
    exact = b.and_(b.icmp_unsigned("<=", n, c(EXACT_LIMIT)),
                   b.icmp_unsigned("<=", d, c(EXACT_LIMIT)))
    trivial = b.or_(b.icmp_unsigned("==", n, c(0)), b.icmp_unsigned("==", d, c(0)))
    b.cbranch(b.or_(exact, trivial), fast, slow)

    b.position_at_end(fast)
    quick = b.fdiv(b.uitofp(n, F64), b.uitofp(d, F64))
    b.branch(done)

    b.position_at_end(slow)
    q0, r0 = b.udiv(n, d), b.urem(n, d)
    b.branch(loop)

    b.position_at_end(loop)
    q, r, k = b.phi(I64), b.phi(I64), b.phi(I64)
    b.cbranch(b.icmp_unsigned(">=", q, c(ENOUGH_BITS)), finish, step)

    b.position_at_end(step)
    r2 = b.shl(r, c(1))
    bit = b.icmp_unsigned(">=", r2, d)
    q_next = b.or_(b.shl(q, c(1)), b.zext(bit, I64))
    r_next = b.select(bit, b.sub(r2, d), r2)
    k_next = b.add(k, c(1))
    b.branch(loop)
    for phi, start, again in ((q, q0, q_next), (r, r0, r_next), (k, c(0), k_next)):
        phi.add_incoming(start, slow)
        phi.add_incoming(again, step)

    b.position_at_end(finish)
    sticky = b.zext(b.icmp_unsigned("!=", r, c(0)), I64)
    rounded = b.uitofp(b.or_(q, sticky), F64)
    scale = b.bitcast(b.shl(b.sub(c(1023), k), c(52)), F64)       # 2**-k
    slow_value = b.fmul(rounded, scale)
    b.branch(done)

    b.position_at_end(done)
    magnitude = b.phi(F64)
    magnitude.add_incoming(quick, fast)
    magnitude.add_incoming(slow_value, finish)
    b.ret(b.select(negative, b.fneg(magnitude), magnitude))
