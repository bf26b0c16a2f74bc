"""The parallel runtime's chunking and polling, and the entry call's fast
paths (data pointers read from the array object, byte-range overlap
checks)."""
import threading

import numpy as np
import pytest

from pyhalide import ir
from pyhalide.ir.config import override
from pyhalide.lowering import parallel_runtime, runtime
from tests.backend.backend_util import compile_kernel, geom, i32, var

I32 = ir.Int(32)


def count_kernel():
    """out[i] += 1 for i in [0, extent) in a parallel loop."""
    i = var("i")
    s = ir.For("i", i32(0), geom("out", "extent"), "parallel",
               ir.Store("out", ir.Add(ir.Load(I32, "out", i), i32(1)), i))
    return compile_kernel(s, [("out", np.zeros(1, np.int32), True)], name="count")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_every_index_runs_exactly_once(threads):
    k = count_kernel()
    with override(num_threads=threads):
        for n in (1, 2, 15, 16, 17, 255, 256, 257, 1000, 4099, 65537):
            out = np.zeros(n, np.int32)
            k([out], [])
            k([out], [])
            assert out.min() == 2 and out.max() == 2, n


def test_back_to_back_loops_from_several_python_threads():
    # Workers poll between jobs; jobs of several callers interleave.
    k = count_kernel()
    failures = []

    def run():
        out = np.zeros(3001, np.int32)
        for _ in range(200):
            k([out], [])
        if not (out == 200).all():
            failures.append(out)

    with override(num_threads=2):
        ts = [threading.Thread(target=run) for _ in range(3)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in ts)
    assert failures == []


def test_pool_restarts_with_another_thread_count_while_workers_poll():
    k = count_kernel()
    out = np.zeros(999, np.int32)
    for threads in (2, 3, 1, 2):
        with override(num_threads=threads):
            k([out], [])
            assert parallel_runtime.num_threads() == threads
    assert (out == 4).all()


def arrays():
    base = np.arange(4 * 6 * 5, dtype=np.float64).reshape(4, 6, 5)
    yield base
    yield base[1:, ::2, 1:4]
    yield base[::-1, :, ::-2]
    yield base[2, ::-1]
    yield np.full((), 3, np.float32)
    yield np.zeros((0, 3), np.int16)
    yield np.zeros((3, 0), np.int8)[:, ::-1]
    yield np.ones(7, np.uint8)[3:]
    yield np.lib.stride_tricks.as_strided(np.zeros(4, np.int32), (3, 4), (0, 4))
    yield np.ones(2).view(np.recarray)          # a subclass


@pytest.mark.parametrize("arr", list(arrays()), ids=lambda a: f"{a.shape}{a.strides}")
def test_data_pointer_and_byte_range(arr):
    assert runtime._data_pointer(arr) == arr.ctypes.data
    spec = runtime.BufferArg("b", ir.Type.from_numpy(arr.dtype), arr.ndim, False)
    rows = (np.ctypeslib.ctypes.c_int64 * max(3 * arr.ndim, 1))()
    lo, hi = runtime.write_geometry(spec, arr, rows)
    if arr.size == 0:
        assert (lo, hi) == (0, 0)
    else:
        blo, bhi = np.lib.array_utils.byte_bounds(arr)
        assert (arr.ctypes.data + lo, arr.ctypes.data + hi) == (blo, bhi)


def copy_kernel():
    """out[x] = inp[x] over out's extent, any strides."""
    x = var("x")
    s = ir.For("x", i32(0), geom("out", "extent"), "serial",
               ir.Store("out", ir.Load(I32, "inp", ir.Mul(x, geom("inp", "stride"))),
                        ir.Mul(x, geom("out", "stride"))))
    z = np.zeros(1, np.int32)
    return compile_kernel(s, [("inp", z, False), ("out", z.copy(), True)], name="copy1d")


def test_overlap_checks_with_reversed_and_empty_views():
    k = copy_kernel()
    a = np.arange(10, dtype=np.int32)
    with pytest.raises(ValueError, match="shares memory"):
        k([a[2:6], a[::-1][3:7]], [])        # elements 6..3 overlap 2..5
    k([a[:5], a[::-1][:5]], [])              # reversed upper half: no common element
    np.testing.assert_array_equal(a[5:], [4, 3, 2, 1, 0])
    b = np.arange(10, dtype=np.int32)
    k([b[3:3], b[4:4]], [])                  # empty output inside the input's range
    c = np.arange(12, dtype=np.int32)
    k([c[0::2], c[1::2]], [])                # interleaved: ranges meet, elements do not
    np.testing.assert_array_equal(c[1::2], c[0::2])


def test_overlap_between_outputs_and_error_order():
    x = var("x")
    s = ir.For("x", i32(0), geom("o1", "extent"), "serial", ir.block(
        ir.Store("o1", ir.Load(I32, "inp", x), x),
        ir.Store("o2", ir.Load(I32, "inp", x), x)))
    z = np.zeros(4, np.int32)
    k = compile_kernel(s, [("inp", z, False), ("o1", z.copy(), True), ("o2", z.copy(), True)],
                       name="two_outputs")
    a = np.arange(12, dtype=np.int32)
    with pytest.raises(ValueError, match="output buffer o1 shares memory with buffer o2"):
        k([a[:4], a[4:8], a[6:10]], [])
    with pytest.raises(ValueError, match="output buffer o1 shares memory with buffer inp"):
        k([a[:4], a[2:6], a[6:10]], [])
    ro = np.zeros(4, np.int32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="output buffer o1 is not writeable"):
        k([a[:4], ro, a[:4]], [])                # o1's fault is reported first
    k([a[:4], a[4:8], a[8:12]], [])
    np.testing.assert_array_equal(a, [0, 1, 2, 3] * 3)
