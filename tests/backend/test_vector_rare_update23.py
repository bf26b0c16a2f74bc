"""A vectorized argmin's lanes (an rfactor intermediate: `acc = min(acc, v);
at = select(v < acc, i, at)` per lane) update under `if (any lane improves)`,
a branch marked rarely taken (select_to_branch with vectors=True): the loop
runs a load, a compare and a mask test per vector instead of a min and a
select per tuple element (suite 1's argmin4d at 64 lanes: 0.55-0.64 ->
0.40-0.48 ms CPU on one thread, alternating processes, cache off). Results
are compared with NumPy's first-occurrence argmin on inputs where the branch
is rare, always taken (decreasing), taken on ties, and with NaN."""
import re

import numpy as np
import pytest

import pyhalide as ph

ROWS, COLS = 24, 128


def _argmin(dtype, lanes):
    """First-occurrence argmin over a 2-D input: rows split into `lanes`
    columns reduced as vector lanes (as suite 1's argmin4d)."""
    a = ph.ImageParam(_type(dtype), 2, "vr_in")
    r = ph.RDom([(0, COLS), (0, ROWS)], "r")
    f = ph.Func("vr_argmin")
    worst = np.finfo(dtype).max if np.dtype(dtype).kind == "f" else np.iinfo(dtype).max
    f[()] = (ph.cast(_type(dtype), float(worst) if np.dtype(dtype).kind == "f" else int(worst)),
             0, 0)
    v = a[r.x, r.y]
    better = v < f[()][0]
    f[()] = (ph.select(better, v, f[()][0]), ph.select(better, r.x, f[()][1]),
             ph.select(better, r.y, f[()][2]))
    u = ph.Var("u")
    rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
    intm = f.update(0).split(r.x, rxo, rxi, lanes).rfactor(rxi, u)
    intm.compute_root()
    intm.update(0).vectorize(u)
    return a, f


def _type(dtype):
    return {np.int8: ph.Int(8), np.int32: ph.Int(32), np.float32: ph.Float(32),
            np.uint16: ph.UInt(16)}[np.dtype(dtype).type]


def _inputs(dtype, rng):
    n = ROWS * COLS
    kinds = {"random": rng.integers(-100, 100, n), "decreasing": -np.arange(n),
             "ties": rng.integers(0, 2, n), "increasing": np.arange(n),
             "constant": np.full(n, 3)}
    out = {}
    for k, v in kinds.items():
        if np.dtype(dtype).kind == "u":
            v = v - v.min()
        out[k] = np.ascontiguousarray(v.reshape(ROWS, COLS).astype(dtype))
    if np.dtype(dtype).kind == "f":
        nan = rng.standard_normal(n).astype(dtype).reshape(ROWS, COLS)
        nan[3, 5] = nan[10, 70] = np.nan
        out["nan"] = nan
    return out


@pytest.mark.parametrize("dtype,lanes", [(np.int8, 64), (np.int32, 16), (np.float32, 32),
                                         (np.uint16, 32)])
def test_vector_argmin_equals_numpy(dtype, lanes):
    """The serial loop's answer is NumPy's first-occurrence argmin (NaN never
    compares smaller, so with NaN it is nanargmin)."""
    a, f = _argmin(dtype, lanes)
    for kind, data in _inputs(dtype, np.random.default_rng(5)).items():
        a.set(ph.Buffer(data))
        got = [np.asarray(b).item() for b in f.realize([])]
        y, x = np.unravel_index(np.nanargmin(data), data.shape)
        assert got == [data[y, x].item(), x, y], kind


def test_the_lanes_update_is_a_rare_vector_branch():
    a, f = _argmin(np.int8, 64)
    a.set(ph.Buffer(_inputs(np.int8, np.random.default_rng(1))["random"]))
    text = ph.Pipeline([f]).lower("llvm")
    any_lane = re.search(r'(%"[^"]+") = call i1 @"llvm\.vector\.reduce\.or\.v64i1"', text)
    assert any_lane, "no test of any lane"
    branch = re.search(r"br i1 " + re.escape(any_lane.group(1)) + r", [^\n]*!prof (![0-9]+)", text)
    assert branch, "the test does not branch with branch weights"
    assert re.search(re.escape(branch.group(1)) + r' = !{ !"branch_weights", i32 1, i32 2000 }',
                     text)
