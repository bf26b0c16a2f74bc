"""The kernel entry as a CPython builtin (lowering/native_entry.py): it
writes the data pointers of a prepared call's arrays, checks their
alignment, clears the error code and the cancel flag and calls the entry.
Every result is compared with NumPy; misaligned arrays raise as the ctypes
path did."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.lowering import native_entry
from pyhalide.lowering.runtime import PreparedCall


def _misaligned(n: int) -> np.ndarray:
    raw = np.zeros(4 * n + 1, np.uint8)[1:]
    a = raw.view(np.int32)
    assert a.ctypes.data % 4
    return a


def _sum_func(img):
    r = ph.RDom([ph.Range(0, img.dim(0).extent())])
    f = ph.Func("total")
    f[()] = 0
    f[()] = f[()] + img[r.x] * 3 + 1
    return f


def test_repeated_realize_reads_each_new_array():
    img = ph.ImageParam(ph.Int(32), 1, "img")
    f = _sum_func(img)
    rng = np.random.default_rng(3)
    for k in range(6):                 # the third call on is the recorded fast path
        a = rng.integers(-1000, 1000, 97, dtype=np.int32)
        img.set(ph.Buffer(a))
        got = int(np.asarray(f.realize([])))
        assert got == int((a.astype(np.int64) * 3 + 1).sum())


def test_misaligned_input_on_the_fast_path_raises():
    img = ph.ImageParam(ph.Int(32), 1, "img")
    f = _sum_func(img)
    a = np.arange(50, dtype=np.int32)
    img.set(ph.Buffer(a))
    for _ in range(3):
        assert int(np.asarray(f.realize([]))) == int((a * 3 + 1).sum())
    bad = _misaligned(50)
    bad[:] = a
    img.set(ph.Buffer(bad))
    with pytest.raises(ValueError, match="not aligned to its item size"):
        f.realize([])
    img.set(ph.Buffer(a))              # and the next aligned call runs
    assert int(np.asarray(f.realize([]))) == int((a * 3 + 1).sum())


def test_prepared_call_checks_alignment_natively():
    img = ph.ImageParam(ph.Int(32), 1, "img")
    f = _sum_func(img)
    a = np.arange(40, dtype=np.int32)
    img.set(ph.Buffer(a))
    f.realize([])
    kernel = next(iter(f._solo_pipeline._current()[2].kernels.values()))
    out = np.empty((), np.int32)
    call = PreparedCall(kernel, [a, out], [], check_alignment=1)
    for k in range(3):
        b = a * (k + 2)
        out = np.empty((), np.int32)
        call([b, out])
        assert int(out) == int((b * 3 + 1).sum())
    bad = _misaligned(40)
    with pytest.raises(ValueError, match="not aligned to its item size"):
        call([bad, np.empty((), np.int32)])


def test_entry_function_is_native_here():
    # CPython with its C API reachable through ctypes: the builtin is used
    made = native_entry.entry_function(0, 0, 0, 16)
    assert made is not None and type(made[0]).__name__ == "builtin_function_or_method"


@ph.pipeline(schedule="auto")
def _scaled(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * 2.0 + 1.0
    return out


def test_compiled_entry_runs_a_parallel_kernel_with_the_pool_sized_first():
    from pyhalide.ir.config import override
    from pyhalide.lowering import parallel_runtime
    a = np.random.default_rng(5).random((1500, 1500))
    for _ in range(80):                          # hot: the compiled entry is built
        got = _scaled(a)
    assert _scaled._entry is not None
    entry = next(iter(_scaled._last.direct.entries.values()))
    assert entry.run.kernel.parallel
    assert np.array_equal(got, a * 2.0 + 1.0)
    with override(num_threads=1):                # the entry resizes the pool
        assert np.array_equal(_scaled(a), a * 2.0 + 1.0)
        assert parallel_runtime.num_threads() == 1
    with override(num_threads=0), pytest.raises(ValueError, match="PYHALIDE_NUM_THREADS"):
        _scaled(a)
    assert np.array_equal(_scaled(a), a * 2.0 + 1.0)
