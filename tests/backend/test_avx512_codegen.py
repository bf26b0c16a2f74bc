"""Vectors of AVX-512 widths (1, 2 and 4 zmm registers of each element type, and
odd lane counts) give the unscheduled pipeline's and the reference
evaluator's result bit for bit: conditions of one type selecting values of
another (mask registers), conditions of two types combined, bool outputs,
gathers, and the seeded programs of wide_vector_fuzz.py. On a host without
AVX-512 the same programs run on LLVM's legalization to narrower vectors.

The slow test runs 150 seeded programs from seed 200, or PYHALIDE_WIDE_FUZZ of
them from PYHALIDE_WIDE_FUZZ_SEED (session 12: seeds 100-349 clean on an AVX-512
host, Intel, LLVM 22)."""
import os

import numpy as np
import pytest

import pyhalide as ph
from tests.backend.wide_vector_fuzz import program
from tests.vectorize.vectorize_util import bits, lowered_pipeline, reference, run_lowered

rng = np.random.default_rng(512)


def _nan_free_bits(a: np.ndarray) -> bytes:
    """The bytes of `a` with every NaN made the same NaN: IEEE leaves the sign
    and payload of a NaN result open, and LLVM uses that (-0.0 - x becomes
    a sign flip, which also flips a NaN's sign)."""
    a = np.array(a, copy=True)
    if a.dtype.kind == "f":
        a[np.isnan(a)] = np.nan
    return bits(a)


def check_schedule(make, schedule, sizes):
    """make() vectorized by schedule(f) equals make() unscheduled and the
    reference evaluator: bit for bit, except that any NaN equals any NaN."""
    plain = make()
    want = np.asarray(ph.Pipeline([plain]).realize(list(sizes)))
    ref = np.asarray(reference(plain, sizes)[0], dtype=want.dtype)
    f = make()
    schedule(f)
    got = run_lowered(f, lowered_pipeline(f), sizes)[0]
    assert got.dtype == want.dtype
    assert _nan_free_bits(got) == _nan_free_bits(want), (got, want)
    assert _nan_free_bits(got) == _nan_free_bits(ref), (got, ref)


def zmm_lanes(dtype, vectors: int) -> int:
    return 64 // np.dtype(dtype).itemsize * vectors


@pytest.mark.parametrize("vectors", [1, 4])
def test_mask_of_one_type_selects_values_of_another(vectors):
    """A float64 comparison and an int8 comparison, combined, select uint16
    values: the masks of 8-lane float64 and 64-lane int8 registers meet in
    one vector of uint16 lanes."""
    lanes = zmm_lanes(np.uint16, vectors)
    w = lanes * 2 + 3
    a = ph.Buffer(rng.standard_normal(w + 1), f"m64_{vectors}")
    b = ph.Buffer(rng.integers(-128, 128, w + 1, dtype=np.int8), f"m8_{vectors}")
    v = ph.Buffer(rng.integers(0, 2**16, w + 1, dtype=np.uint16), f"mv_{vectors}")
    x = ph.Var("x")

    def make():
        f = ph.Func(f"mixed_masks_{vectors}")
        cond = (a[x] < a[x + 1]) & (b[x] != 0) | (b[x + 1] > b[x])
        f[x] = ph.select(cond, v[x] + v[x + 1], v[x] / 7)
        return f
    check_schedule(make, lambda f: f.vectorize(x, lanes), [w])


@pytest.mark.parametrize("dtype", [np.int8, np.float64])
@pytest.mark.parametrize("lanes", [64, 128])
def test_bool_output_of_wide_comparisons(dtype, lanes):
    w = lanes + 5
    a = ph.Buffer((rng.standard_normal(w) * 4).astype(dtype), f"ba_{lanes}")
    b = ph.Buffer((rng.standard_normal(w) * 4).astype(dtype), f"bb_{lanes}")
    x = ph.Var("x")

    def make():
        f = ph.Func(f"wide_bool_{lanes}")
        f[x] = (a[x] < b[x]) | ((a[x] == b[x]) & (ph.cast(ph.Int(8), x) > 3))
        return f
    check_schedule(make, lambda f: f.vectorize(x, lanes), [w])


@pytest.mark.parametrize("dtype,vectors", [(np.uint8, 1), (np.float32, 2), (np.int64, 4)])
def test_wide_gathers(dtype, vectors):
    lanes = zmm_lanes(dtype, vectors)
    w = lanes * 2 + 3
    src = ph.Buffer((rng.standard_normal(300) * 50).astype(dtype), f"gsrc_{vectors}")
    idx = ph.Buffer(rng.integers(0, 300, w).astype(np.int32), f"gidx_{vectors}")
    x = ph.Var("x")

    def make():
        f = ph.Func(f"wide_gather_{vectors}")
        f[x] = src[idx[x]] + src[ph.clamp(idx[x] - 1, 0, 299)]
        return f
    check_schedule(make, lambda f: f.vectorize(x, lanes), [w])


def _check_program(seed):
    p = program(seed)
    try:
        check_schedule(p.make, lambda f: f.vectorize(f.args()[0], p.lanes), p.sizes)
    except AssertionError as e:
        raise AssertionError(f"wide-vector program of seed {seed} ({np.dtype(p.dtype).name}, "
                             f"{p.lanes} lanes, sizes {p.sizes}) differs: {e}") from e


# a fixed sample: every element type, 1-4 vectors and odd lane counts
@pytest.mark.parametrize("seed", [2, 5, 11, 13, 14, 17, 20])
def test_seeded_wide_programs(seed):
    _check_program(seed)


def _slow_seeds():
    """150 seeds, or PYHALIDE_WIDE_FUZZ of them from PYHALIDE_WIDE_FUZZ_SEED."""
    n = int(os.environ.get("PYHALIDE_WIDE_FUZZ", "150"))
    start = int(os.environ.get("PYHALIDE_WIDE_FUZZ_SEED", "200"))
    return range(start, start + n)


@pytest.mark.slow
def test_many_wide_programs():
    for seed in _slow_seeds():
        _check_program(seed)
