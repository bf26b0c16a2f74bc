"""schedule="auto" runs a dominating scan as a parallel scan
(pyhalide/parallel_scan_auto.py): integer results equal plain Python at
every thread count, float scans are parallel only when float reassociation
is on ("auto"), and small scans, and scans planned for fewer than
SCAN_THREADS threads, stay serial."""
import numpy as np

import pyhalide as ph
from pyhalide.ir.config import override
from pyhalide.parallel_scan_auto import MIN_SCAN, SCAN_THREADS
from tests.frontend.test_scan_outputs import running_sum

RNG = np.random.default_rng(6)


def linrec(a, b):
    out = np.empty_like(b)
    s = 0.0
    for i in range(b.shape[0]):
        s = a[i] * s + b[i]
        out[i] = s
    return out


def cumsum(x):
    return np.cumsum(x)


def cdf(h):
    c = np.zeros(h.shape[0], np.int64)
    c[0] = h[0]
    for i in range(1, h.shape[0]):
        c[i] = c[i - 1] + h[i]
    return c


def _scan_lines(p):
    return [line.strip() for line in p.schedule_source().splitlines() if "scan" in line]


def test_an_integer_scan_runs_in_parallel_and_equals_python():
    p = ph.pipeline(running_sum, schedule="auto")
    x = RNG.integers(-50, 50, MIN_SCAN + 1000).astype(np.int32)
    want = running_sum(x)
    with override(num_threads=SCAN_THREADS):       # planned for SCAN_THREADS threads
        p(x)
    for threads in (1, 2, 3):
        with override(num_threads=threads):
            out, acc = p(x)
        np.testing.assert_array_equal(out, want[0])
        assert type(acc) is type(want[1]) and acc == want[1]
    lines = _scan_lines(p)
    assert any(".parallel_scan(p.vars[('out', 'i')], 4096)" in line for line in lines), lines
    assert any(line.startswith("# out.update(0): a scan of") for line in lines), lines


def test_np_cumsum_under_auto():
    p = ph.pipeline(cumsum, schedule="auto")
    x = RNG.integers(-50, 50, 2 * MIN_SCAN + 17).astype(np.int64)   # a scan of n - 1 points
    with override(num_threads=SCAN_THREADS):
        np.testing.assert_array_equal(p(x), np.cumsum(x))
    assert any("cumsum.update(0).parallel_scan(" in line for line in _scan_lines(p))


def test_a_scan_after_an_update_of_one_point():
    # c[0] = h[0] is an update without loops: the planner skipped the whole
    # pipeline on it before (IndexError in its pure-stage rule)
    p = ph.pipeline(cdf, schedule="auto")
    h = RNG.integers(0, 9, 2 * MIN_SCAN).astype(np.int64)
    with override(num_threads=SCAN_THREADS):
        np.testing.assert_array_equal(p(h), cdf(h))
    assert any("c.update(1).parallel_scan(p.vars['i'], 4096)" in line
               for line in _scan_lines(p)), p.schedule_source()


def test_a_float_scan_is_parallel_only_with_float_reassociation():
    a, b = RNG.random(MIN_SCAN) * 0.5, RNG.random(MIN_SCAN)
    want = linrec(a, b)
    auto = ph.pipeline(linrec, schedule="auto")
    with override(num_threads=SCAN_THREADS):
        np.testing.assert_allclose(auto(a, b), want, rtol=1e-12)
    assert any(".parallel_scan(" in line for line in _scan_lines(auto))
    exact = ph.pipeline(linrec, schedule="auto-exact")
    with override(num_threads=2):
        np.testing.assert_array_equal(exact(a, b), want)
    lines = _scan_lines(exact)
    assert not any(".parallel_scan(" in line for line in lines)
    assert any("float reassociation is off: kept serial" in line for line in lines), lines


def test_a_small_scan_stays_serial():
    p = ph.pipeline(running_sum, schedule="auto")
    x = RNG.integers(-50, 50, 5000).astype(np.int32)
    out, acc = p(x)
    np.testing.assert_array_equal(out, running_sum(x)[0])
    lines = _scan_lines(p)
    assert not any(".parallel_scan(" in line for line in lines)
    assert any(f"< {MIN_SCAN}: kept serial" in line for line in lines), lines


def test_a_scan_planned_for_two_threads_stays_serial():
    # its parallel passes would do 1.3-1.7x the one-pass serial scan's work
    p = ph.pipeline(cumsum, schedule="auto")
    x = RNG.random(2 * MIN_SCAN + 17)                # a scan of n - 1 points
    with override(num_threads=2):
        np.testing.assert_array_equal(p(x), np.cumsum(x))     # the serial scan: NumPy's bits
    lines = _scan_lines(p)
    assert not any(".parallel_scan(" in line for line in lines)
    assert any(f"2 threads < {SCAN_THREADS}" in line and "kept serial" in line
               for line in lines), lines
