"""Halide semantics found different by a differential fuzz against Halide 21
(session 18): a negative signed shift amount shifts the other way by its
magnitude (`1024 >> (x - 5)` is 32768 at x = 0: pyhalide gave 0), and an
integer literal Expr in a select takes the other value's type
(`select(c, abs(i), Expr(13))` is a uint32). Each result is checked against
the reference evaluator and against NumPy's arithmetic written out here."""
import numpy as np

import pyhalide as ph
from tests.core.jitcheck import check


def test_a_signed_run_time_amount_shifts_the_other_way_when_negative():
    x = ph.Var("x")
    f, g = ph.Func("f"), ph.Func("g")
    amount = ph.cast(ph.Int(32), x) - 5
    f[x] = ph.Expr(1024) >> amount
    g[x] = ph.Expr(3) << amount
    got_f, got_g = check([f, g], [12])
    k = np.arange(12) - 5
    want_f = np.where(k >= 0, 1024 >> np.abs(k), 1024 << np.abs(k))
    want_g = np.where(k >= 0, 3 << np.abs(k), 3 >> np.abs(k))
    assert np.array_equal(got_f, want_f) and np.array_equal(got_g, want_g)


def test_narrow_signed_amounts_keep_their_sign_when_widened():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.cast(ph.UInt(16), 3) << (ph.cast(ph.Int(8), x) * 4 - 8)
    (got,) = check(f, [6])
    k = np.arange(6) * 4 - 8
    want = np.where(k >= 0, 3 << np.abs(k), 3 >> np.abs(k)).astype(np.uint16)
    assert got.dtype == np.uint16 and np.array_equal(got, want)


def test_a_negative_python_int_amount_is_the_opposite_shift():
    x = ph.Var("x")
    f, g = ph.Func("f"), ph.Func("g")
    f[x] = (ph.cast(ph.Int(16), x) - 3) >> -2
    g[x] = (ph.cast(ph.Int(16), x) + 64) << -3
    got_f, got_g = check([f, g], [5])
    assert np.array_equal(got_f, (np.arange(5, dtype=np.int16) - 3) << 2)
    assert np.array_equal(got_g, (np.arange(5, dtype=np.int16) + 64) >> 3)


def test_the_most_negative_amount_shifts_everything_out():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.Expr(-77) >> (ph.cast(ph.Int(32), x) + ph.cast(ph.Int(32), -2**31))
    (got,) = check(f, [2])
    # |INT_MIN| is 2**31 >= 32 bits: a left shift by it gives 0
    assert got[0] == 0


def test_an_integer_literal_in_a_select_takes_the_other_type():
    x = ph.Var("x")
    f, g = ph.Func("f"), ph.Func("g")
    i = ph.cast(ph.Int(32), x) - 4
    f[x] = ph.select(i > 0, ph.abs(i), ph.Expr(13))
    g[x] = ph.select(i > 0, ph.Expr(-1), ph.cast(ph.UInt(8), i))
    got_f, got_g = check([f, g], [8])
    assert got_f.dtype == np.uint32 and got_g.dtype == np.uint8
    k = np.arange(8) - 4
    assert np.array_equal(got_f, np.where(k > 0, np.abs(k), 13))
    assert np.array_equal(got_g, np.where(k > 0, 255, k.astype(np.uint8)))
