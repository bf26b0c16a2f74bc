"""Param estimates for the Func API's automatic scheduler (issue 18):
`Param.set_estimate(value)`, as in Halide 21, sizes an extent a Param gives
(an RDom over [0, n), a Func's region); without it that extent is unknown
and the reason says which Param needs an estimate. Results equal NumPy."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check

PARAMS = ph.AutoschedulerParams("pyhalide", {"parallelism": "2"})


def _prefix_sum():
    """total() = the sum of a[0 .. n-1], n a Param."""
    a = ph.ImageParam(ph.Int(32), 1, "a")
    n = ph.Param(ph.Int(32), "n")
    total = ph.Func("total")
    r = ph.RDom([(0, n)])
    total[()] = 0
    total[()] += a[r.x]
    return a, n, total


def test_a_param_estimate_sizes_a_reduction():
    a, n, total = _prefix_sum()
    a.set_estimates([(0, 1 << 22)])
    n.set_estimate(1 << 21)
    result = ph.Pipeline([total]).apply_autoscheduler(params=PARAMS)
    assert ".rfactor(" in result.schedule_source, result.schedule_source
    data = np.random.default_rng(1).integers(-1000, 1000, 1 << 20, dtype=np.int32)
    a.set(ph.Buffer(data))
    n.set(700_001)
    check([total], [], [np.int32(data[:700_001].sum())])


def test_without_an_estimate_the_reason_names_the_param():
    a, n, total = _prefix_sum()
    a.set_estimates([(0, 1 << 22)])
    result = ph.Pipeline([total]).apply_autoscheduler(params=PARAMS)
    src = result.schedule_source
    assert ".rfactor(" not in src
    assert "Param n: no estimate; call set_estimate(value)" in src, src
    data = np.arange(1000, dtype=np.int32)
    a.set(ph.Buffer(data))
    n.set(999)
    check([total], [], [np.int32(data[:999].sum())])


def test_param_estimate_checked_and_read_back():
    n = ph.Param(ph.UInt(8), "n8")
    assert n.estimate() is None
    assert n.set_estimate(200) is n and n.estimate() == 200
    with pytest.raises(TypeError, match="Param n8 of type uint8"):
        n.set_estimate(300)
    assert n.get() is None          # an estimate is no value
