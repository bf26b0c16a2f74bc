"""np.dot, np.matmul, `a @ b` and a.dot(b) of 1-D and 2-D arrays.

A product is a sum over k of elementwise products: one Func over the
result's axes with an update over an RDom of k (array_reduce.fold), in the
result dtype NumPy gives (integers wrap as NumPy's). Float results are a
sequential sum over k, or, where b's k axis is contiguous (`x @ b.T`), 8
interleaved partial sums (_lane_product); NumPy's BLAS sums in an order of
its own, so the two differ by at most 2·n·eps·(|a| @ |b|) for a k-extent n (eps the result
dtype's machine epsilon). Sizes of k that differ raise ValueError at call
time with NumPy's message."""
from __future__ import annotations

import numpy as np

from pyhalide import ir
from pyhalide.halide_target import Partition
from pyhalide.simplify import simplify
from pyhalide.var import RVar, Var

from . import array_calls, ops
from .array_args import numpy_ty, operand_of
from .array_reduce import extent, finish, fold
from .arrayexpr import ArrayExpr, clamped_into, same_size, under_condition
from .call_time_reach import add_loop_gated, add_shape_check
from .values import const_val

# Register tiles (columns per vector, vectors per row, rows), by the running
# target's vector registers: with AVX-512 (32 registers of 8 float64) 4 rows
# x 4 vectors of 8 columns, 16 accumulators; otherwise (AVX2: 16 registers
# of 4 float64) 6 rows x 2 vectors of 4 columns, 12 accumulators, 2 loads of
# b and a broadcast of a beside them (the AVX-512 tile there needs 32
# registers and spills).
TILE_AVX512 = (8, 4, 4)
TILE_NARROW = (4, 2, 6)
J_BLOCK = 256        # columns of a block of b (and of the result's rows)
K_BLOCK = 128        # rows of a block of b: 128 x 256 float64, 256 KiB (L2)
K_LANES = 8          # partial sums of a product whose k axis is contiguous in b

def product(b, x, y, node, what):
    """x @ y (what "matmul") or np.dot(x, y) (what "dot")."""
    cx = b.cx
    ac = b.array_code
    X, Y = operand_of(b, x, node), operand_of(b, y, node)
    if X.ndim == 0 or Y.ndim == 0:
        if what == "matmul":
            raise cx.err(node, f"matmul: Input operand {0 if X.ndim == 0 else 1} does not have "
                               f"enough dimensions", hint="use * to multiply by a scalar")
        return ac.binary("*", X, Y, node)
    if X.ndim > 2 or Y.ndim > 2:
        raise cx.err(node, f"{what} of arrays with more than 2 dimensions is not supported",
                     hint="loop over the leading axes and multiply 2-D slices")
    rt = numpy_ty(b, lambda: np.dot(np.ones((1,), X.ty.dtype), np.ones((1,), Y.ty.dtype)).dtype,
                  node)
    kx, ky = X.shape[-1], Y.shape[0]
    # under an `if`, k is read clamped into both operands where their sizes
    # are checked at call time, so that the check can be gated by the `if`
    # (a branch not taken computes the product whole)
    gated = under_condition(cx) and not (kx is ky or same_size(cx, kx, ky))
    _check_inner(cx, X, Y, what, node, gated)

    panels = None
    if X.ndim == 2 and Y.ndim == 2 and rt.ir().is_float() and ac.phase_run is None \
            and not ac.state.loops and not gated and not cx.typing and not _k_contiguous(Y):
        panels = _panels(b, Y, rt, node)

    def mul(ix, iy):
        cx.cur_node = node
        if gated:
            ix = list(ix[:-1]) + [clamped_into(cx, ix[-1], kx)]
            iy = [clamped_into(cx, iy[0], ky)] + list(iy[1:])
        if panels is not None:
            k, j = iy
            w = ir.index(panel_width())
            y = panels.elem([ir.Div(j, w), k, ir.Mod(j, w)])
        else:
            y = ops.cast_to(cx, Y.elem(iy), rt)
        return ops.binary(cx, "*", ops.cast_to(cx, X.elem(ix), rt), y)

    if Y.ndim == 2 and rt.ir().is_float() and ac.phase_run is None and not ac.state.loops \
            and _k_contiguous(Y):
        return _lane_product(b, X, Y, rt, mul, node, what)
    if X.ndim == 1 and Y.ndim == 1:
        terms = ArrayExpr([kx], rt, lambda i: mul([i[0]], [i[0]]), node)
        axis = 0
    elif X.ndim == 2 and Y.ndim == 2:
        terms = ArrayExpr([X.shape[0], kx, Y.shape[1]], rt,
                          lambda i: mul([i[0], i[1]], [i[1], i[2]]), node)
        axis = 1
    elif X.ndim == 2:
        terms = ArrayExpr([X.shape[0], kx], rt, lambda i: mul([i[0], i[1]], [i[1]]), node)
        axis = 1
    else:
        terms = ArrayExpr([ky, Y.shape[1]], rt, lambda i: mul([i[0]], [i[0], i[1]]), node)
        axis = 0
    out = fold(ac, terms, (axis,), rt, "+", 0, node, what)
    if X.ndim == 2 and Y.ndim == 2 and ac.phase_run is None:
        f = out.view[0].func
        if panels is not None:
            f.matmul_panels = panels.view[0].func
        _k_outside_j(f)
    return finish(ac, out, (axis,), terms.ndim, False, node)


def _k_outside_j(f):
    """The default loop order of a 2-D product's update: rows, then k, then
    the columns innermost (the i-k-j order: b and the result are read along
    their rows, not down their columns). The sum over k stays in order.
    A product inside a loop has the loop's dimensions too: it keeps the
    default order."""
    if len(f.args()) != 2:
        return
    j, i = f.args()
    u = f.update(0)
    k = next(d.var for d in u.definition().schedule.dims if d.is_rvar)
    u.reorder(j, k, i)
    order = [d.var for d in u.definition().schedule.dims]

    def hint(f):
        """The default schedule's blocking (when no schedule touched the
        update): blocks of J_BLOCK columns (outermost) and K_BLOCK terms of
        k, so that the block of b read by every row stays in cache; inside
        them register tiles (register_tile: rows x vectors of columns, both
        unrolled) around the serial loop over the block's terms:
        lowering/promote_tile_accumulators.py keeps the tile in registers
        across that loop (rows + vectors loads per rows x vectors vector
        products), each result vector loaded and stored once per block.
        The last k block's loop runs its remaining terms
        (lowering/trim_loop_guard.py). b is read from its panels (_panels),
        copied per block of columns and k block (place_panels). Each
        element still adds its terms in k order (the same result)."""
        d = f.update(0).definition().schedule
        if d.splits or [x.var for x in d.dims] != order or any(x.kind != "serial" for x in d.dims):
            return False
        blocked_product(f.update(0), j, i, k)
        place_panels(f, RVar(k + "$o"), True)
        return False
    f.default_hint = hint


def blocked_product(u, j, i, k):
    """The blocked loop order of the product's update stage `u` (result
    columns Var j, rows Var i, RVar name k); returns the Var of the blocks
    of columns (outermost: what a schedule may run in parallel). The new
    loops' names carry a `$`, so no argument can share them. The panels of
    b the product reads (_panels) are placed in its k blocks unless a
    schedule placed them. The blocks of columns and of k are never
    partitioned: a copy of them for full blocks would repeat every register
    tile and the panels' production, where the tiles' own loops partition
    the same guards (a test per tile of 6 x 8 results and 128 terms)."""
    jn, iname = j.name(), i.name()
    jo, ji, jw = Var(jn + "$o"), Var(jn + "$i"), Var(jn + "$w")
    ju, jv = Var(jn + "$u"), Var(jn + "$v")
    io, ii = Var(iname + "$o"), Var(iname + "$i")
    ko, kb = RVar(k + "$o"), RVar(k + "$b")
    lanes, vectors, rows = register_tile()
    u.split(j, jo, ji, J_BLOCK).split(ji, ji, jw, lanes * vectors) \
        .split(jw, ju, jv, lanes).split(k, ko, kb, K_BLOCK).split(i, io, ii, rows)
    u.reorder(jv, ju, ii, kb, ji, io, ko, jo).vectorize(jv).unroll(ju).unroll(ii)
    u.partition(jo, Partition.Never).partition(ko, Partition.Never)
    place_panels(u.func(), ko, False)
    return jo


def place_panels(f, ko, default):
    """The panels of b a product f reads (_panels) computed per block of
    columns and k block (at f's loop ko), their W columns (a constant
    extent, no tail) vectorized. Where not `default` (a schedule calls
    blocked_product), only if no schedule placed them (the default
    schedule has inlined them by then: the product's default hint places
    them again)."""
    p = getattr(f, "matmul_panels", None)
    if p is None or not default and p.function().schedule.compute_level is not None:
        return
    i = p.args()[0]
    p.compute_at(f, ko).bound(i, 0, panel_width()).vectorize(i, register_tile()[0])


def panel_width():
    """Columns of a panel of b (_panels): one register tile's."""
    lanes, vectors, _ = register_tile()
    return lanes * vectors


def _panels(b, Y, rt, node):
    """Y (k x n) copied as panels of W = panel_width() columns, cast to rt:
    an array of shape (ceil(n / W), k, W) whose element (t, k, i) is
    Y[k, t*W + i] (the last panel's columns past n read column n - 1 and
    are never used). A register tile of the product reads its panel's
    k rows one after the other (W contiguous elements each), instead of
    rows of Y a whole row of Y apart (at 1024 or 2048 columns every row of
    a tile's k block falls into the same L1 set). Placed by
    blocked_product (computed per block of columns and k block); the
    product's terms read it at (j / W, k, j % W): after vectorizing, one
    dense load (lowering/ramp_div_mod.py). The values, and so each sum's
    order and result, are those of Y."""
    cx, ac = b.cx, b.array_code
    w = panel_width()
    n = Y.shape[1]
    tiles = ops.binary(cx, "//", ops.binary(cx, "+", n, const_val(w - 1)), const_val(w))

    def elem(i):
        t, k, c = i
        j = clamped_into(cx, ir.Add(ir.Mul(t, ir.index(w)), c), n)
        return ops.cast_to(cx, Y.elem([k, j]), rt)
    arr = ArrayExpr([tiles, Y.shape[0], const_val(w)], rt, elem, node)
    return ac.view_of(ac.materialize(arr, "matmul_panels", node), node)


def register_tile():
    """(columns per vector, vectors per tile row, tile rows) for the running
    target (frontend_ast/targets.py)."""
    from .targets import running_target
    return TILE_AVX512 if "avx512" in running_target().features else TILE_NARROW


def _k_contiguous(Y) -> bool:
    """Whether Y's k axis (its first) is the contiguous one of a C-ordered
    array Y is a view of: `b.T` of a 2-D C-ordered b (`x @ b.T`), whose
    columns the blocked product would read with a gather per vector."""
    if Y.view is None:
        return False
    arr, to_base = Y.view
    if arr.ndim != 2 or getattr(arr, "layout", "C") != "C":
        return False
    k, j = (ir.Variable(ir.INDEX, f"%dot{n}") for n in "kj")
    base = [simplify(e) for e in to_base([k, j])]
    return isinstance(base[1], ir.Variable) and base[1].name == k.name and \
        isinstance(base[0], ir.Variable) and base[0].name == j.name


def _lane_product(b, X, Y, rt, mul, node, what):
    """X @ Y for a Y whose k axis is contiguous (_k_contiguous): element
    (i, j) sums the terms of its n // K_LANES whole chunks of k in K_LANES
    partial sums (lane l adds the terms k = l, l + K_LANES, ... in order),
    then the lanes in order, then the last n % K_LANES terms in order. Each
    lane reads a vector of consecutive k of X's row and of Y's column (a row
    of its base). Another order than the sequential one, within the same
    bound (the module's docstring), as NumPy's BLAS."""
    cx, ac = b.cx, b.array_code
    n = X.shape[-1]
    L = const_val(K_LANES)
    chunks = ops.binary(cx, "//", n, L)
    start = ir.Mul(extent(cx, chunks), ir.index(K_LANES))
    rows = [X.shape[0]] if X.ndim == 2 else []

    def whole(i):
        *ix, c, j, lane = i
        k = ir.Add(ir.Mul(c, ir.index(K_LANES)), lane)
        return mul(ix + [k], [k, j])

    def tail(i):
        *ix, t, j = i
        k = ir.Add(start, t)
        return mul(ix + [k], [k, j])
    axis = len(rows)
    terms = ArrayExpr(rows + [chunks, Y.shape[1], L], rt, whole, node)
    lanes = fold(ac, terms, (axis,), rt, "+", 0, node, what + "_lanes")
    lanes.view[0].func.default_hint = _lanes_inner
    summed = fold(ac, lanes, (lanes.ndim - 1,), rt, "+", 0, node, what + "_chunks")
    rest = ArrayExpr(rows + [ops.binary(cx, "%", n, L), Y.shape[1]], rt, tail, node)
    out = fold(ac, rest, (axis,), rt, "+", 0, node, what + "_rest")
    return ac.binary("+", summed, out, node)


def _lanes_inner(f):
    """The default schedule of _lane_product's lanes (when no schedule
    touched its update): the lanes innermost, one vector. Returns False:
    still computed at root."""
    d = f.update(0).definition().schedule
    if d.splits or any(x.kind != "serial" for x in d.dims):
        return False
    lane = f.args()[0]
    rest = [x.var for x in d.dims if x.var != lane.name()]
    f.update(0).reorder(lane, *rest).vectorize(lane, K_LANES)
    return False


def _check_inner(cx, X, Y, what, node, gated=False):
    """ValueError at call time (NumPy's message) where the k sizes differ;
    `gated`: the reads of k are clamped into both operands, the check made
    only where the enclosing `if`s hold too (call_time_reach.add_shape_check)."""
    kx, ky = X.shape[-1], Y.shape[0]
    if kx is ky or (kx.is_const and ky.is_const and kx.const == ky.const):
        return
    loc = cx.smap.loc(node)
    where = f" ({loc.file}:{loc.line})" if loc is not None else ""
    xs, ys = list(X.shape), list(Y.shape)

    def check(env):
        a, c = kx.static(env), ky.static(env)
        if a == c:
            return
        if what == "matmul":
            raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, "
                             f"with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {c} is "
                             f"different from {a}){where}")
        sx = _shape_text([s.static(env) for s in xs])
        sy = _shape_text([s.static(env) for s in ys])
        raise ValueError(f"shapes {sx} and {sy} not aligned: {a} (dim {len(xs) - 1}) != {c} "
                         f"(dim 0){where}")
    if gated:
        # (the terms run over kx, reading Y clamped, except a 1-D X times a
        # 2-D Y's, which may run over ky: an empty operand read there keeps
        # the call-time check)
        empty = (ky,) if X.ndim == 2 or Y.ndim == 1 else (kx, ky)
        add_shape_check(cx, check, lambda: cx.compare("==", kx, ky), node,
                        "matmul: Input operand 1 has a mismatch in its core dimension 0"
                        if what == "matmul" else "shapes not aligned", empty)
    else:
        add_loop_gated(cx, check)


def _shape_text(sizes):
    return "(" + ",".join(map(str, sizes)) + ("," if len(sizes) == 1 else "") + ")"


def _args(b, node, obj, what):
    if node.keywords:
        k = node.keywords[0]
        raise b.cx.err(k, f"the {k.arg}= argument of {what}() is not supported in compiled code",
                       hint="assign the result instead: out[...] = a @ b" if k.arg == "out"
                       else "")
    want = 1 if obj is not None else 2
    if len(node.args) != want:
        raise b.cx.err(node, f"{what}() takes {want} array argument{'s' if want > 1 else ''}")
    vals = [b.ev(a) for a in node.args]
    return ([obj] if obj is not None else []) + vals


@array_calls.function(np.dot, np.matmul)
def _function(b, fn, node):
    what = "dot" if fn is np.dot else "matmul"
    x, y = _args(b, node, None, what)
    return product(b, x, y, node, what)


@array_calls.method("dot")
def _method(b, obj, name, node):
    x, y = _args(b, node, obj, "dot")
    return product(b, x, y, node, "dot")


def _matmul_hook(b, x, y, node):
    return product(b, x, y, node, "matmul")


array_calls.HOOKS["matmul"] = _matmul_hook
