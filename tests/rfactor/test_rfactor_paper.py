"""The six reductions of the CGO 2017 paper (Table 1) with the rfactor
schedules of examples/rfactor_benchmarks.py, small, each equal to the serial
algorithm (dot: within float reassociation)."""
import os
import sys

import numpy as np
import pytest
from rfactor_util import same_as_serial

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
import rfactor_benchmarks as bench  # noqa: E402
from paper_reductions import make_all  # noqa: E402

LOG2N = 12


@pytest.mark.parametrize("name", list(bench.SCHEDULES))
def test_paper_reduction_rfactor_equals_serial(name):
    def build(schedule):
        f, _ = make_all(LOG2N)[name]
        if schedule:
            bench.SCHEDULES[name](f)
        return f
    got = same_as_serial(build, bench.SIZES.get(name, []),
                         rtol=1e-5 if name == "dot" else None,
                         reference_of_factored=name not in ("histogram2d",))
    f, expected = make_all(LOG2N)[name]
    if name == "dot":
        bench.check(name, expected(), got, bench.exact_dot(f))
    else:
        for g, e in zip(got, expected()):
            np.testing.assert_array_equal(g, np.asarray(e).astype(g.dtype))
