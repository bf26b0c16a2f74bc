"""Code quality of the tiled, fused, vectorized two-stage blur (the PLDI 2013
schedule, at test sizes) and the 64-bit index arithmetic behind it: the
vector loops address memory without re-extending 32-bit indices, indices
that depend on data keep their wrapping int32 value, and the per-tile
storage of the fused stage is on the stack."""
import re

import numpy as np

import pyhalide as ph
from tests.vectorize.vectorize_util import check_schedule, llvm_of

rng = np.random.default_rng(4)


def _blur(img):
    inp = ph.Buffer(img, "bc_input")
    x, y = ph.Var("x"), ph.Var("y")
    bx, by = ph.Func("bc_blur_x"), ph.Func("bc_blur_y")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    return by, bx, x, y


def _tiled(by, bx, x, y):
    xi, yi = ph.Var("xi"), ph.Var("yi")
    by.tile(x, y, xi, yi, 64, 8).vectorize(xi, 16).parallel(y)
    bx.compute_at(by, x).vectorize(x, 16)


def _blocks(text):
    """The basic blocks of LLVM IR text (label line first)."""
    return re.split(r"\n(?=[\w.$\"-]+:)", text)


def test_blur_vector_loops_have_no_index_sign_extension():
    # 150 x 37: neither a multiple of the tile nor of the vector width
    img = rng.integers(0, 2**16, (39, 152), dtype=np.uint16)
    lowered = check_schedule(lambda: _blur(img), _tiled, [150, 37])
    opt = llvm_of(lowered, "llvm_opt")
    vector_blocks = [b for b in _blocks(opt) if "load <16 x i16>" in b]
    assert vector_blocks
    for b in vector_blocks:
        assert " sext " not in b, b
    # blur_x's storage per tile (64 x (8 + 2) points, a symbolic extent
    # bounded by the tile) is on the stack, not allocated per tile
    assert "alloca i16, i64 640" in llvm_of(lowered)


def test_data_dependent_index_keeps_int32_wraparound():
    # a + b + c wraps to 5 in int32; computed in 64 bits it would be 2^32 + 5
    n = 16
    a = ph.Buffer(np.full(n, 2**31 - 1, np.int32), "wrap_a")
    b = ph.Buffer(np.full(n, 2**31 - 1, np.int32), "wrap_b")
    c = ph.Buffer(np.full(n, 7, np.int32), "wrap_c")
    table = ph.Buffer(np.arange(100, 132, dtype=np.int32), "wrap_table")
    x = ph.Var("x")

    def make():
        f = ph.Func("wrap_gather")
        f[x] = table[a[x] + b[x] + c[x] + x % 4]
        return f

    lowered = check_schedule(make, lambda f: f.vectorize(x, 8), [n])
    assert "wrap_table" in lowered.text("final")
    out = np.asarray(make().realize([n]))
    np.testing.assert_array_equal(out, 105 + np.arange(n) % 4)


def test_negative_offsets_and_reversed_ramps():
    img = rng.integers(-1000, 1000, (9, 70), dtype=np.int32)
    inp = ph.Buffer(img, "rev_input")
    x, y = ph.Var("x"), ph.Var("y")

    def make():
        f = ph.Func("rev_f")
        f[x, y] = inp[63 - x, 8 - y] * 2 + inp[x + 6, y]
        return f

    check_schedule(make, lambda f: f.vectorize(x, 8).unroll(y, 3), [64, 9])
