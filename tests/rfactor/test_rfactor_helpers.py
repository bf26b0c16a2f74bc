"""rfactor matches every reduction that pyhalide's own helpers build and
Halide can rfactor: saturating_add of unsigned types in either operand order
(built as a clamped int64 sum, or for 64 bits a select on the carry,
matched as the tables' saturating add),
min/max, select and abs forms, the inline reductions and the logical ones.
What Halide refuses (saturating_sub, signed saturating_add) stays refused,
and near-miss clamps are not taken for a saturating add."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.associativity import prove_associativity
from tests.rfactor.rfactor_util import same_as_serial

x, u = ph.Var("x"), ph.Var("u")
RNG = np.random.default_rng(7)


def _image(dtype, hi):
    """24 rows, 6 columns: img[x, i] is column x, value i."""
    return ph.Buffer(RNG.integers(0, hi, (24, 6), dtype=np.uint64).astype(dtype), "img")


def _column_reduction(t, body, img, init=0):
    """f[x] = body(f[x], value) over the 24 values of column x (r.x + 4 r.y),
    factored over r.y."""
    def build(schedule):
        f = ph.Func("red")
        r = ph.RDom([(0, 4), (0, 6)], "r")
        f[x] = ph.cast(t, init)
        f[x] = body(f[x], ph.cast(t, img[x, r.x + 4 * r.y]))
        if schedule:
            f.update(0).rfactor(r.y, u).compute_root().update(0).parallel(u)
        return f
    return build


# column sums near the type's maximum: some saturate, some do not
SAT = [(ph.UInt(8), np.uint8, 22), (ph.UInt(16), np.uint16, 5500),
       (ph.UInt(32), np.uint32, 2**32 // 12), (ph.UInt(64), np.uint64, 2**64 // 12)]


@pytest.mark.parametrize("t,dtype,hi", SAT, ids=[str(s[0]) for s in SAT])
@pytest.mark.parametrize("order", ["f_first", "value_first"])
def test_saturating_add_rfactors_in_either_order(t, dtype, hi, order):
    img = _image(dtype, hi)
    if order == "f_first":
        body = ph.saturating_add
    else:
        def body(f, v):
            return ph.saturating_add(v, f)
    got = same_as_serial(_column_reduction(t, body, img), [6])[0]
    sums = [sum(int(v) for v in col) for col in np.asarray(img).T]
    assert [int(v) for v in got] == [min(s, t.max_value()) for s in sums]
    assert 0 < sum(s > t.max_value() for s in sums) < 6


def test_saturating_add_written_out_as_a_clamp():
    img = _image(np.uint8, 22)
    for body in (lambda f, v: ph.u8(ph.clamp(ph.i32(f) + ph.i32(v), 0, 255)),
                 lambda f, v: ph.u8(ph.min(ph.max(ph.u32(v) + ph.u32(f), -1 * 0), 255))):
        same_as_serial(_column_reduction(ph.UInt(8), body, img), [6])


def _operator(t, body):
    f = ph.Func("probe")
    r = ph.RDom([(0, 4)], "r")
    img = _image(np.uint8, 2)
    f[()] = ph.cast(t, 0)
    f[()] = body(f[()], ph.cast(t, img[0, r.x]))
    return prove_associativity(f.update(0))


@pytest.mark.parametrize("name,t,body", [
    ("saturating_sub", ph.UInt(8), ph.saturating_sub),
    ("saturating_sub_value_first", ph.UInt(8), lambda f, v: ph.saturating_sub(v, f)),
    ("signed_saturating_add", ph.Int(8), ph.saturating_add),
    ("signed_saturating_add_i32", ph.Int(32), ph.saturating_add),
    ("signed_saturating_add_i64", ph.Int(64), ph.saturating_add),
    ("saturating_sub_u64", ph.UInt(64), ph.saturating_sub),
    ("clamp_low_bound_1", ph.UInt(8), lambda f, v: ph.u8(ph.clamp(ph.i32(f) + ph.i32(v), 1, 255))),
    ("clamp_high_bound_254", ph.UInt(8), lambda f, v: ph.u8(ph.min(ph.i32(f) + ph.i32(v), 254))),
    ("narrow_wide_type", ph.UInt(16), lambda f, v: ph.u16(ph.min(ph.cast(ph.UInt(16), ph.i16(f) + ph.i16(v)), 65535))),
])
def test_what_halide_refuses_or_near_misses_stay_refused(name, t, body):
    assert not _operator(t, body).associative


@pytest.mark.parametrize("name,body", [
    ("min", ph.min), ("max_value_first", lambda f, v: ph.max(v, f)),
    ("select_max", lambda f, v: ph.select(v > f, v, f)),
    ("select_min_value_first", lambda f, v: ph.select(f <= v, f, v)),
    ("max_abs", lambda f, v: ph.max(f, ph.abs(ph.i8(v)))),
    ("bitor", lambda f, v: f | v), ("bitxor", lambda f, v: v ^ f),
    ("mul", lambda f, v: v * f), ("add", lambda f, v: v + f),
])
def test_other_helpers_rfactor(name, body):
    img = _image(np.uint8, 200)
    same_as_serial(_column_reduction(ph.UInt(8), body, img, init=1 if name == "mul" else 0), [6])


@pytest.mark.parametrize("reduction", ["sum", "product", "minimum", "maximum", "argmin", "argmax"])
def test_inline_reductions_rfactor(reduction):
    img = _image(np.uint8, 200)

    def build(schedule):
        r = ph.RDom([(0, 24)], "r")
        holder = ph.Func("held")
        out = getattr(ph, reduction)(img[x, r.x], holder)
        f = ph.Func("out")
        f[x] = out if not isinstance(out, tuple) else out[0] * 1000 + ph.i32(out[1])
        if schedule:
            ro, ri = ph.RVar("ro"), ph.RVar("ri")
            holder.compute_root().update(0).split(r.x, ro, ri, 4)
            holder.update(0).rfactor(ro, u).compute_root().update(0).parallel(u)
        return f
    same_as_serial(build, [6])


def test_logical_reductions_rfactor():
    img = _image(np.uint8, 3)
    for combine, init in ((ph.logical_and, True), (ph.logical_or, False)):
        def build(schedule, combine=combine, init=init):
            f = ph.Func("logic")
            r = ph.RDom([(0, 24)], "r")
            f[x] = ph.Expr(init)
            f[x] = combine(f[x], img[x, r.x] > 0)
            if schedule:
                ro, ri = ph.RVar("ro"), ph.RVar("ri")
                f.update(0).split(r.x, ro, ri, 4).rfactor(ro, u).compute_root()
            return f
        same_as_serial(build, [6])
