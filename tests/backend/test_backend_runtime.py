"""The NumPy boundary: argument checks, zero-copy, strides, params,
concurrency and per-call overhead."""
import threading
import time

import numpy as np
import pytest

from pyhalide import ir
from tests.backend.backend_util import compile_kernel, geom, i32, var

I32, F32 = ir.Int(32), ir.Float(32)


def copy2d_kernel(dtype=np.float32, scale_param=False):
    """out[y, x] = inp[y, x] (* k): a 2-D copy using the geometry Variables."""
    t = ir.Type.from_numpy(dtype)
    x, y = var("x"), var("y")

    def addr(b):
        return ir.Add(ir.Mul(ir.Sub(x, geom(b, "min", 0)), geom(b, "stride", 0)),
                      ir.Mul(ir.Sub(y, geom(b, "min", 1)), geom(b, "stride", 1)))
    val = ir.Load(t, "inp", addr("inp"))
    params = []
    if scale_param:
        val = ir.Mul(val, ir.Variable(t, "k", "param"))
        params = [("k", t, 1)]
    body = ir.For("y", geom("out", "min", 1), geom("out", "extent", 1), "serial",
                  ir.For("x", geom("out", "min", 0), geom("out", "extent", 0), "serial",
                         ir.Store("out", val, addr("out"))))
    a = np.zeros((2, 2), dtype)
    return compile_kernel(body, [("inp", a, False), ("out", a, True)], params)


def test_strided_and_transposed_inputs_without_copies():
    k = copy2d_kernel()
    base = np.arange(12 * 10, dtype=np.float32).reshape(12, 10)
    for view in (base, base[::2, 1::3], base[::-1, ::-2], base.T[2:7, 3:9], base[3:4, :]):
        out = np.zeros(view.shape, np.float32)
        k([view, out], [])
        np.testing.assert_array_equal(out, view)
    # writing through a strided output view lands in the base array
    dst = np.zeros((8, 8), np.float32)
    src = np.arange(16, dtype=np.float32).reshape(4, 4)
    k([src, dst[::2, 1::2]], [])
    np.testing.assert_array_equal(dst[::2, 1::2], src)
    assert dst[1].sum() == 0 and dst[:, 0].sum() == 0


def test_zero_copy_output_is_written_in_place():
    k = copy2d_kernel(np.int64)
    src = np.arange(6, dtype=np.int64).reshape(2, 3)
    out = np.zeros((2, 3), np.int64)
    alias = out.view()                           # another view of the same memory
    assert np.shares_memory(alias, out)
    k([src, out], [])
    np.testing.assert_array_equal(alias, src)    # the kernel wrote the caller's memory
    big = np.zeros((4, 5), np.int64)
    window = big[1:3, 1:4]
    k([src, window], [])
    assert big[1:3, 1:4].tolist() == src.tolist() and big.sum() == src.sum()


def test_input_is_not_copied_or_modified():
    # A read of an input sees later writes to the same memory: no snapshot copy.
    k = copy2d_kernel(np.int32)
    src = np.arange(4, dtype=np.int32).reshape(2, 2)
    out = np.zeros((2, 2), np.int32)
    k([src, out], [])
    src[0, 0] = 77
    k([src, out], [])
    assert out[0, 0] == 77


def test_dtype_and_ndim_errors():
    k = copy2d_kernel(np.float32)
    good = np.zeros((2, 2), np.float32)
    with pytest.raises(TypeError, match=r"buffer inp has dtype float64; expected float32"):
        k([np.zeros((2, 2)), good], [])
    with pytest.raises(TypeError, match="inp"):
        k([np.zeros((2, 2), ">f4"), good], [])          # byte order matters
    with pytest.raises(TypeError, match="numpy.ndarray"):
        k([[[0.0]], good], [])
    with pytest.raises(ValueError, match=r"buffer out has 3 dimensions; expected 2"):
        k([good, np.zeros((1, 2, 2), np.float32)], [])
    with pytest.raises(ValueError, match="takes 2 buffers"):
        k([good], [])
    with pytest.raises(ValueError, match="takes 0 params"):
        k([good, good.copy()], [1])


def test_output_must_be_writeable_and_not_alias_inputs():
    k = copy2d_kernel(np.float32)
    a = np.ones((4, 4), np.float32)
    ro = np.zeros((4, 4), np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="not writeable"):
        k([a, ro], [])
    with pytest.raises(ValueError, match="shares memory"):
        k([a, a], [])
    with pytest.raises(ValueError, match="shares memory"):
        k([a[:2], a[1:3]], [])
    # interleaved views share no element: allowed
    b = np.arange(32, dtype=np.float32).reshape(4, 8)
    k([b[:, ::2], b[:, 1::2]], [])
    np.testing.assert_array_equal(b[:, 1::2], b[:, ::2])


def test_bad_strides_and_alignment():
    k = copy2d_kernel(np.int32)
    raw = np.zeros(4 * 8 + 1, np.uint8)
    unaligned = raw[1:].view(np.int32).reshape(4, 2)
    out = np.zeros((4, 2), np.int32)
    with pytest.raises(ValueError, match="aligned"):
        k([unaligned, out], [])
    odd = np.lib.stride_tricks.as_strided(np.zeros(64, np.int32), (2, 2), (6, 4))
    with pytest.raises(ValueError, match="multiple of the item size"):
        k([odd, out[:2]], [])


def test_zero_dimensional_and_empty_buffers():
    s = ir.Store("out", ir.Mul(ir.Load(I32, "inp", i32(0)), i32(3)), i32(0))
    inp, out = np.array(5, np.int32), np.array(0, np.int32)
    k = compile_kernel(s, [("inp", inp, False), ("out", out, True)])
    k([inp, out], [])
    assert out[()] == 15
    k2 = copy2d_kernel()
    k2([np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)], [])
    k2([np.zeros((3, 0), np.float32), np.zeros((3, 0), np.float32)], [])


@pytest.mark.parametrize("t,good,bad", [
    (ir.Int(8), [-128, 127, np.int64(5), True], [128, -129, 1.5, "1", None]),
    (ir.UInt(64), [0, 2**64 - 1], [-1, 2**64, 2.0]),
    (ir.Bool(), [True, False, 0, 1, np.bool_(True)], [2, -1, 0.5]),
    (ir.Float(32), [1, 2.5, np.float64(3), np.int8(4)], ["x", None, 1j]),
])
def test_param_checks(t, good, bad):
    x = var("x")
    kv = ir.Variable(t, "k", "param")
    s = ir.Store("out", kv, i32(0))
    out = np.zeros(1, t.to_numpy())
    k = compile_kernel(s, [("out", out, True)], [("k", t, good[0])])
    for v in good:
        k([out], [v])
        assert out[0] == t.to_numpy().type(v)
    for v in bad:
        with pytest.raises(TypeError, match="param k"):
            k([out], [v])
    del x


def test_float_param_rounds_to_float32():
    s = ir.Store("out", ir.Variable(F32, "k", "param"), i32(0))
    out = np.zeros(1, np.float32)
    k = compile_kernel(s, [("out", out, True)], [("k", F32, 0.0)])
    k([out], [0.1])
    assert out[0] == np.float32(0.1)
    k([out], [1e300])
    assert out[0] == np.inf


def test_concurrent_calls_from_threads_give_correct_results():
    k = copy2d_kernel(np.float64, scale_param=True)
    errors = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(200):
                h, w = rng.integers(1, 40, 2)
                src = rng.standard_normal((h, w))
                if rng.integers(2):
                    src = src[::-1, ::2]
                out = np.empty(src.shape)
                scale = float(rng.integers(1, 5))
                k([src, out], [scale])
                if not np.array_equal(out, src * scale):
                    errors.append(seed)
        except Exception as e:     # pragma: no cover - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.exclusive    # times microseconds per call
def test_per_call_overhead_is_small():
    x = var("x")
    s = ir.For("x", i32(0), geom("out", "extent"), "serial",
               ir.Store("out", ir.Add(ir.Load(F32, "a", x), ir.Variable(F32, "k", "param")), x))
    a, out = np.ones(4, np.float32), np.zeros(4, np.float32)
    k = compile_kernel(s, [("a", a, False), ("out", out, True)], [("k", F32, 0.0)])
    bufs, params = [a, out], [2.0]
    best = float("inf")
    for _ in range(20):
        t0 = time.perf_counter()
        for _ in range(200):
            k(bufs, params)
        best = min(best, (time.perf_counter() - t0) / 200)
    assert out.tolist() == [3.0] * 4
    assert best < 50e-6, f"{best * 1e6:.1f} us per call"


def test_buffers_whose_offsets_exceed_int32_are_refused():
    k = copy2d_kernel(np.int8)
    base = np.zeros(16, np.int8)
    huge = np.lib.stride_tricks.as_strided(base, (3, 2**30), (2**30, 1))   # no memory touched
    out = np.zeros((3, 2), np.int8)
    with pytest.raises(ValueError, match="32-bit indexing"):
        k([huge, out], [])
    wide = np.lib.stride_tricks.as_strided(base, (2, 2**31), (0, 0))
    with pytest.raises(ValueError, match="32-bit indexing"):
        k([wide, out], [])
