"""Func.bound / bound_extent keep the Function covered by the edit stamp
(ir/function.py tracked): the bounds list they assign is an EditedList.
A plain list there made every pipeline whose schedule bounds a Func refuse
the compiled entry (dispatch.compiled_entry: its DirectCall stamp stayed
None), so each call walked the Functions' versions in Python: suite 4's
scheduled sum_axis1 paid ~28 us per call at 16 x 16 instead of ~3 us.
Results are compared with NumPy."""
import numpy as np

import pyhalide as ph
from pyhalide.bench import suite4_kernels as K
from pyhalide.ir.function import LAST_EDIT, tracked


def test_bound_and_bound_extent_keep_the_function_tracked():
    x = ph.Var("x")
    f, g = ph.Func("f"), ph.Func("g")
    f[x] = x * 2
    g[x] = f[x] + 1
    f.compute_root().bound(x, 0, 8)
    assert tracked(f.function())
    f.bound_extent(x, 8)
    assert tracked(f.function())
    stamp = LAST_EDIT[0]
    f.bound(x, 0, 8)                # replaces the first bound: an edit the stamp sees
    assert LAST_EDIT[0] != stamp and tracked(f.function())
    assert np.array_equal(np.asarray(g.realize([8])), np.arange(8) * 2 + 1)


def test_a_schedule_with_bounds_gets_the_compiled_entry():
    p = ph.pipeline(K.sum_axis1, schedule=K.sched_sum_axis1)   # bound_extent, bound
    rng = np.random.default_rng(3)
    a = rng.standard_normal((19, 40))
    for _ in range(6):
        assert np.array_equal(p(a), a.sum(axis=1))
    assert p._entry is not None
    b = rng.standard_normal((19, 40))           # the entry's own call, new data
    assert np.array_equal(p(b), b.sum(axis=1))
