"""rfactor in schedules of @pipeline functions: the result stays exactly the
plain Python result."""
import numpy as np

import pyhalide as ph


def test_histogram_and_first_argmin_from_python_loops():
    def sched_hist(p):
        u = ph.Var("u")
        p.funcs["hist"].update(0).rfactor(p.vars["y"], u).compute_root().update(0).parallel(u)

    @ph.pipeline(schedule=sched_hist)
    def histogram(img):
        hist = np.zeros(256, np.int32)
        for y in range(img.shape[0]):
            for x in range(img.shape[1]):
                hist[img[y, x]] += 1
        return hist

    def sched_argmin(p):
        f = p.funcs["best"]
        io, ii = ph.RVar("io"), ph.RVar("ii")
        f.update(0).split(p.vars["i"], io, ii, 16)
        f.update(0).rfactor(ii, ph.Var("u"))

    @ph.pipeline(schedule=sched_argmin)
    def argmin(a):
        best = a[0]
        idx = 0
        for i in range(a.shape[0]):
            if a[i] < best:
                best = a[i]
                idx = i
        return best, idx

    img = np.random.default_rng(0).integers(0, 256, (40, 33), dtype=np.uint8)
    np.testing.assert_array_equal(histogram(img), histogram.py_func(img))
    a = np.random.default_rng(1).integers(0, 5, 500).astype(np.int32)
    assert argmin(a) == argmin.py_func(a)
