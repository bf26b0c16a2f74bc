"""Python-int sums under an automatic schedule (FRONTEND.md: a Python-int
accumulator keeps its OverflowError under every schedule).

`s = 0; for i in ...: s += e` with Python ints is, in the frontend's
Funcs, a 0-d update `s = s + e` guarded by a check that raises
OverflowError where s + e leaves int64. That check reads the partial
result, so the operator is not associative and a schedule cannot rfactor
it as it is. Under an automatic schedule the update is split in two:

- `s = s + e` without the check (int64 addition: exact where no prefix
  leaves int64, and associative), which the planner rfactors;
- a guard `s_guard = s_guard + |float64(e)|` over the same loops (a float
  sum of nonnegative terms, rfactored too: its order never reaches a
  result), and a check of the guard's total (the same OverflowError check
  image) that fails unless the total is at most LIMIT.

Every prefix of the serial sum is at most the sum of |e| in magnitude,
and the float total of n < 2**51 nonnegative terms, in any order, is at
least 2/3 of it (n - 1 roundings: a relative error of at most
(n-1) 2**-53 / (1 - (n-1) 2**-53) <= 1/3): a total at most LIMIT = 2**62
proves that no prefix leaves int64, so the serial loop would not raise and the int64 sum
is its exact value. Otherwise (or when the run raises anything, in any
order of its parallel parts) the call re-runs with the default, serial
schedule, which raises exactly where the serial loop raises or returns its
value (autoschedule_frontend.SerialRerun)."""
from __future__ import annotations

from .. import checks, ir
from .apply import copy_stage

LIMIT = 2.0 ** 62
# the most points of a split sum in its planned size class: a call of the class has at
# most 2**dims times as many, still fewer than 2**51 (dims <= 10)
MAX_PLANNED = 1 << 40


def _reads(e, fn) -> bool:
    return any(c.call_type == ir.FUNC and c.func is fn for c in ir.find_calls(e))


def _is_self(e, fn) -> bool:
    return isinstance(e, ir.Call) and e.call_type == ir.FUNC and e.func is fn and not e.args


def checked_sum(fn, k: int, overflow_images: set):
    """(the update's value without its overflow check, the term e, the
    checks that do not read s, the overflow check's image read) when update
    k of Function fn is a 0-d Python-int sum `s = s + e` / `s - e` over at
    most 10 loops whose only checks reading s are OverflowError checks
    (check images named in `overflow_images`); else None."""
    d = fn.updates[k]
    if fn.args or d.args or len(d.values) != 1 or d.exit is not None or len(d.rvars) > 10:
        return None
    t = fn.output_types[0]
    if not (t.is_int() and t.bits == 64) or any(_reads(p, fn) for p in d.predicates):
        return None
    value, found = checks.strip(d.values)
    own = [c for c in found if _reads(c, fn)]
    if not own or any(c.a.name not in overflow_images for c in own):
        return None
    v = value[0]
    if not isinstance(v, (ir.Add, ir.Sub)):
        return None
    if _is_self(v.a, fn):
        e = v.b
    elif isinstance(v, ir.Add) and _is_self(v.b, fn):
        e = v.a
    else:
        return None
    if _reads(e, fn):
        return None
    keep = [c for c in found if not _reads(c, fn)]
    return checks.apply(keep, v), e, keep, own[0].a


def split_sum(fn, k: int, split) -> tuple:
    """Replace update k of fn (checked_sum gave `split`) by its unchecked
    sum; returns (the guard Function, the checked guard total Function)."""
    value, e, keep, read = split
    d = fn.updates[k]
    fn.updates[k] = ir.Definition(d.args, (value,), list(d.predicates),
                                  copy_stage(d.schedule), d.source, d.rdom_name, d.exit)
    f64 = ir.Float(64)
    guard = ir.Function(name=fn.name + "_guard", args=(), output_types=(f64,),
                        pure=ir.Definition((), (ir.const(f64, 0),)), source=fn.source)
    me = ir.Call(f64, guard.name, (), ir.FUNC, 0, guard)
    x = ir.Cast(f64, e)
    term = ir.Select(ir.LT(x, ir.const(f64, 0)), ir.Sub(ir.const(f64, 0), x), x)
    guard.updates = [ir.Definition((), (checks.apply(keep, ir.Add(me, term)),), list(d.predicates),
                                   copy_stage(d.schedule), d.source, d.rdom_name)]
    bad = ir.Select(ir.LE(me, ir.const(f64, LIMIT)), ir.index(0), ir.index(1))
    idx = ir.Call(ir.INDEX, "likely", (bad,), ir.INTRINSIC)
    check_read = ir.Call(read.type, read.name, (idx,), ir.IMAGE, 0, read.func)
    total = ir.Function(name=fn.name + "_guard_total", args=(), output_types=(f64,),
                        pure=ir.Definition((), (checks.guarded(check_read, me),)),
                        source=fn.source)
    return guard, total
