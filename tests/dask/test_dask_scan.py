"""Scans along the chunked axis on Dask (pyhalide/dask_scan.py): rows per
block, carried by dask.array.cumreduction with the scan's proven operator.
Integer scans (sums, running max, segmented sums, linear recurrences) are
bit-identical to one machine for random chunkings; float scans need
float_reassociation=True; an unproven operator is refused before any graph
is built."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.errors import CompileError
from tests.rfactor.nan_cases import nan_inputs
from tests.rfactor.test_parallel_scan_frontend import argmax_so_far, running_max
from tests.rfactor.test_parallel_scan_nan import running_min_builtin

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from . import kernels as K  # noqa: E402

RNG = np.random.default_rng(22)
N = 61


def _chunkings(n, smallest=1):
    out = [(n,), (smallest,) * (n // smallest) + ((n % smallest,) if n % smallest else ())]
    for _ in range(1):
        cuts = sorted(RNG.choice(np.arange(smallest, n - smallest), size=4, replace=False))
        sizes = np.diff([0] + [int(c) for c in cuts] + [n])
        out.append(tuple(int(s) for s in sizes if s))
    out = [c for c in out if min(c) >= 1]
    return out + [(5, 0, n - 5)]          # an empty block (rechunked away)


def _ints(n, lo=-50, hi=50, dtype=np.int32):
    return RNG.integers(lo, hi, n).astype(dtype)


CASES = [
    (K.running_sum, lambda: (_ints(N),), 1),
    (K.running_max, lambda: (_ints(N),), 2),      # its value before reads a[0]: see below
    (K.segmented_sum, lambda: (_ints(N), RNG.random(N) < 0.2), 1),
    (K.recurrence, lambda: (_ints(N, -2, 3), _ints(N)), 1),
    # out[i] = k reads the scan (best, k) at i - 1: one element of overlap
    (K.argmax_so_far, lambda: (_ints(N, 0, 5),), 1),
    # out[i] += out[i - 1] from 1: the value before the scan is out[0], carried
    (K.prefix, lambda: (_ints(N, dtype=np.int64),), 1),
]


@pytest.mark.parametrize("fn, inputs, smallest", CASES, ids=[c[0].__name__ for c in CASES])
def test_integer_scans_equal_one_machine(fn, inputs, smallest):
    args = inputs()
    want = fn(*args)
    for k, chunks in enumerate(_chunkings(N, smallest)):
        xs = [da.from_array(a, chunks=(chunks,)) for a in args]
        scheduler = ("synchronous", "threads")[k % 2]
        got = fn.dask(*xs).compute(scheduler=scheduler)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want, err_msg=f"{chunks}, {scheduler}")


def test_the_value_before_the_scan_read_outside_the_first_block_is_an_error():
    # best = x[0] with the loop from 1: the block holding point 1 computes it from x[0]
    a = _ints(10)
    with pytest.raises(ValueError, match="outside its block"):
        K.running_max.dask(da.from_array(a, chunks=1)).compute(scheduler="synchronous")


def test_float_scans_need_the_opt_in():
    a = RNG.random(N)
    x = da.from_array(a, chunks=7)
    with pytest.raises(CompileError, match="float_reassociation=True"):
        K.float_cumsum.dask(x)
    got = K.float_cumsum.dask(x, float_reassociation=True).compute(scheduler="synchronous")
    np.testing.assert_allclose(got, K.float_cumsum(a), rtol=1e-12)
    one = K.float_cumsum.dask(da.from_array(a, chunks=N), float_reassociation=True)
    np.testing.assert_array_equal(one.compute(scheduler="synchronous"), K.float_cumsum(a))


def test_unproven_scan_is_refused_before_any_graph():
    with pytest.raises(CompileError, match="cannot be split into blocks: its operator is not "
                                           "provably associative"):
        K.unproven_scan.dask(da.from_array(_ints(N), chunks=7))


def test_empty_and_one_element_inputs():
    for n in (0, 1):
        a = _ints(n)
        got = K.running_sum.dask(da.from_array(a, chunks=1 if n else 0))
        np.testing.assert_array_equal(got.compute(scheduler="synchronous"), K.running_sum(a))


@pytest.mark.parametrize("fn", [running_max, argmax_so_far], ids=lambda f: f.__name__)
def test_float_compare_and_copy_scans_with_nan_and_signed_zeros(fn):
    # rfactor_nan's rules: a block's states start from a right identity, a NaN
    # start is kept; the result equals Python bit for bit
    p = ph.pipeline(fn)
    for case, a in enumerate(nan_inputs(60)):
        want = fn(a)
        chunks = (7, 1, 30)[case % 3]
        got = p.dask(da.from_array(a, chunks=chunks), float_reassociation=True)
        got = got.compute(scheduler="synchronous")
        assert np.array_equal(want, got, equal_nan=True), (case, chunks)
        assert np.array_equal(np.signbit(want), np.signbit(got)), (case, chunks)


def test_order_dependent_nan_scan_is_refused_on_dask():
    p = ph.pipeline(running_min_builtin)
    with pytest.raises(CompileError, match="NaN values"):
        p.dask(da.from_array(np.ones(8), chunks=3), float_reassociation=True)


def _func_scan(kind):
    a = ph.ImageParam(ph.Int(32), 1, "a")
    x, f = ph.Var("x"), ph.Func("f")
    r = ph.RDom([(1, a.width() - 1)], "r")
    if kind == "cumsum":
        f[x] = a[x]
        f[r.x] = f[r.x - 1] + f[r.x]
    elif kind == "recurrence":
        f[x] = a[x]
        f[r.x] = (a[r.x] % 3 - 1) * f[r.x - 1] + a[r.x]
    else:
        f[x] = ph.cast(ph.Float(64), a[x])
        f[r.x] = f[r.x - 1] + f[r.x]
    return ph.Pipeline([f]), a


@pytest.mark.parametrize("kind", ["cumsum", "recurrence", "float"])
def test_func_api_scans(kind):
    p, a = _func_scan(kind)
    arr = _ints(N)
    a.set(arr)
    want = np.asarray(p.realize([N]))
    reassociate = kind == "float"
    if reassociate:
        with pytest.raises(CompileError, match="float_reassociation=True"):
            p.dask({a: da.from_array(arr, chunks=7)})
    for chunks in _chunkings(N):
        got = p.dask({a: da.from_array(arr, chunks=(chunks,))}, float_reassociation=reassociate)
        got = got.compute(scheduler="synchronous")
        assert got.dtype == want.dtype
        if reassociate and len(chunks) > 1:
            np.testing.assert_allclose(got, want, rtol=1e-12)
        else:
            np.testing.assert_array_equal(got, want, err_msg=str(chunks))
