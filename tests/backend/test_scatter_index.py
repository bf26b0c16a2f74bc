"""The address of a histogram's scatter, bucket + data-free offset, in 64 bits
(codegen_llvm._narrow_unsigned): a bucket cast from uint8/uint16 is added to
the offset without a 32-bit add and sign extension per element, and the
results and index checks are those of the int32 arithmetic."""
import re

import numpy as np
import pytest
from backend_util import compile_kernel, geom, i32, var

import pyhalide as ph
from pyhalide import ir
from pyhalide.bench import suite1
from pyhalide.lowering.codegen_llvm import codegen
from pyhalide.lowering.runtime import BufferArg

I32 = ir.Int(32)


def scatter(t: ir.Type):
    """for u, x: hist[u * 256 + int32(img[u, x])] += 1 (img of type t, rows of 64)."""
    u, x = var("u"), var("x")
    bucket = ir.Cast(I32, ir.Load(t, "img", ir.Add(ir.Mul(u, i32(64)), x)))
    at = ir.Add(ir.Mul(u, i32(256)), bucket)
    inc = ir.Store("hist", ir.Add(ir.Load(I32, "hist", at), i32(1)), at)
    rows = ir.Div(geom("img", "extent"), i32(64))
    return ir.For("u", i32(0), rows, "serial", ir.For("x", i32(0), i32(64), "serial", inc))


def _llvm(t):
    bufs = [BufferArg("img", t, 1, False), BufferArg("hist", I32, 1, True)]
    return str(codegen(scatter(t), "k", bufs, []).module)


@pytest.mark.parametrize("t", [ir.UInt(8), ir.UInt(16)])
def test_small_unsigned_bucket_is_added_in_64_bits(t):
    text = _llvm(t)
    assert re.search(rf"zext i{t.bits} %\S+ to i64", text)
    assert not re.search(r"sext i32 %\S+ to i64", text)


@pytest.mark.parametrize("t", [ir.Int(8), ir.UInt(32), ir.Int(32)])
def test_other_buckets_keep_int32_arithmetic(t):
    # a signed or 32-bit value may wrap the int32 sum into the buffer
    assert re.search(r"sext i32 %\S+ to i64", _llvm(t))


def _scaled(let: bool):
    """out[(int32(k[0]) + 65536) * 65536 + x] = 1: the int32 index wraps to
    k[0] * 65536 + x (in bounds), its exact value is 2^32 past it."""
    x = var("x")
    s = ir.Add(ir.Cast(I32, ir.Load(ir.UInt(16), "k", i32(0))), i32(65536))
    if let:
        t = var("t")
        return ir.For("x", i32(0), i32(4), "serial", ir.LetStmt(
            "t", s, ir.Store("out", i32(1), ir.Add(ir.Mul(t, i32(65536)), x))))
    return ir.For("x", i32(0), i32(4), "serial",
                  ir.Store("out", i32(1), ir.Add(ir.Mul(s, i32(65536)), x)))


@pytest.mark.parametrize("let", [False, True])
def test_bucket_sum_inside_a_product_keeps_int32_arithmetic(let):
    """Only a whole index is added in 64 bits: scaled (directly or through a
    let), the sum wraps as int32 arithmetic does, and the store lands where
    the wrapped index says."""
    bufs = [BufferArg("k", ir.UInt(16), 1, False), BufferArg("out", I32, 1, True)]
    assert re.search(r"sext i32 %\S+ to i64", str(codegen(_scaled(let), "k", bufs, []).module))
    k = np.array([1], np.uint16)
    out = np.zeros(65536 + 4, np.int32)
    compile_kernel(_scaled(let), [("k", k, False), ("out", out, True)])([k, out], [])
    assert out[65536:].tolist() == [1, 1, 1, 1] and not out[:65536].any()


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_scatter_results(dtype):
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, 64 * 9).astype(dtype)
    hist = np.zeros(256 * 9, np.int32)
    k = compile_kernel(scatter(ir.Type.from_numpy(np.dtype(dtype))),
                       [("img", img, False), ("hist", hist, True)])
    k([img, hist], [])
    want = np.concatenate([np.bincount(row, minlength=256) for row in img.reshape(9, 64)])
    np.testing.assert_array_equal(hist, want)


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
