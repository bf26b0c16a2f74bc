"""Vectorization through the Func API: `vectorize(x, N)` becomes ramps and
broadcasts in the final Stmt and `<N x T>` operations in the LLVM IR even
with LLVM's own loop and SLP vectorizers switched off; every scheduled
result equals the unscheduled one and the reference evaluator bit for bit."""
import re

import numpy as np
import pytest

import pyhalide as ph
from tests.vectorize.vectorize_util import check_schedule, llvm_of

rng = np.random.default_rng(21)
W, H = 67, 5          # not a multiple of any vector width: the tails run too


def llvm_vector_ops(text, lanes, ty):
    """The instructions of the LLVM text that compute on <lanes x ty>."""
    pat = re.compile(rf"= (\w+) (?:\w+ )*<{lanes} x {re.escape(ty)}>")
    return {m.group(1) for m in pat.finditer(text)}


def test_float32_add_is_vector_code_with_llvm_vectorizers_off():
    a = ph.Buffer(rng.standard_normal((H, W)).astype(np.float32), "va")
    b = ph.Buffer(rng.standard_normal((H, W)).astype(np.float32), "vb")
    x, y = ph.Var("x"), ph.Var("y")

    def make():
        f = ph.Func("vadd")
        f[x, y] = a[x, y] + b[x, y] * 2.0
        return f

    lowered = check_schedule(make, lambda f: f.vectorize(x, 8), [W, H])
    final = lowered.text("final")
    assert re.search(r"va\[ramp\(.*, 1, 8\)\]", final) and "x8(2.0f)" in final
    ops = llvm_vector_ops(llvm_of(lowered), 8, "float")
    assert {"load", "fmul", "fadd"} <= ops
    opt = llvm_of(lowered, "llvm_opt")
    assert {"load", "fmul", "fadd"} <= llvm_vector_ops(opt, 8, "float")
    assert re.search(r"store <8 x float>", opt)


# (every type is covered bit for bit by the hand-built tests of test_vectorize_types)
TYPES = [(np.uint8, 32, "i8"), (np.int16, 8, "i16"), (np.uint32, 8, "i32"),
         (np.int64, 2, "i64"), (np.float64, 4, "double")]


@pytest.mark.parametrize("dtype,lanes,llty", TYPES, ids=lambda v: str(v))
def test_every_type_and_width(dtype, lanes, llty):
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    data = (rng.integers(info.min, info.max, (H, W), dtype=dtype, endpoint=True) if info
            else rng.standard_normal((H, W)).astype(dtype))
    a = ph.Buffer(data, f"t_{np.dtype(dtype).name}")
    x, y = ph.Var("x"), ph.Var("y")

    def make():
        f = ph.Func(f"typed_{np.dtype(dtype).name}")
        v = a[x, y]
        f[x, y] = ph.select(v > a[x, 0], v - a[x, 0], ph.min(v, a[x, 0])) * 3 + v / 5
        return f

    lowered = check_schedule(make, lambda f: f.vectorize(x, lanes), [W, H])
    assert llvm_vector_ops(llvm_of(lowered), lanes, llty)


def test_bool_output_and_widening_casts():
    a = ph.Buffer(rng.integers(0, 256, (H, W)).astype(np.uint8), "bytes")
    x, y = ph.Var("x"), ph.Var("y")

    def make():
        f = ph.Func("widened")
        wide = ph.cast(ph.Int(32), a[x, y]) * 1000 - ph.cast(ph.Int(32), a[x + 1, y])
        f[x, y] = ph.cast(ph.Float(64), wide) / 7.0 > 100.0
        return f

    lowered = check_schedule(make, lambda f: f.vectorize(x, 16), [W - 1, H])
    text = llvm_of(lowered)
    assert llvm_vector_ops(text, 16, "i32") and llvm_vector_ops(text, 16, "double")


def test_two_stage_blur_with_tiles_vectors_and_parallel_rows():
    img = rng.integers(0, 60000, (40, 70), dtype=np.uint16)
    inp = ph.Buffer(img, "blur_in")
    x, y, xi, yi = ph.Var("x"), ph.Var("y"), ph.Var("xi"), ph.Var("yi")

    def make():
        bx, by = ph.Func("blur_x"), ph.Func("blur_y")
        bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) // 3
        by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) // 3
        return by, bx

    def schedule(by, bx):
        by.tile(x, y, xi, yi, 16, 8).vectorize(xi, 8).parallel(y)
        bx.compute_at(by, x).vectorize(x, 8)

    lowered = check_schedule(make, schedule, [68, 38])
    assert re.search(r"blur_x\S*\[ramp\(.*, 1, 8\)\] = ", lowered.text("final"))


def test_vectorized_update_over_a_pure_var():
    a = ph.Buffer(rng.integers(-100, 100, (8, 50)).astype(np.int32), "upd_in")
    x = ph.Var("x")
    r = ph.RDom([(0, 8)], "r")

    def make():
        f = ph.Func("colsum")
        f[x] = 0
        f[x] = f[x] * 3 + a[x, r.x]
        return f

    def schedule(f):
        f.vectorize(x, 8)
        f.update(0).vectorize(x, 8)

    final = check_schedule(make, schedule, [50]).text("final")
    assert re.search(r"colsum\S*\[ramp\(.*\)\] = \(\(colsum\S*\[ramp", final)


def test_gather_through_a_lookup_table_and_unrolled_rows():
    lut = ph.Buffer(rng.standard_normal(256).astype(np.float32), "lut")
    idx = ph.Buffer(rng.integers(0, 256, (4, 40)).astype(np.uint8), "lut_idx")
    x, y = ph.Var("x"), ph.Var("y")

    def make():
        f = ph.Func("looked_up")
        f[x, y] = lut[ph.cast(ph.Int(32), idx[x, y])] * 0.5
        return f

    lowered = check_schedule(make, lambda f: f.vectorize(x, 8).unroll(y, 2), [40, 4])
    assert "llvm.masked.gather.v8f32" in llvm_of(lowered)


def test_loops_of_runtime_extent_cannot_be_vectorized_or_unrolled_without_a_factor():
    x, y = ph.Var("x"), ph.Var("y")
    for directive, word in (("vectorize", "vectorize"), ("unroll", "unroll")):
        f = ph.Func(f"whole_{directive}")
        f[x, y] = x + y
        getattr(f, directive)(y)
        with pytest.raises(ph.CompileError, match=rf"{word} loop whole_{directive}\S*\.s0\.y"):
            f.realize([4, 3])
