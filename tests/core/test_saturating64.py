"""ph.saturating_add / saturating_sub on 64-bit integers (Halide has them;
they were refused): exact at and around the type's limits, compared with
Python integers and the reference evaluator."""
import itertools

import numpy as np
import pytest

import pyhalide as ph
from tests.schedules.schedule_check import check

U64 = [0, 1, 5, 2**63, 2**64 - 2, 2**64 - 1]
I64 = [-2**63, -2**63 + 1, -5, -1, 0, 1, 5, 2**63 - 2, 2**63 - 1]


@pytest.mark.parametrize("t,vals,dtype", [(ph.UInt(64), U64, np.uint64),
                                          (ph.Int(64), I64, np.int64)])
@pytest.mark.parametrize("name", ["add", "sub"])
def test_saturating_64_bit_is_exact(t, vals, dtype, name):
    pairs = list(itertools.product(vals, vals))
    a = ph.Buffer(np.array([p[0] for p in pairs], dtype), "a")
    b = ph.Buffer(np.array([p[1] for p in pairs], dtype), "b")
    x = ph.Var("x")
    f = ph.Func("sat_" + name)
    f[x] = getattr(ph, "saturating_" + name)(a[x], b[x])
    assert f.type() == t
    got = check(f, [len(pairs)])[0]
    exact = [p[0] + p[1] if name == "add" else p[0] - p[1] for p in pairs]
    assert [int(v) for v in got] == [min(max(e, t.min_value()), t.max_value()) for e in exact]
