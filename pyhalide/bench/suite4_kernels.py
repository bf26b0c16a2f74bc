"""Suite 4's kernels: each written once as NumPy code (run by NumPy as it
is, and by pyhalide under @pipeline), with the same computation as loops
for Numba (serial and `prange`), and the parallel/vectorized schedule of
the pipeline as a schedule function over `p.funcs` names.

The NumPy functions are plain module-level functions: @pipeline compiles
their source. Their arrays are 2-D, `a[y, x]`; in a schedule the Func of
`a` is `f(x, y)` (x first, the stride-1 axis)."""
from __future__ import annotations

import numpy as np

import pyhalide as ph
from pyhalide.frontend_ast.array_dot import blocked_product

# ---- NumPy code ----------------------------------------------------------------------------


def chain_ops(a, b):
    """Operators only: 9 operations, 2 named intermediates, each read by one
    expression (so fused: no buffer of their own)."""
    c = a * 1.5 - b
    d = c * c + a * b
    out = (d - 0.5) * d + b
    return out


def chain(a, b):
    """Arithmetic, sqrt, abs, minimum/maximum and where."""
    d = a * 1.5 - b
    m = np.sqrt(d * d + 1.0)
    c = np.minimum(np.maximum(m, 1.25), 2.0)
    out = np.where(a > b, c, np.abs(d))
    return out


def chain_transc(a, b):
    """exp, log and tanh."""
    e = np.exp(-a * a)
    out = np.tanh(b - 0.5) * e + np.log(1.0 + b * b)
    return out


def laplace(u):
    """The 5-point Laplacian of the interior."""
    out = u[1:-1, 1:-1] * -4.0 + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
    return out


def harris(img):
    """Harris corner response: central differences, 3x3 box sums of the
    gradient products (separable), det - 0.04 trace^2."""
    ix = (img[1:-1, 2:] - img[1:-1, :-2]) * 0.5
    iy = (img[2:, 1:-1] - img[:-2, 1:-1]) * 0.5
    ixx = ix * ix
    iyy = iy * iy
    ixy = ix * iy
    txx = ixx[:, :-2] + ixx[:, 1:-1] + ixx[:, 2:]
    tyy = iyy[:, :-2] + iyy[:, 1:-1] + iyy[:, 2:]
    txy = ixy[:, :-2] + ixy[:, 1:-1] + ixy[:, 2:]
    sxx = txx[:-2] + txx[1:-1] + txx[2:]
    syy = tyy[:-2] + tyy[1:-1] + tyy[2:]
    sxy = txy[:-2] + txy[1:-1] + txy[2:]
    det = sxx * syy - sxy * sxy
    tr = sxx + syy
    out = det - 0.04 * tr * tr
    return out


def gray_scott(u, v):
    """One explicit step of the Gray-Scott reaction-diffusion system on the
    interior (Du, Dv, F, k, dt = 0.16, 0.08, 0.035, 0.065, 1)."""
    uc = u[1:-1, 1:-1]
    vc = v[1:-1, 1:-1]
    lu = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * uc
    lv = v[:-2, 1:-1] + v[2:, 1:-1] + v[1:-1, :-2] + v[1:-1, 2:] - 4.0 * vc
    uvv = uc * vc * vc
    un = uc + (0.16 * lu - uvv + 0.035 * (1.0 - uc))
    vn = vc + (0.08 * lv + uvv - (0.035 + 0.065) * vc)
    return un, vn


def sum_axis0(a):
    s = a.sum(axis=0)
    return s


def sum_axis1(a):
    s = a.sum(axis=1)
    return s


def amax(a):
    m = a.max()
    return m


def argmin(a):
    i = a.argmin()
    return i


def matmul(a, b):
    c = a @ b
    return c


NUMPY = {f.__name__: f for f in (chain_ops, chain, chain_transc, laplace, harris, gray_scott,
                                 sum_axis0, sum_axis1, amax, argmin, matmul)}

# ---- schedules (parallel and vectorized; the reductions' rows or blocks in parallel) -------
LANES = 8            # float64: two AVX2 vectors
ROWS = 16            # rows per parallel task of the stencils


def _rows(f, lanes=LANES):
    """f(x, y): rows in parallel, x vectorized."""
    x, y = f.args()
    f.vectorize(x, lanes).parallel(y)
    return f


def _strips(f, rows=ROWS, lanes=LANES):
    """f(x, y): strips of `rows` rows in parallel, x vectorized; returns the
    strip loop (for compute_at)."""
    x, y = f.args()
    yo, yi = ph.Var("yo"), ph.Var("yi")
    f.split(y, yo, yi, rows).parallel(yo).vectorize(x, lanes)
    return yo


def sched_elementwise(p):
    """The output in parallel rows, vectorized, every named intermediate
    inlined into it (the default keeps one read by two expressions, such as
    `d` of chain, at root)."""
    for name in p.funcs:
        if name != "out":
            p.funcs[name].compute_inline()
    _rows(p.funcs["out"])


def sched_laplace(p):
    _rows(p.funcs["out"])


def sched_harris(p):
    """Strips of rows in parallel: the gradients and the horizontal box sums
    computed per strip (with their 2-row halo), vectorized; the gradient
    products inlined into the box sums, the vertical sums into the output."""
    out = p.funcs["out"]
    yo = _strips(out)
    for name in ("ix", "iy", "txx", "tyy", "txy"):
        f = p.funcs[name]
        f.compute_at(out, yo).vectorize(f.args()[0], LANES)
    for name in ("ixx", "iyy", "ixy", "sxx", "syy", "sxy", "det", "tr"):
        p.funcs[name].compute_inline()


def sched_gray_scott(p):
    """Both outputs in parallel rows, vectorized; u*v*v computed per row of
    each (it is read by both)."""
    for name in ("un", "vn"):
        _rows(p.funcs[name])
    p.funcs["uvv"].compute_inline()


def _own(p, name):
    """The Func named `name` by its own name: `name`, or `name$<n>` when the
    process already made a Func of that name (a reduction's helper Funcs
    have no Python name)."""
    keys = [k for k in p.funcs if k == name or (k.startswith(name + "$") and k[len(name) + 1:].isdigit())]
    return p.funcs[keys[0]]


SUM_COLUMNS = 1024   # columns per parallel task of sum_axis0 (8 KiB of a row)
ROWS_AT_ONCE = 4     # rows sum_axis0 adds per pass over a block's columns


def sched_sum_axis0(p):
    """sum(x) = 0.0, then += a(x, y) over y (the Func of a.sum(axis=0); `s`
    is its copy): blocks of SUM_COLUMNS columns in parallel; in a block, 4 rows
    at a time are added to each vector of 8 columns (kept in a register
    over the 4), so every column is still summed row after row, NumPy's
    order. Measured against blocks of 256 columns one row at a time (the
    schedule before session 18): each task then reads 2 KiB runs 16 KiB
    apart, and one row per pass stores the sums back after every add."""
    f = _own(p, "sum")
    if not f.function().updates:
        return          # one row: `sum` is +0.0 plus it, no update
    (x,) = f.args()
    (ry,) = _rvars(f)
    xo, xi, xv = ph.Var("xo"), ph.Var("xi"), ph.Var("xv")
    ryo, ryi = ph.RVar("ryo"), ph.RVar("ryi")
    upd = f.update(0)
    upd.split(x, xo, xi, SUM_COLUMNS).split(xi, xi, xv, LANES).split(ry, ryo, ryi, ROWS_AT_ONCE)
    upd.reorder(xv, ryi, xi, ryo, xo).vectorize(xv).unroll(ryi).parallel(xo)


def sched_sum_axis0_rfactor(p, strip=256):
    """A reassociating schedule of a.sum(axis=0) (not NumPy's order: within
    a tolerance): rfactor over strips of `strip` rows, each strip's column
    sums in parallel (an intermediate row per strip), then the strips' rows
    added in order, vectorized.

    The intermediate's update must be reordered: rfactor puts the strip Var
    u where the strip RVar was, inside the column loop x (Halide 21 gives
    the same loop nest), so `.update().parallel(u)` alone runs a parallel
    loop of 8 tasks once per column (2048 launches, one scalar column each:
    30-50x slower, in Halide as in pyhalide). reorder(x, ryi, u) makes each
    task sum its strip row after row, x vectorized."""
    f = _own(p, "sum")
    if not f.function().updates:
        return          # one row: no update to factor
    (x,) = f.args()
    (ry,) = _rvars(f)
    u = ph.Var("u")
    ryo, ryi = ph.RVar("ryo"), ph.RVar("ryi")
    intm = f.update(0).split(ry, ryo, ryi, strip).rfactor(ryo, u)
    intm.compute_root().vectorize(x, LANES)
    intm.update(0).reorder(x, ryi, u).vectorize(x, LANES).parallel(u)
    f.update(0).vectorize(x, LANES)


def _rvars(f, stage=0):
    return [rv.name for rv in f.function().updates[stage].schedule.rvars]


GROUPS_PER_TASK = 32     # groups of 8 rows per parallel task of sum_axis1


def sched_sum_axis1(p):
    """s(y) = sum over x of a(x, y) in NumPy's pairwise order
    (frontend_ast/sum_order.py, docs/numpy_sum_order.md): `sum`'s last update
    adds each row's pairwise sum; tasks of GROUPS_PER_TASK blocks of 8 rows
    in parallel, each block computed as the default schedule computes it
    serially: the leaf sums (sum_tree) per block, slot by slot, its combine
    vectorized across the 8 rows; each slot's 8 accumulators of the 8 rows
    (sum_lanes: 8 vectors of a constant extent, kept in registers over the
    slot's chunks). A task's blocks are contiguous rows, so the next-block
    prefetch (lowering/row_prefetch.py) reads the task's own next block and
    only a task's first block starts cold (a task per block: 2048 rows in
    ~60 chunks of the parallel runtime, each starting cold)."""
    f = _own(p, "sum")
    if not any(k.startswith("sum_lanes") for k in p.funcs):
        return          # rows of one element (or none): no pairwise sum
    (y,) = f.args()
    yo, yi, yt, yg = ph.Var("yo"), ph.Var("yi"), ph.Var("yt"), ph.Var("yg")
    u = f.update(len(f.function().updates) - 1).split(y, yo, yi, 8)
    u.split(yo, yt, yg, GROUPS_PER_TASK).parallel(yt)
    tree, lanes = _own(p, "sum_tree"), _own(p, "sum_lanes")
    s, c, row = tree.args()
    tree.bound_extent(row, 8).reorder(row, s, c).vectorize(row).compute_at(f, yg)
    j, lrow, ls, lc = lanes.args()
    lanes.bound_extent(lrow, 8).bound(j, 0, 8).compute_at(tree, s)
    lanes.reorder(j, lrow, ls, lc).vectorize(j)
    (rx,) = _rvars(lanes)
    lanes.update(0).reorder(j, lrow, rx, ls, lc).vectorize(j).unroll(lrow)


def _blocks_in_parallel(p, name):
    """A float reduction of a whole array (frontend_ast/reduce_blocks.py):
    `name_lanes(l, b)` and `name_tail(t, b)` hold 16 lanes (and the last
    columns' lanes) of 8 blocks of rows, `name` the greatest of their states; the blocks in parallel, each one's lanes one
    vector as in the default (the same result as serially: the greatest
    element of a total order, NumPy's NaN and tie rules included)."""
    u = _own(p, name + "_lanes").update(0)
    rv = [d.var for d in u.definition().schedule.dims if d.is_rvar]
    u.reorder("l", *rv, "b").vectorize("l", 16).parallel("b")
    _own(p, name + "_tail").update(0).parallel("b")


def sched_amax(p):
    _blocks_in_parallel(p, "max")


def sched_argmin(p):
    _blocks_in_parallel(p, "argmin")


def sched_matmul(p):
    """c(x, y) = sum over r of a(r, y) * b(x, r): the default's blocked
    order (frontend_ast/array_dot.py: blocks of 256 columns and 128 terms,
    register tiles by the target (array_dot.register_tile); every element still
    adds its terms in r order), its blocks of columns in parallel."""
    c = p.funcs["c"]
    x, y = c.args()
    (r,) = _rvars(c)
    c.parallel(y)
    u = c.update(0)
    u.parallel(blocked_product(u, x, y, r))


SCHEDULES = {"chain_ops": sched_elementwise, "chain": sched_elementwise,
             "chain_transc": sched_elementwise, "laplace": sched_laplace,
             "harris": sched_harris, "gray_scott": sched_gray_scott,
             "sum_axis0": sched_sum_axis0, "sum_axis1": sched_sum_axis1,
             "amax": sched_amax, "argmin": sched_argmin, "matmul": sched_matmul}
RFACTOR_SCHEDULES = {"sum_axis0": sched_sum_axis0_rfactor}
