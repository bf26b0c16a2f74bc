"""PYHALIDE_NUM_THREADS: more threads than cores costs little (idle threads
sleep instead of polling), and a value that is not an integer from 1 to 1024
is an error naming the variable when the first parallel loop runs."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from pyhalide.ir.config import override
from tests.runtime import long_kernels as lk


def _small_parallel_call():
    img = np.random.default_rng(0).random((64, 64))
    f, reps = lk.func_recurrence(img, parallel=True)
    reps.set(4)
    return lambda: f.realize([64, 64]), lk.func_recurrence_ref(img, 4)


def _per_call_cpu_s(run, calls=100, batches=5) -> float:
    """The process's CPU time per call (all its threads), minimum of the
    batches: polling threads show in it, time spent waiting for a core on a
    loaded machine does not (wall time did: 101 us against 11 at load 14)."""
    best = float("inf")
    for _ in range(batches):
        t = time.process_time()
        for _ in range(calls):
            run()
        best = min(best, (time.process_time() - t) / calls)
    return best


@pytest.mark.exclusive    # times 1 and 64 threads on the cores
def test_many_threads_on_few_cores_do_not_slow_small_calls_down():
    run, ref = _small_parallel_call()
    times = {}
    for n in (1, 64):
        with override(num_threads=n):
            np.testing.assert_allclose(np.asarray(run()), ref)
            times[n] = _per_call_cpu_s(run)
    # 64 threads polled for work on 2 cores: ~40x slower than 1 thread
    assert times[64] < 5 * times[1], times


@pytest.mark.parametrize("bad", [0, -3, 1025, 100000, "8 threads", 2.0, True])
def test_bad_thread_counts_are_refused(bad):
    run, _ = _small_parallel_call()
    with override(num_threads=bad), \
            pytest.raises(ValueError, match=r"PYHALIDE_NUM_THREADS .* integer from 1 to 1024"):
        run()
    run()                                 # the default count again


def test_bad_environment_value_is_an_error_at_the_first_parallel_loop():
    code = ("import numpy as np, pyhalide as ph\n"
            "x = ph.Var('x'); f = ph.Func('f'); f[x] = x * 2\n"
            "print(np.asarray(f.realize([4])).tolist())\n"       # serial: runs
            "f.parallel(x)\n"
            "try:\n"
            "    f.realize([4])\n"
            "except ValueError as e:\n"
            "    print(e)\n")
    env = dict(os.environ, PYHALIDE_NUM_THREADS="lots")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "[0, 2, 4, 6]",
        ("PYHALIDE_NUM_THREADS (the threads of parallel loops) must be an integer from 1 to "
         "1024, not 'lots'")]
