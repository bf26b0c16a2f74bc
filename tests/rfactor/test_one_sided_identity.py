"""rfactor of operators with a one-sided identity or none (issue 20 item 3,
DESIGN.md "Associative reductions"): where no slice of the intermediate can
be empty, each slice starts from its first element; the merge skips the
slices a split's tail leaves empty. Every scheduled result is compared with
the serial algorithm on the reference evaluator (rfactor_util)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.associativity import AssociativeOp, register
from pyhalide.tables.matcher import MatchResult
from tests.rfactor.rfactor_util import same_as_serial

x = ph.Var("x")
rng = np.random.default_rng(20)

# below one slice, below one split of 4 (empty tail slices), whole splits, a tail of 1;
# 17 (a tail of 1 again, one more split) with -m slow
SIZES = (1, 3, 8, 13, pytest.param(17, marks=pytest.mark.slow))


def _data(n, lo=-50, hi=50, dtype=np.int32):
    return rng.integers(lo, hi, n).astype(dtype)


def _schedule(f, r, how):
    """Split r.x by 4 (a tail unless the extent divides) and preserve the
    outer loop, the inner one, or nothing; "nested" splits the inner loop
    again by 2 and preserves both outer loops, so that the slices at the
    tail (where 4 * rxo + 2 * rxio >= extent) are empty."""
    if how == "all":
        return f.update().rfactor([])
    rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
    f.update().split(r.x, rxo, rxi, 4)
    if how == "nested":
        rxio, rxii = ph.RVar("rxio"), ph.RVar("rxii")
        f.update().split(rxi, rxio, rxii, 2)
        return f.update().rfactor([(rxo, ph.Var("u")), (rxio, ph.Var("v"))])
    return f.update().rfactor(rxo if how == "outer" else rxi, ph.Var("u"))


def _reduction(name, n, how, init, update, lo=-50, hi=50, before=None):
    """`f[x] = init(x); f[x] = update(s, v)` over an RDom of n points, s the
    Func's own value(s) at x, v the input at r.x plus x; scheduled by
    `_schedule(how)` (after `before(f)`, if given)."""
    data = _data(n, lo, hi)

    def build(schedule):
        A = ph.Buffer(data, f"{name}_in")
        r = ph.RDom([(0, n)], "r")
        f = ph.Func(name)
        f[x] = init(x)
        size = len(f.function().output_types)
        s = f[x] if size == 1 else tuple(f[x][k] for k in range(size))
        f[x] = update(s, A[r.x] + x)
        if schedule:
            if before is not None:
                before(f)
            _schedule(f, r, how).compute_root()
        return f
    return build


def _prefix_pair(name, n, how):
    """{x0 + y0, x0 + y1}: element 1 is the running sum before the new value
    plus it (a left identity only, not commutative)."""
    return _reduction(name, n, how, lambda x: (x, 3 * x), lambda s, v: (s[0] + v, s[0] + v * 2))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("how", ["all", "outer", "nested"])
def test_left_identity_tuple(n, how):
    op = ph.prove_associativity(_prefix_pair("lt", n, how)(False).update())
    assert op.associative and op.identity_side == "left" and not op.commutative
    same_as_serial(_prefix_pair(f"lt{how}{n}", n, how), [4])


def test_not_commutative_inner_rvar_still_refused():
    with pytest.raises(ph.CompileError, match="not commutative"):
        _prefix_pair("ltin", 13, "inner")(True)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("how", ["all", "outer", "nested"])
def test_last_write_wins(n, how):
    same_as_serial(_reduction(f"lw{how}{n}", n, how, lambda x: x - 7, lambda s, v: v * 2 - x),
                   [3])


# One-element table entries with a one-sided identity (int32 table), as
# users write them: (x | k) & y (left), select(y < k, y, x) (right: the last
# value below k), (x & k) ^ y (left), min(max(x, k), y) (left),
# (~(x | k) & y) + x (right).
FORMS = {"left_and": ("left", lambda s, v: (s | 0x0F0) & v),
         "right_sel": ("right", lambda s, v: ph.select(v < 2000, v, s)),
         "left_min": ("left", lambda s, v: ph.min(ph.max(s, 1000), v)),
         "left_xor": ("left", lambda s, v: (s & 0x0FF) ^ v),
         "right_add": ("right", lambda s, v: ((~(s | 0x0F0)) & v) + s)}


def _one_sided(name, n, how, form):
    return _reduction(name, n, how, lambda x: x * 37 + 5, FORMS[form][1], 0, 1 << 12)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_one_sided_table_entries_are_one_sided(form):
    op = ph.prove_associativity(_one_sided(f"os{form}", 5, "all", form)(False).update())
    assert op.associative and op.identity_side == FORMS[form][0] and not op.commutative


# the default run: 13 points (a tail) for every form and split, and one of 1 point and
# 6 (4 + 2: the nested split's empty tail slices) by turns; -m slow: the other one
@pytest.mark.parametrize("form, how, n", [
    pytest.param(form, how, n, marks=[pytest.mark.slow] if n == (6, 1)[i % 2] else [])
    for i, form in enumerate(sorted(FORMS)) for how in ("all", "outer", "nested")
    for n in (1, 6, 13)])
def test_one_sided_table_entries(form, how, n):
    same_as_serial(_one_sided(f"ob{form[:4]}{how}{n}", n, how, form), [5])


def _none(name, n, how):
    """A last write (a left identity only) beside an element with a right
    identity only: the tuple has neither."""
    return _reduction(name, n, how, lambda x: (x, x + 1),
                      lambda s, v: (v - 2 * x, ((~(s[1] | 0x0F0)) & v) + s[1]), 0, 1 << 10)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("how", ["all", "outer", "nested"])
def test_no_identity(n, how):
    if n == 1:
        op = ph.prove_associativity(_none("ni", n, how)(False).update())
        assert op.associative and op.identity_side == "none"
    same_as_serial(_none(f"ni{how}{n}", n, how), [4])


def _register_neither(f, k):
    """Records the update of f (`f & v & k`, v its new value) with the
    operator `(x0 & k) & y0`: associative and commutative, with no identity
    on either side (k is not -1). The tables find `x0 & y0` with y0 = `v & k`
    instead; the record stands for an operator found elsewhere (synthesis)."""
    d = f.update().definition()
    t = ir.Int(32)
    x0, y0 = ir.Variable(t, "x0"), ir.Variable(t, "y0")
    ops = (ir.BitAnd(ir.BitAnd(x0, ir.const(t, k)), y0),)
    y = d.values[0].b                         # (f & k) & v: v
    m = MatchResult(True, "", ops, (ir.const(t, 0),), (y,), True, "none", [],
                    frozenset(), frozenset())
    register(d, AssociativeOp(True, ops, (ir.const(t, 0),), True, (y,), "", "none", 0.0, m))


def _neither(name, n, how):
    return _reduction(name, n, how, lambda x: x * 1001 + 0x7FF, lambda s, v: (s & 0x6DB) & v,
                      0, 1 << 12, before=lambda f: _register_neither(f, 0x6DB))


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("how", ["all", "outer", "inner", "nested"])
def test_neither_identity_seeds_each_slice(n, how):
    """Started from any value, a slice would be wrong: each slice takes its
    first point's value; a commutative operator allows the inner RVar,
    whose tail slices are empty for n < 4 (the merge skips them)."""
    same_as_serial(_neither(f"ne{how}{n}", n, how), [4])


@pytest.mark.parametrize("preserve", ["r.y", "nothing"])
def test_empty_rdom_of_a_symbolic_extent(preserve):
    """The loops left to the intermediate are empty when the extent is 0:
    the merge skips every slice."""
    for n in (0, 5):
        data = _data(max(n, 1) * 3).reshape(3, max(n, 1))
        tag = f"se{preserve[0]}{n}"

        def build(schedule):
            A = ph.Buffer(data, f"{tag}_in")
            p = ph.Param(ph.Int(32), f"{tag}_n", n)
            r = ph.RDom([(0, p), (0, 3)], "r")
            f = ph.Func(tag)
            f[x] = (x, x + 2)
            f[x] = (f[x][0] + A[r.x, r.y], f[x][0] + A[r.x, r.y] * 2)
            if schedule:
                kept = [(r.y, ph.Var("u"))] if preserve == "r.y" else []
                f.update().rfactor(kept).compute_root()
            return f
        same_as_serial(build, [3])


def test_histogram_with_a_right_identity():
    """A right identity needs no non-empty slice: empty buckets merge the
    identity, which leaves f as it is."""
    data = _data(40, 0, 6)

    def build(schedule):
        A = ph.Buffer(data, "hr_in")
        r = ph.RDom([(0, 40)], "r")
        f = ph.Func("hr")
        f[x] = x * 300
        f[A[r.x]] = ((~(f[A[r.x]] | 0x0F0)) & (r.x * 77)) + f[A[r.x]]
        if schedule:
            rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
            f.update().split(r.x, rxo, rxi, 8)
            f.update().rfactor(rxo, ph.Var("u")).compute_root()
        return f
    same_as_serial(build, [6])


def test_histogram_with_a_left_identity_refused():
    A = ph.Buffer(_data(40, 0, 6), "hl_in")
    r = ph.RDom([(0, 40)], "r")
    f = ph.Func("hl")
    f[x] = 0
    f[A[r.x]] = r.x                                      # the last write wins
    with pytest.raises(ph.CompileError, match=r"(?s)only a left identity .* writes dimension 0 at "
                                              r"hl_in\(r\$x\): the slice of a coordinate no "
                                              r"point writes is empty.*test_one_sided"):
        f.update().rfactor([])


def test_rdom_where_refused():
    A = ph.Buffer(_data(20), "rw_in")
    r = ph.RDom([(0, 20)], "r")
    r.where(A[r.x] > 0)
    f = ph.Func("rw")
    f[x] = (x, x)
    f[x] = (f[x][0] + A[r.x], f[x][0] + A[r.x] * 2)
    rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
    f.update().split(r.x, rxo, rxi, 4)
    with pytest.raises(ph.CompileError, match="an RDom where, a guard or a loop exit"):
        f.update().rfactor(rxo, ph.Var("u"))


def test_fused_tail_refused():
    A = ph.Buffer(_data(30).reshape(3, 10), "ft_in")
    r = ph.RDom([(0, 10), (0, 3)], "r")
    f = ph.Func("ft")
    f[x] = (x, x)
    f[x] = (f[x][0] + A[r.x, r.y], f[x][0] + A[r.x, r.y] * 2)
    rxo, rxi, t = ph.RVar("rxo"), ph.RVar("rxi"), ph.RVar("t")
    f.update().split(r.x, rxo, rxi, 4).fuse(rxi, rxo, t)
    with pytest.raises(ph.CompileError, match="fuses loops split with a tail"):
        f.update().rfactor(r.y, ph.Var("u"))
