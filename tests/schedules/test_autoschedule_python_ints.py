"""Python-int sums under schedule="auto" (issue 18, FRONTEND.md): rfactored
as int64 sums beside a guard (the float sum of |terms|); a run whose guard
total may mean a prefix left int64, or that raises, re-runs serially, so
OverflowError (and any other error) is raised exactly where the serial
loop raises it, and every result equals plain Python."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.autoschedule.pyint import LIMIT
from pyhalide.ir.config import override

N = 1 << 18          # reductions of at least MIN_REDUCTION points are rfactored


def total(a):
    s = 0
    for i in range(len(a)):
        s += int(a[i])
    return s


def debit(a):
    s = 0
    for i in range(len(a)):
        s -= int(a[i])
    return s


def gathered(a, idx):
    s = 0
    for i in range(len(idx)):
        s += int(a[idx[i]])
    return s


def _python(fn, *args):
    return fn(*args)      # plain Python: unbounded ints


def _rerun_said(capsys) -> bool:
    return "run again serially" in capsys.readouterr().err


@pytest.mark.parametrize("mode", ["auto", "auto-exact"])
def test_sums_are_rfactored_and_exact(mode, capsys):
    p = ph.pipeline(total, schedule=mode)
    a = np.random.default_rng(1).integers(-2 ** 40, 2 ** 40, N, dtype=np.int64)
    with override(debug=1):
        got = p(a)
    assert type(got) is int and got == _python(total, a)
    assert not _rerun_said(capsys)            # the parallel result was used
    src = p.schedule_source()
    assert "s.update(0).rfactor(" in src and "s_guard.update(0).rfactor(" in src, src
    # near the guard's limit, still exact and parallel
    b = np.full(N, int(LIMIT) // N - 1, np.int64)
    b[::2] *= -1
    with override(debug=1):
        assert p(b) == _python(total, b)
    assert not _rerun_said(capsys)


def test_a_prefix_leaving_int64_raises_as_the_serial_loop(capsys):
    p = ph.pipeline(total, schedule="auto")
    serial = ph.pipeline(total, schedule="serial")
    a = np.zeros(N, np.int64)
    a[N - 4:] = [2 ** 62, 2 ** 62, -2 ** 62, -2 ** 62]   # the final sum fits; a prefix does not
    with pytest.raises(OverflowError) as serial_error:
        serial(a)
    with override(debug=1), pytest.raises(OverflowError) as auto_error:
        p(a)
    assert str(auto_error.value) == str(serial_error.value)
    assert _rerun_said(capsys)
    b = np.resize(np.array([2 ** 62, -2 ** 62], np.int64), N)   # no prefix leaves int64
    assert p(b) == 0
    c = np.full(N, 2 ** 63 - 1, np.int64)
    c[1::2] = -2 ** 63            # prefixes 2**63-1, -1, 2**63-2, -2, ...: all in int64
    assert p(c) == _python(total, c) == serial(c)


def test_subtraction_and_the_smallest_int64():
    p = ph.pipeline(debit, schedule="auto")
    a = np.random.default_rng(2).integers(-1000, 1000, N, dtype=np.int64)
    assert p(a) == _python(debit, a)
    a[7] = -2 ** 63       # -a[7] leaves int64 at once in the serial loop
    with pytest.raises(OverflowError):
        ph.pipeline(debit, schedule="serial")(a)
    with pytest.raises(OverflowError):
        p(a)


def test_other_errors_are_the_serial_loops():
    p = ph.pipeline(gathered, schedule="auto")
    serial = ph.pipeline(gathered, schedule="serial")
    rng = np.random.default_rng(3)
    a = rng.integers(-100, 100, 1000, dtype=np.int64)
    idx = rng.integers(0, 1000, N, dtype=np.int64)
    assert p(a, idx) == _python(gathered, a, idx)
    idx[N // 3] = 5000
    with pytest.raises(IndexError) as serial_error:
        serial(a, idx)
    with pytest.raises(IndexError) as auto_error:
        p(a, idx)
    assert str(auto_error.value) == str(serial_error.value)


def test_the_printed_schedule_runs_as_a_side_file(tmp_path):
    p = ph.pipeline(total, schedule="auto")
    a = np.arange(N, dtype=np.int64)
    p(a)
    side = tmp_path / "generic.py"
    side.write_text(p.schedule_source())
    q = ph.pipeline(total, schedule=str(side))
    assert q(a) == _python(total, a)


def test_tuned_sums_keep_the_error():
    p = ph.pipeline(total, schedule=ph.AutoschedulerParams("pyhalide", {"tune": "2"}))
    a = np.ones(N, np.int64)
    assert p(a) == N
    a[:2] = 2 ** 62 + 2 ** 61
    with pytest.raises(OverflowError):
        p(a)
