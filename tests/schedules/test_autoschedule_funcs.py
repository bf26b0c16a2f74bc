"""Pipeline.apply_autoscheduler for the Func API (issue 18): Halide 21's
call, sizes from set_estimates (missing estimates raise, as in Halide), the
schedule returned as Python; results equal NumPy and the reference
evaluator."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check

PARAMS = ph.AutoschedulerParams("pyhalide", {"parallelism": "2"})


def _histogram():
    img = ph.ImageParam(ph.UInt(8), 2, "img")
    hist, x = ph.Func("hist"), ph.Var("x")
    r = ph.RDom([(0, img.width()), (0, img.height())])
    hist[x] = 0
    hist[ph.cast(ph.Int(32), img[r.x, r.y])] += 1
    return img, hist


def test_histogram_is_rfactored_and_exact():
    img, hist = _histogram()
    img.set_estimates([(0, 1024), (0, 1024)])
    hist.set_estimates([(0, 256)])
    p = ph.Pipeline([hist])
    result = p.apply_autoscheduler(params=PARAMS)
    assert ".rfactor(" in result.schedule_source and ".parallel(" in result.schedule_source
    a = np.random.default_rng(3).integers(0, 256, (300, 700), dtype=np.uint8)
    img.set(ph.Buffer(a))
    check([hist], [256], [np.bincount(a.ravel(), minlength=256)])


def test_pure_output_parallel_and_vectorized():
    img = ph.ImageParam(ph.Float(32), 2, "img")
    f, x, y = ph.Func("f"), ph.Var("x"), ph.Var("y")
    f[x, y] = img[x, y] * 2.0 + 1.0
    img.set_estimates([(0, 1024), (0, 1024)])
    f.set_estimates([(0, 1024), (0, 1024)])
    result = ph.Pipeline([f]).apply_autoscheduler(params=PARAMS)
    assert ".vectorize(" in result.schedule_source and ".parallel(" in result.schedule_source
    a = np.random.default_rng(4).random((200, 333), dtype=np.float32)
    img.set(ph.Buffer(a))
    check([f], [333, 200], [a * np.float32(2) + np.float32(1)])


def test_missing_estimates_raise():
    img, hist = _histogram()
    hist.set_estimates([(0, 256)])
    with pytest.raises(ph.CompileError, match=r"(?s)img has no estimates.*test_autoschedule_funcs.py"):
        ph.Pipeline([hist]).apply_autoscheduler(params=PARAMS)
    img2, hist2 = _histogram()
    img2.set_estimates([(0, 64), (0, 64)])
    with pytest.raises(ph.CompileError, match=r"hist(\$\d+)? has no estimates"):
        ph.Pipeline([hist2]).apply_autoscheduler(params=PARAMS)
    with pytest.raises(ValueError, match="one \\(min, extent\\) pair per dimension"):
        hist2.set_estimates([(0, 1), (0, 2)])


def test_params_are_checked():
    with pytest.raises(ValueError, match="unknown autoscheduler 'Adams2019'"):
        ph.AutoschedulerParams("Adams2019", {})
    with pytest.raises(ValueError, match="unknown autoscheduler parameter"):
        ph.AutoschedulerParams("pyhalide", {"paralelism": "2"})
    with pytest.raises(ValueError, match="parallelism must be an integer"):
        ph.AutoschedulerParams("pyhalide", {"parallelism": "two"})
