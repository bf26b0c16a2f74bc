"""Phase mode (a loop writing an array at two positions per iteration)
with a Python-int scalar assigned a loop variable in one branch: the
scalar's member holds int64, the loop variable's node is int32; the update
stopped with "the update of state_phases gives value 2 the type int32"
(loop fuzz seed 72001, program 8; wrong on session 26's main)."""
import numpy as np

import pyhalide as ph


def f(a, n):
    N = len(a)
    s = 0
    m = n
    iout = np.zeros(N, np.int64)
    k = a[3] // -4
    for i1 in range(0, N, 3):
        m = -1 - s if a[(i1 * 3 + 1) % N] >= k or m > 7 else i1
        iout[i1] = a[(i1 * 3 + 1) % N] - i1 - (n - i1)
        iout[N - 1 - i1 % N] = abs(a[3] - s)
    return m, iout


def test_int_scalar_of_a_loop_variable_in_phase_mode():
    g = ph.pipeline(f)
    rng = np.random.default_rng(27)
    for N, n in ((5, 0), (8, 3), (8, 9)):
        a = rng.integers(-5, 6, N).astype(np.int64)
        want, got = f(a.copy(), n), g(a.copy(), n)
        assert got[0] == want[0] and type(got[0]) is type(want[0])
        np.testing.assert_array_equal(got[1], want[1])
