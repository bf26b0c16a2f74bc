"""A float reduction of every axis to a scalar (a.max(), a.argmin(),
np.min(a)) in vector lanes, with the result of the serial loop
(array_reduce uses it for float min/max/argmin/argmax of every axis; the
integer ones stay one update, which LLVM vectorizes and rfactor splits).

The serial loop visits the elements in C order and returns, for min/max,
the first NaN if there is one, else the last element that compares equal
to the extreme (`select(acc > x or acc is NaN, acc, x)`: among ±0 ties
the later one), and for argmin/argmax the position of the first NaN, else
the first position of the extreme. Both are the greatest element of a
total order on (value, position) pairs (`_wins`): a NaN beats a number,
the earlier of two NaNs wins, a more extreme number wins, and a tie goes
to the later position (min/max) or the earlier one (argmin/argmax). The
greatest element of a set does not depend on the order in which it is
searched, so the lanes below give the serial result bit for bit (the
value of min/max is an element of the array, its NaN payload and zero
sign included).

The Funcs (state: value and flat C-order position, int64, int32 in the
lanes and the tail where the elements are read by flat position; argmin's
tuple is (position, value), min/max's (value, position)):
  name_lanes(l, b)  LANES lanes and BLOCKS blocks: lane l of block b takes
                    the columns l, l + LANES, ... of the last axis (its
                    W // LANES whole chunks); its position is that of the
                    chunk's lane 0 (name adds l: a vector of lanes stores
                    one broadcast position);
  name_tail(t, b)   lane t of block b takes the column
                    (W // LANES) * LANES + t (the W % LANES after them);
                    each lane visits its elements in C order, so the serial
                    loop's own rule is exact there; block b covers the rows
                    [b*R, (b+1)*R) of the first axis (R = ceil(rows /
                    BLOCKS); one block for a 1-D array);
  name              the greatest of the lanes' states (by the full rule).
Where the operand reads C-contiguous arguments at its own indices
(flat_reads.py), its elements are taken in C order as rows of count/BLOCKS
elements (rounded up to a multiple of the step, LANES or 2 * LANES
below; one row of all of them when fewer), read by flat position: the lanes stream over the
memory whatever the last axis's width. The last row ends at the last
element (it starts at count - per, overlapping the row before it where the
count is no multiple of the row length): every chunk lies inside the
array with no clamp per chunk, and an element visited twice leaves the
greatest unchanged. The lanes take two chunks a step there: the greater
of the two by the serial rule, then the state's update (the pair's
compare is off the state's chain: in cache, 704 x 704, amax 0.090 ->
0.069 ms, argmin 0.107 -> 0.090 ms CPU).
The default schedule vectorizes name_lanes' update across l (one vector
of states per block, held in registers; b outermost) and unrolls
name_tail's blocks innermost (independent chains). A schedule may run b in
parallel instead (name_lanes.update(0) and name_tail.update(0)
.parallel("b"); "b_" where an argument is named b): the result is the
same (the updates' RVars keep their order: a reorder is refused)."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np

from pyhalide import ir
from pyhalide.buffer import Param
from pyhalide.expr import Expr
from pyhalide.var import RDom

from . import ops
from . import types as T
from .arrayexpr import ArrayExpr, element_node, size_is
from .context import StaticParam
from .flat_reads import FlatReader
from .numpy_zero_ties import numpy_choice
from .values import Arr

BLOCKS = 8
LANES = 16
POS = ir.Int(64)
INTP = T.np_ty(np.intp)
_counts = itertools.count()     # names of the element-count parameters


def _wins(x, px, v, pv, is_min, last, ordered):
    """Whether (x, px) is greater than (v, pv) in the order of the module
    docstring (IR nodes; px, pv int64 positions). `ordered`: px > pv is
    known (the serial loop's own rule, without position compares)."""
    nan_x, nan_v = ops.is_nan(x), ops.is_nan(v)
    beats = ir.LT(x, v) if is_min else ir.GT(x, v)
    if ordered:
        if last:            # not (v beats x), and v is no NaN: NaN x wins too
            return ir.And(ir.Not(ir.LT(v, x) if is_min else ir.GT(v, x)), ir.Not(nan_v))
        # x beats v, or x is NaN and v not: v is no NaN and not (x ties or
        # loses to v) (the negated compare is true for a NaN x)
        return ir.And(ir.Not(ir.GE(x, v) if is_min else ir.LE(x, v)), ir.Not(nan_v))
    tie = ir.GT(px, pv) if last else ir.LT(px, pv)
    number = ir.And(ir.Not(nan_v), ir.Or(beats, ir.And(ir.EQ(x, v), tie)))
    return ir.Select(nan_x, ir.Or(ir.Not(nan_v), ir.LT(px, pv)), number)


def blocked(ac, operand: ArrayExpr, ident, is_min, arg, name, node):
    """min/max (arg=False: the greatest element's value, ties to the later
    position) or argmin/argmax (arg=True: its flat position, ties to the
    earlier one) of every axis of `operand` (ndim >= 1, not empty, float);
    `ident` the IR constant no element loses to (±inf)."""
    cx = ac.cx
    cx.cur_node = node
    loc = cx.smap.loc(node)
    nd = nd0 = operand.ndim
    vty = operand.ty
    last = not arg
    sizes = _call_time_sizes(cx, operand)
    by_address = _flat_reader(cx, operand, vty)
    # read by flat position, the lanes take two chunks a step (module docstring)
    paired = by_address is not None
    step = 2 * LANES if paired else LANES
    if by_address is not None:
        # all the elements in C order (a dense block of memory) as rows of
        # `per` elements (a multiple of step), at most BLOCKS of them: a
        # block a row; positions past the count compare as losers
        count, per, nrows = _flat_rows(cx, operand, step)
        sizes, nd = [nrows, per], 2
    width = Expr.wrap(sizes[nd - 1])
    full, tail = width // step, width % step
    # the lanes' and the tail's positions: int32 where the elements are
    # read by flat position (_flat_rows refuses 2**31 elements or more):
    # one vector of positions per vector of 16 lanes, not two of int64
    lane_pos = ir.Int(32) if by_address is not None else POS
    init = [ident, ir.Const(lane_pos, -1 if last else 0)]

    def pack(value, pos):
        return [pos, value] if arg else [value, pos]

    def state(ref):
        parts = [ref[0].node, ref[1].node]
        return (parts[1], parts[0]) if arg else (parts[0], parts[1])

    part = ac.new_func(name + "_lanes")
    rest = ac.new_func(name + "_tail")
    lane, b = ac.emitter.new_var("l"), ac.emitter.new_var("b")
    for g in (part, rest):
        ac.emitter.define(g, (lane, b), tuple(pack(*init)), [], None, loc, pure=True,
                          label=name)

    blocks = BLOCKS if nd > 1 else 1

    def rows_rdom(extent, suffix):
        """An RDom of the columns' `extent` (innermost), then the axes nd-2 ..
        0 with axis 0 cut into `blocks` blocks (block b's rows): returns it,
        the index Exprs of the axes but the last, the same with axis 0
        clamped into the array for bounds inference (the predicates keep it
        there), and the predicates."""
        dims = [(0, extent)] + [(0, Expr.wrap(sizes[k])) for k in reversed(range(1, nd - 1))]
        if nd == 1:
            return RDom(dims, "r_" + part.name() + suffix), [], [], []
        rows = Expr.wrap(sizes[0])
        per = (rows + (blocks - 1)) // blocks
        r = RDom(dims + [(0, per)], "r_" + part.name() + suffix)
        row = b * per + r[nd - 1]
        idx = [row] + [r[nd - 1 - k] for k in range(1, nd - 1)]
        read = [ir.Max(ir.Min(row.node, ir.Sub(sizes[0], ir.index(1))), ir.index(0))] + \
            [i.node for i in idx[1:]]
        return r, idx, read, [(row < rows).node]

    def flat(idx, col):
        """The flat C-order position (int64) of (idx..., col)."""
        pos = None
        for k, i in enumerate(idx):
            i = ops.cast(POS, i.node)
            pos = i if pos is None else ir.Add(ir.Mul(pos, ops.cast(POS, sizes[k])), i)
        c = ops.cast(POS, col.node)
        return c if pos is None else ir.Add(ir.Mul(pos, ops.cast(POS, sizes[nd - 1])), c)

    def update(g, key, r, idx, read, col, preds, col_read=None):
        """g[key] takes the element at (idx..., col) by the serial loop's own
        rule (each lane visits its elements in C order). In name_lanes the
        stored position leaves out the lane (the merge below adds it): a
        vector of lanes then stores one broadcast chunk position where an
        element wins, no vector of positions computed per chunk."""
        cx.cur_node = node
        at = col if col_read is None else col_read
        chunked = g is part
        pos = flat(idx, col - lane if chunked else col)
        if by_address is not None:
            at = _flat_position(idx[0] * Expr.wrap(per), r, at, chunked, ir.Sub(count, per), lane,
                                step)
            x = by_address.element(at.node, by_address.sizes)
            pos = ops.cast(lane_pos, (at - lane if chunked else at).node)
            if chunked and paired:
                x, pos = _paired(by_address, at, x, pos, lane, lane_pos, is_min, last)
        else:
            x = element_node(cx, operand.elem(read + [at.node]), vty)
        v, pv = state(g[key])
        better = _wins(x, pos, v, pv, is_min, last, True)
        vals = pack(ir.Select(better, x, v), ir.Select(better, pos, pv))
        ac.defs.mark_emitted(vals, g)
        loops = [(SimpleNamespace(name=f"axis{k}"), r[nd - 1 - k]) for k in range(nd)]
        ac.emitter.define(g, key, vals, preds, r, loc, label=name, loops=loops)

    # the whole chunks: lane l of chunk c at column c*LANES + l
    r, idx, read, preds = rows_rdom(full, "")
    update(part, (lane, b), r, idx, read, r[0] * LANES + lane, preds)
    part.default_hint = lambda f: _vectorized(f, lane.name(), b.name())
    # the last W % LANES columns: column full*LANES + t in lane t of name_tail
    r, idx, read, preds = rows_rdom(tail, "_tail")
    # (its position unclamped; the read clamped into the row, where it is
    # already: bounds inference bounds t by LANES - 1, not W % LANES - 1)
    col = full * step + r[0]
    update(rest, (r[0], b), r, idx, read, col, preds, Expr.wrap(ir.Min(col.node, (width - 1).node)))
    if blocks > 1:
        rest.default_hint = lambda f: _side_by_side(f, b.name(), blocks)
    # the lanes and the tail read disjoint elements: a Func read only by
    # them (a fused local array: `np.abs(lap).max()`) is inlined into both
    # (specialize._inlinable), not computed at root and read back
    group = (object(), frozenset())
    for g in (part, rest):
        getattr(g, "base", g).sum_part = group
    # the greatest of the lanes' states
    arr = Arr(name, INTP if arg else vty, [], "local", loc)
    f = ac.new_func(name, arr)
    ac.emitter.define(f, (), tuple(pack(ident, ir.Const(POS, -1 if last else 0))), [], None,
                      loc, pure=True, label=name)
    for g, n in ((part, Expr.wrap(ir.index(LANES))), (rest, tail)):
        rb = RDom([(0, n), (0, blocks)], "r_" + f.name() + ("_tail" if g is rest else ""))
        v, pv = state(f[()])
        x, px = state(g[rb.x, rb.y])
        px = ops.cast(POS, px)
        if g is part:       # name_lanes' position of lane 0 of the chunk
            px = ir.Add(px, ops.cast(POS, rb.x.node))
        better = _wins(x, px, v, pv, is_min, last, False)
        vals = pack(ir.Select(better, x, v), ir.Select(better, px, pv))
        ac.defs.mark_emitted(vals, f)
        ac.emitter.define(f, (), vals, [], rb, loc, label=name)
    arr.func = f
    arr.defined = True
    arr.versions.append(f)
    if not arg:     # NumPy's element among ±0 ties (numpy_zero_ties.py)
        return numpy_choice(ac, operand, ac.view_of(arr, node), list(range(nd0)), False, name,
                            node, group)
    return ArrayExpr([], arr.ty, lambda i: ac.read_element(arr, i), node)


def _flat_reader(cx, operand, vty):
    """A FlatReader of every axis of `operand` in C order (flat_reads.py:
    it reads C-contiguous arguments at its own indices), with its sizes, or
    None."""
    run = [k for k in range(operand.ndim) if not size_is(operand.shape[k], 1)]

    def element(probes):
        idx = [probes.get(k, ir.index(0)) for k in range(operand.ndim)]
        return element_node(cx, operand.elem(idx), vty)
    flat = FlatReader.of(cx, operand, run, element)
    if flat is not None:
        flat.sizes = [ops.cast(ir.INDEX, ops.node_of(cx, operand.shape[k])) for k in run]
    return flat


def _call_time_sizes(cx, operand) -> list:
    """The operand's sizes as int32 nodes: a size computed from others (a
    slice's `max(n - min(n, 2), 0)`) as a call-time parameter, so that the
    lanes' definitions, which use the sizes many times, stay small enough
    for the default schedule to inline a local array into them
    (specialize.INLINE_LIMIT)."""
    out = []
    for v in operand.shape:
        node = ops.cast(ir.INDEX, ops.node_of(cx, v))
        if v.static is not None and not isinstance(node, (ir.Const, ir.Variable)):
            p = Param(ir.INDEX, f"__pyhalide_flat{next(_counts)}")
            cx.static_params.append(StaticParam(p, lambda env, f=v.static: int(f(env)),
                                                ir.INDEX))
            node = p.node
        out.append(node)
    return out


def _flat_position(start, r, col, chunked, last_start, lane, step) -> Expr:
    """The flat position a lane reads (rows of _flat_rows): in name_lanes,
    its row's start, moved back to `last_start` = count - per for the last
    row (it then ends at the last element; per <= count wherever a row has
    a whole chunk, so the start stays >= 0), plus its chunk's offset and
    the lane (a dense vector; the start does not move with the chunk, so
    the loop over chunks has no clamp; `step` elements a chunk, or a pair
    of chunks); in name_tail (the last W % step columns), the column."""
    if not chunked:
        return start + col
    first = Expr.wrap(ir.Min(start.node, Expr.wrap(last_start).node))
    return first + r[0] * step + lane


def _paired(by_address, at, x, pos, lane, lane_pos, is_min, last):
    """Chunks in pairs (module docstring): the greater of the element x at
    `at` (position `pos`, the chunk's) and the one a chunk on, by the
    serial rule (the later one is the second), as (element, position)."""
    at1 = at + LANES
    x1 = by_address.element(at1.node, by_address.sizes)
    p1 = ops.cast(lane_pos, (at1 - lane).node)
    second = _wins(x1, p1, x, pos, is_min, last, True)
    return ir.Select(second, x1, x), ir.Select(second, p1, pos)


def _flat_rows(cx, operand, step):
    """(count, per, rows) as int32 call-time parameters (bounds inference
    does not bound a product of sizes): the number of elements of
    `operand`, the row length (count / BLOCKS rounded up to a multiple of
    `step`; all of them where fewer than `step`: then per <= count always)
    and the rows (at most BLOCKS)."""
    fns = [(lambda env, v=v: v.const) if v.is_const else v.static for v in operand.shape]

    def count(env):
        n = 1
        for f in fns:
            n *= int(f(env))
        if n >= 2**31:
            raise ValueError(f"an array of {n} elements is too large for a whole-array "
                             f"reduction here (at most 2**31 - 1)")
        return n

    def per(env):
        n = count(env)
        return n if n < step else -(-n // (BLOCKS * step)) * step

    def rows(env):
        return -(-count(env) // max(per(env), 1))
    out = []
    for fn in (count, per, rows):
        p = Param(ir.INDEX, f"__pyhalide_flat{next(_counts)}")
        cx.static_params.append(StaticParam(p, fn, ir.INDEX))
        out.append(p.node)
    return out


def _vectorized(f, lane, b):
    """The default schedule of name_lanes (its Vars named lane and b): in
    update 0 the lanes innermost, one vector, the blocks outermost (when no
    schedule touched it). Returns False: still computed at root."""
    d = f.update(0).definition().schedule
    if d.splits or any(x.kind != "serial" for x in d.dims):
        return False
    rest = [x.var for x in d.dims if x.var not in (lane, b)]
    f.update(0).reorder(lane, *rest, b).vectorize(lane, LANES)
    return False


def _side_by_side(f, b, blocks):
    """The default schedule of name_tail (its block Var named b): the
    blocks innermost, unrolled (independent chains where the rows are
    short: all of a row is its tail when W < LANES), when no schedule
    touched its update. Returns False: still computed at root."""
    d = f.update(0).definition().schedule
    if d.splits or any(x.kind != "serial" for x in d.dims):
        return False
    rest = [x.var for x in d.dims if x.var != b]
    f.update(0).reorder(b, *rest).unroll(b, blocks)
    return False
