"""False errors (pyhalide raising where plain Python returns) fixed in
session 30 (h2; docs/false_errors30b.md): a check of lifted array code under
an `if` on a scalar the loop carries, concatenations written part by part
under an `if`. Compared with plain Python, including the inputs where
Python raises (a lost error would be a wrong result)."""
import numpy as np

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same


def carried_if_check(a, b, n):
    s = 0.0
    for k in range(n):
        if s > 2.5:
            t = a * b[k + 1]
            s += t.sum()
        s += 1.0
    return s


def test_check_under_carried_if():
    # main: IndexError where the `if` on the carried s never holds (the
    # check of b[k + 1] stayed in the lifted Func, computed for every k)
    p = pipeline(carried_if_check)
    for n in (0, 3, 4, 6):
        for b in (np.ones(2), np.ones(5), np.arange(7.0)):
            _same(p, carried_if_check, np.arange(3.0), b, n)


def written_concatenate(x, A, B):
    s = 0.0
    if x[0] > 5.0:
        s = np.concatenate([A, B]).sum()
    return s


def test_written_concatenate_under_if():
    # main: ValueError (the column check made at call time) where the `if`
    # does not hold; the parts may be empty, so they are written one by one
    p = pipeline(written_concatenate)
    mats = (np.ones((0, 3)), np.ones((2, 3)), np.arange(8.0).reshape(2, 4), np.ones((0, 4)))
    for x0 in (0.0, 9.0):
        for A in mats:
            for B in mats:
                _same(p, written_concatenate, np.full(1, x0), A, B)


def _fused_in_fused(schedule):
    import pyhalide as ph
    x, y = ph.Var("x"), ph.Var("y")
    data = np.random.default_rng(3).integers(-60, 60, size=(114, 114)).astype(np.int32)
    in0 = ph.Buffer(data, "in0")
    f0, f1, f2, f3 = ph.Func("f0"), ph.Func("f1"), ph.Func("f2"), ph.Func("f3")
    r0, r1 = ph.RDom([(-1, 3)], "r0"), ph.RDom([(0, 1)], "r1")
    f1[x, y] = ph.maximum(in0[x + r0.x + 48, y + 48] + x - y, f0) + 1
    t = ph.argmax(f1[x + r1.x, y] + x - y, f2)
    f3[x, y] = t[0] * 5 + t[1]
    if schedule:
        f2.update(0).fuse(x, y, ph.Var("xyf1"))
        f1.compute_at(f2, ph.Var("xyf1"))
        f1.fuse(x, y, ph.Var("xyf2"))
    return np.asarray(ph.Pipeline([f3]).realize([6, 11]))


def test_func_computed_at_a_fused_loop_and_fused():
    # schedule fuzz seed 43 (examples/schedule_fuzz.py 1 43), minimized. main:
    # "cannot bound the region of Func f0 ... data-dependent positions": f1's
    # region at f2's fused loop reads `xyf1 % e` and `xyf1 / e` (e a symbolic
    # extent), which interval arithmetic could not bound (stage_loops now
    # clamps the fused loop's inner and outer variables into their ranges)
    np.testing.assert_array_equal(_fused_in_fused(True), _fused_in_fused(False))
