"""The address of a histogram's scatter, bucket + data-free offset, in 64 bits
(codegen_llvm._narrow_unsigned): a bucket cast from uint8/uint16 is added to
the offset without a 32-bit add and sign extension per element, and the
results and index checks are those of the int32 arithmetic."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.bench import suite1
from pyhalide.lowering.codegen_llvm import codegen
from pyhalide.lowering.runtime import BufferArg
from tests.backend.backend_util import compile_kernel, geom, i32, var

I32 = ir.Int(32)


def through(name, size, body):
    """`body` writes buffer `name` of `size` int32 elements, allocated by the
    pipeline and zeroed first, which is then copied to the output `out`."""
    i = var("i")
    return ir.Allocate(name, I32, (size,), ir.block(
        ir.For("i", i32(0), size, "serial", ir.Store(name, i32(0), i)),
        body,
        ir.For("i", i32(0), size, "serial", ir.Store("out", ir.Load(I32, name, i), i))))


def scatter(t: ir.Type, allocated=True):
    """for u, x: hist[u * 256 + int32(img[u, x])] += 1 (img of type t, rows of
    64); hist allocated by the pipeline, or the output itself."""
    u, x = var("u"), var("x")
    h = "hist" if allocated else "out"
    bucket = ir.Cast(I32, ir.Load(t, "img", ir.Add(ir.Mul(u, i32(64)), x)))
    at = ir.Add(ir.Mul(u, i32(256)), bucket)
    inc = ir.Store(h, ir.Add(ir.Load(I32, h, at), i32(1)), at)
    rows = ir.Div(geom("img", "extent"), i32(64))
    loop = ir.For("u", i32(0), rows, "serial", ir.For("x", i32(0), i32(64), "serial", inc))
    return through(h, ir.Mul(rows, i32(256)), loop) if allocated else loop


def _llvm(stmt, t):
    bufs = [BufferArg("img", t, 1, False), BufferArg("out", I32, 1, True)]
    return str(codegen(stmt, "k", bufs, []).module)


SEXT = r"sext i32 %\S+ to i64"


@pytest.mark.parametrize("t", [ir.UInt(8), ir.UInt(16)])
def test_small_unsigned_bucket_is_added_in_64_bits(t):
    text = _llvm(scatter(t), t)
    assert re.search(rf"zext i{t.bits} %\S+ to i64", text)
    assert not re.search(rf"zext i{t.bits} %\S+ to i32", text)    # no int32 sum of it


@pytest.mark.parametrize("t", [ir.Int(8), ir.UInt(32), ir.Int(32)])
def test_other_buckets_keep_int32_arithmetic(t):
    # a signed or 32-bit value may wrap the int32 sum into the buffer
    assert re.search(SEXT, _llvm(scatter(t), t))


def test_input_buffers_keep_int32_arithmetic():
    # an input view with negative strides has negative indices: a wrapped
    # sum could be one of them
    assert re.search(SEXT, _llvm(scatter(ir.UInt(8), allocated=False), ir.UInt(8)))


def _scaled(let: bool):
    """h[(int32(k[0]) + 65536) * 65536 + x] = 1 for x < 4, h allocated, then
    copied to out: the int32 index wraps to k[0] * 65536 + x (in bounds), its
    exact value is 2^32 past it."""
    x = var("x")
    s = ir.Add(ir.Cast(I32, ir.Load(ir.UInt(16), "img", i32(0))), i32(65536))
    if let:
        loop = ir.For("x", i32(0), i32(4), "serial", ir.LetStmt(
            "t", s, ir.Store("h", i32(1), ir.Add(ir.Mul(var("t"), i32(65536)), x))))
    else:
        loop = ir.For("x", i32(0), i32(4), "serial",
                      ir.Store("h", i32(1), ir.Add(ir.Mul(s, i32(65536)), x)))
    return through("h", i32(65536 + 4), loop)


@pytest.mark.parametrize("let", [False, True])
def test_bucket_sum_inside_a_product_keeps_int32_arithmetic(let):
    """Only a whole index is added in 64 bits: scaled (directly or through a
    let), the sum wraps as int32 arithmetic does, and the store lands where
    the wrapped index says."""
    assert re.search(SEXT, _llvm(_scaled(let), ir.UInt(16)))
    k = np.array([1], np.uint16)
    out = np.zeros(65536 + 4, np.int32)
    compile_kernel(_scaled(let), [("img", k, False), ("out", out, True)])([k, out], [])
    assert out[65536:].tolist() == [1, 1, 1, 1] and not out[:65536].any()


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_scatter_results(dtype):
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, 64 * 9).astype(dtype)
    t = ir.Type.from_numpy(np.dtype(dtype))
    want = np.concatenate([np.bincount(row, minlength=256) for row in img.reshape(9, 64)])
    for allocated in (True, False):
        out = np.zeros(256 * 9, np.int32)
        k = compile_kernel(scatter(t, allocated), [("img", img, False), ("out", out, True)])
        k([img, out], [])
        np.testing.assert_array_equal(out, want)


def _histogram(img, buckets):
    """Suite 1's histogram2d with Halide's best schedule: strips of 16 rows
    in parallel (rfactor), 16 lanes, the scatter unrolled by 8."""
    h, r, _ = suite1.alg_hist(ph, {"img": img})
    x = h.args()[0]
    u, ryo, ryi, rxo, rxi = ph.Var("u"), ph.RVar("ryo"), ph.RVar("ryi"), ph.RVar("rxo"), \
        ph.RVar("rxi")
    intm = h.update().split(r.y, ryo, ryi, 16).rfactor(ryo, u)
    intm.compute_root().vectorize(x, 16)
    intm.update().parallel(u).split(r.x, rxo, rxi, 8).unroll(rxi)
    h.update().vectorize(x, 16)
    return h.realize([buckets])


def test_rfactor_histogram_exact():
    img = np.random.default_rng(5).integers(0, 256, (128, 96), dtype=np.uint8)
    got = np.asarray(_histogram(img, 256))
    np.testing.assert_array_equal(got, np.bincount(img.ravel(), minlength=256))


def test_rfactor_histogram_bucket_outside_is_reported():
    img = np.full((32, 16), 7, np.uint8)
    img[20, 3] = 200
    with pytest.raises(IndexError, match="outside its computed region"):
        _histogram(img, 100)
