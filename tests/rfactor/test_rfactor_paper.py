"""The six reductions of the CGO 2017 paper (Table 1) with the rfactor
schedules of examples/rfactor_benchmarks.py, small, each equal to the serial
algorithm (dot: within float reassociation)."""

import numpy as np
import pytest

from tests.example_scripts import load_example
from tests.rfactor.rfactor_util import same_as_serial

bench = load_example("rfactor_benchmarks.py")
make_all = load_example("paper_reductions.py").make_all

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
