"""NumPy's order of a float sum (np.add.reduce: np.sum, mean, var, std) as
Funcs, so that the default schedule equals NumPy bit for bit.

NumPy (docs/numpy_sum_order.md) starts each result at +0.0 and adds to it,
in the order its iterator visits the operand (axes sorted by memory
stride, adjacent axes merged where the memory allows):
  - when the innermost axis visited is kept, every element is added in
    turn (sequential along the reduced axes);
  - when it is reduced, the reduced axes innermost in memory (flattened)
    are cut into runs, each summed pairwise (PW below), and the run sums
    are added in turn: one run per row of those axes where their memory
    merges and no cast is needed; else the runs are what the iterator's
    buffer holds (pieces of at most 8192 elements: runs_of, a port of its
    buffer setup, computed at call time from the sizes).
PW(x[0:m]) (loops_utils.h.src pairwise_sum): m < 8: -0.0 + x0 + x1 ...;
m <= 128: 8 accumulators r[j] = x[j], r[j] += x[8i+j], then
((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the m % 8 last elements in turn;
else PW(x[:h]) + PW(x[h:]) with h = m//2 rounded down to a multiple of 8.

In chunks of 8 (q = m // 8, r = m % 8) the split gives floor(q/2) chunks
to the left and the rest (with the r extra elements) to the right; a node
is a leaf when 8*q (+ r on the rightmost path) <= 128. The tree is laid on
2**K slots (K bounds the depth): a leaf above the last level keeps the
first slot of its subtree and the others hold -0.0, which x + -0.0 leaves
exact. The Funcs:
  name_leaf(s, c)         a slot's leaf (first chunk, chunks, rightmost?):
                          one update descending the tree, a level per step
  name_lanes(j, s, c, ..) the 8 accumulators of a leaf: an update over its
                          chunks of 8 (what rfactor and schedules act on)
  name_tree(s, c, ..)     the combination and the m % 8 rest (pure
                          arithmetic and an update), then the levels of the
                          tree, in place (an update over slots and levels)
  name(kept)              +0.0, then += each run sum in NumPy's order
(c numbers the runs; `..` are the kept axes and the reduced axes visited
outside the runs)."""
from __future__ import annotations

import itertools

from pyhalide import ir
from pyhalide.buffer import Param
from pyhalide.errors import CompileError
from pyhalide.expr import Expr, binary, cast_node, select
from pyhalide.var import RDom, Var

from . import ops
from .affine_maps import affine_rows
from .arrayexpr import ArrayExpr, element_node, same_size, size_is
from .carried_sums import phase_sum
from .context import StaticParam
from .flat_reads import FlatReader
from .result_order import over_choices, resolve
from .values import Val, node_of
from .whole_views import is_whole_view

LANES = 8            # pairwise_sum's accumulators
BLOCK = 128          # PW_BLOCKSIZE
BUFSIZE = 8192       # NPY_BUFSIZE: the iterator's buffer, in elements

_params = itertools.count()     # names of the call-time parameters



def memory_order(operand: ArrayExpr, layout=None):
    """(axes outermost first in memory, merges): merges[i] says whether axis
    i of that order and the next one (inside it) are one run of memory
    (stride of i == stride of i+1 * size of i+1). `layout` if given, else
    the layout of the array a whole view shows, else a C-contiguous array
    (NumPy's result of an operation); a view of part of an array is taken
    in its strides' order (_part_order), its axes not merging."""
    nd = operand.ndim
    if layout is None and operand.view is None and operand.order is None:
        operand = view_of_new(operand)
    order = resolve(operand.order) if operand.view is None else None
    if layout is None and order is not None:
        layout = (order, (True,) * max(nd - 1, 0))     # NumPy's new array's order
    if layout is None and operand.view is not None:
        arr = operand.view[0]
        perm = _axis_permutation(operand)
        if isinstance(arr, ArrayExpr):      # a view of a new array (view_of_new)
            return _new_view_order(operand)
        if is_whole_view(operand):
            layout = array_layout(arr)
        elif perm is not None:      # a transpose: the array's order, its axes renamed
            order, merges = memory_order(ArrayExpr(arr.shape, arr.ty, None, None),
                                         array_layout(arr))
            return tuple(perm.index(k) for k in order), merges
        else:
            order = _part_order(operand)
            layout = (order, _view_merges(operand, order))
    if layout is None or layout == "C":
        return tuple(range(nd)), (True,) * max(nd - 1, 0)
    if layout == "F":
        return tuple(reversed(range(nd))), (True,) * max(nd - 1, 0)
    perm, merges = layout[:2]       # (a third element: numpy_zero_ties)
    rest = tuple(k for k in range(nd) if k not in perm)     # size-1 axes: anywhere
    return rest + tuple(perm), (True,) * len(rest) + tuple(merges)


def view_of_new(value: ArrayExpr) -> ArrayExpr:
    """value, or where it is NumPy's view of a new array value (np.flip,
    transposes, expand_dims, squeeze, basic indexing of `a * 2`:
    array_shape.derived, array_index.Indexed; an affine index map), that
    view as an ArrayExpr view of the new array, which NumPy lays out in its
    own order (its `order`): the view keeps that array's strides."""
    maps, x = [], value
    while x.view is None:
        if getattr(x, "derived_from", None) is not None:
            x, m = x.derived_from
            maps.append(m)
        elif getattr(x, "injective", False) and getattr(x, "mask_at", True) is None:
            maps.append(lambda idx, x=x: x.pick(idx)[0])    # array_index.Indexed
            x = x.src
        else:
            break
    if not maps or x.view is not None or type(x) is not ArrayExpr or x.ty.is_complex():
        return value

    def to_new(idx):
        for m in maps:
            idx = m(idx)
        return idx
    view = ArrayExpr(value.shape, value.ty, None, value.node, view=(x, to_new))
    return view if affine_rows(view) is not None else value    # (a copy where not affine)


def _new_view_order(value: ArrayExpr):
    """memory_order of a view of a new array: its axes in the array's order
    (_part_order), merging where their strides do (_view_merges)."""
    order = _part_order(value)
    return order, _view_merges(value, order)


def _view_merges(value: ArrayExpr, order) -> tuple:
    """The merges of a view's axes in `order` (outermost first), as NumPy's
    reduction iterator coalesces them (strides not negated): an axis merges
    with the next one inside it of size other than 1 where the outer stride
    is the inner stride times the inner size. Here: both step by the same
    +1 or -1 along array axes adjacent in the array's memory (size-1 axes
    between them), the array merging there, the inner axis whole. Size-1
    axes merge with any; what is not proven does not merge."""
    arr = value.view[0]
    rows = affine_rows(value)
    nd = value.ndim
    if rows is None:
        return (False,) * max(nd - 1, 0)
    base, base_merges = memory_order(ArrayExpr(arr.shape, arr.ty, None, None), array_layout(arr))

    def step(k):
        steps = [(j, row[k]) for j, row in enumerate(rows) if row[k]]
        return steps[0] if len(steps) == 1 else None

    def merges(o, i):
        so, si = step(o), step(i)
        if so is None or si is None or so[1] != si[1] or abs(so[1]) != 1:
            return False
        po, pi = base.index(so[0]), base.index(si[0])
        return po < pi and all(base_merges[po:pi]) and \
            all(size_is(arr.shape[j], 1) for j in base[po + 1:pi]) and \
            same_size(None, value.shape[i], arr.shape[si[0]])
    out = []
    for t, k in enumerate(order[:-1]):
        inner = [i for i in order[t + 1:] if not size_is(value.shape[i], 1)]
        out.append(size_is(value.shape[k], 1) or not inner or merges(k, inner[0]))
    return tuple(out)


def _part_order(value: ArrayExpr) -> tuple:
    """The axes of a view of part of an array, outermost in memory first:
    where each axis steps forwards along one axis of the array (slices,
    integer indices, new axes; backwards too: NumPy orders axes by
    |stride|), the order of those axes in the array's memory (`a[1:]` of a
    Fortran-ordered `a` is Fortran-ordered); else its index order."""
    nd = value.ndim
    arr = value.view[0]
    rows = affine_rows(value)
    if rows is None:
        return tuple(range(nd))
    base, _ = memory_order(ArrayExpr(arr.shape, arr.ty, None, None), array_layout(arr))
    rank, used = [], set()
    for k in range(nd):
        steps = [(j, row[k]) for j, row in enumerate(rows) if row[k]]
        if not steps:
            rank.append(None)           # a new axis (size 1): it does not count
            continue
        if len(steps) > 1 or steps[0][0] in used:
            return tuple(range(nd))
        used.add(steps[0][0])
        rank.append(base.index(steps[0][0]))
    ranked = iter(sorted(r for r in rank if r is not None))
    # new axes keep their places; the others take the array's order
    slots = {r: k for k, r in enumerate(rank) if r is not None}
    return tuple(k if r is None else slots[next(ranked)] for k, r in enumerate(rank))


def array_layout(arr):
    """The memory layout of a named array: an argument's from the call's
    key; an array the function makes, NumPy's order of the value it was
    made from (arraycode.materialize records it), else C order."""
    layout = getattr(arr, "layout", None)
    if layout is not None:
        return layout
    order = resolve(arr.order if isinstance(arr, ArrayExpr) else getattr(arr, "memory_order", None))
    if order is not None:
        return tuple(order), (True,) * max(len(order) - 1, 0)
    return "C"


def _axis_permutation(value: ArrayExpr):
    """perm (view axis k is axis perm[k] of its array, whole) when the view
    is a permutation of its array's axes (a transpose), else None."""
    arr, to_base = value.view
    if arr.ndim != value.ndim:
        return None
    probe = [ir.Variable(ir.INDEX, f"%probe{k}") for k in range(arr.ndim)]
    names = {p.name: k for k, p in enumerate(probe)}
    mapped = to_base(probe)
    if not all(isinstance(m, ir.Variable) and m.name in names for m in mapped):
        return None
    base_of = {names[m.name]: b for b, m in enumerate(mapped)}    # view axis -> array axis
    if len(base_of) != arr.ndim:
        return None
    perm = tuple(base_of[k] for k in range(arr.ndim))
    if not all(value.shape[k] is arr.shape[perm[k]] for k in range(arr.ndim)):
        return None
    return perm


def float_sum(ac, operand: ArrayExpr, axes, acc_ty, node, layout=None,
              name="sum", lanes=LANES) -> ArrayExpr:
    """The sums of operand over `axes` (sorted NumPy axis numbers) in NumPy's
    order, elements of type acc_ty (the operand's elements are cast to it):
    an array of the operand's shape without those axes, stored in a Func
    `name` whose update adds the run sums (its helper Funcs are name_leaf,
    name_lanes, name_tree); `layout` is the operand's memory layout ("C",
    "F" or (axes outermost first, whether they merge)) where it is not the
    one memory_order finds; `lanes`: 4 for a part of a complex sum (NumPy's
    complex pairwise_sum: 4 accumulators per part, blocks of 64 elements,
    (r0+r1)+(r2+r3)). Where the operand's order is chosen when the function
    runs (result_order.OrderChoice), the sum in each order, selected by the
    choice's condition. In phase mode (carried_phases.py), the phases of
    carried_sums.phase_sum."""
    if ac.phase_run is not None:
        return over_choices(
            lambda: phase_sum(ac.phase_run, operand, tuple(axes), acc_ty, node, layout, lanes,
                              memory_order, pairwise_plan),
            lambda c, yes, no: _selected(ac.cx, c.cond, yes, no, node))
    return over_choices(
        lambda: _SumBuilder(ac, operand, tuple(axes), acc_ty, node, layout, name,
                            lanes).build(),
        lambda c, yes, no: _selected(ac.cx, c.cond, yes, no, node))


def _selected(cx, cond, yes: ArrayExpr, no: ArrayExpr, node) -> ArrayExpr:
    """yes's elements where the Val cond holds, else no's."""
    def elem(idx):
        a, b = yes.elem(idx), no.elem(idx)
        cx.cur_node = node
        return ops.select(cx, cond, a, b, lazy=False)
    return ArrayExpr(yes.shape, yes.ty, elem, node)


class _SumBuilder:
    def __init__(self, ac, operand, axes, acc_ty, node, layout, name, lanes=LANES):
        self.ac, self.cx, self.em = ac, ac.cx, ac.emitter
        self.lanes, self.block = lanes, BLOCK * lanes // LANES
        self.a, self.axes, self.ty, self.node = operand, axes, acc_ty, node
        self.loc = self.cx.smap.loc(node)
        self.name = name
        nd = operand.ndim
        order, merges = memory_order(operand, layout)
        # size-1 axes do not count in NumPy's visiting order (they merge
        # with any axis)
        flags = dict(zip(order, merges + (True,)))
        big = [k for k in order if not size_is(operand.shape[k], 1)]
        self.order = big
        self.merges = [all(flags[k] for k in order[order.index(o):order.index(i)])
                       for o, i in zip(big, big[1:])]
        self.kept = [k for k in range(nd) if k not in axes]
        run = []
        for k in reversed(big):
            if k not in axes:
                break
            run.insert(0, k)
        self.run = run            # the reduced axes innermost in memory, outermost first
        self.outer = [k for k in big if k in axes and k not in run]
        self.cast = operand.ty != acc_ty
        self.vars = {k: self.em.new_var(f"i{k}") for k in range(nd)}
        self._flat = None         # flat(): the FlatReader of the run axes, False: none

    # helpers -------------------------------------------------------------------------
    def size(self, k) -> Expr:
        return Expr.wrap(cast_node(ir.INDEX, node_of(self.cx, self.a.shape[k])))

    def func(self, suffix):
        return self.ac.new_func(self.name + suffix)

    def define(self, f, key, values, rdom=None, preds=(), pure=False):
        nodes = [v.node if isinstance(v, Expr) else v for v in values]
        self.ac.defs.mark_emitted(nodes, f)
        self.em.define(f, tuple(key), tuple(nodes), [p.node for p in preds], rdom, self.loc,
                       pure=pure, label=f.name())

    def element(self, at: dict) -> Expr:
        """The operand's element at axis -> index Expr (size-1 axes at 0),
        cast to the sum's type."""
        idx = [at[k].node if k in at else ir.index(0) for k in range(self.a.ndim)]
        self.cx.cur_node = self.node
        v = self.a.elem(idx)
        return Expr.wrap(element_node(self.cx, v, self.ty))

    def flat(self):
        """The FlatReader of the run axes (flat_reads.py: the operand reads
        contiguous arguments, the run axes a dense block of each), or None."""
        if self._flat is None:
            extra_at = {k: self.vars[k] for k in self.kept + self.outer}

            def element(probes):
                at = {**extra_at, **{k: Expr.wrap(p) for k, p in probes.items()}}
                return self.element(at).node
            self._flat = FlatReader.of(self.cx, self.a, self.run, element) or False
        return self._flat or None

    def flat_element(self, pos) -> Expr:
        """The element at flat position `pos` of a row of the run axes, read
        by address (flat())."""
        sizes = [self.size(k).node for k in self.run]
        return Expr.wrap(self.flat().element(_node(pos), sizes))

    def zero(self, negative=False) -> Expr:
        return Expr.wrap(ir.Const(self.ty.ir(), -0.0 if negative else 0.0))

    # the sum --------------------------------------------------------------------------
    def build(self) -> ArrayExpr:
        out = self.func("")
        key = [self.vars[k] for k in reversed(self.kept)]
        if not self.run and not self.outer:
            # only size-1 axes are reduced: +0.0 plus the one element
            at = {k: self.vars[k] for k in self.kept}
            self.define(out, key, [self.zero() + self.element(at)], pure=True)
        else:
            self.define(out, key, [self.zero()], pure=True)
            if self.run and not self.cast and all(self.merges[self.order.index(k)]
                                                  for k in self.run[:-1]):
                self.row_pairwise_update(out, key)
            elif self.run:
                self.pairwise_update(out, key)
            else:
                self.sequential_update(out, key)
        shape = [self.a.shape[k] for k in self.kept]

        def elem(idx):
            args = tuple(Expr.wrap(i) for i in reversed(idx))
            ref = out[args] if args else out[()]
            return Val(ref.node, self.ty)

        return ArrayExpr(shape, self.ty, elem, self.node)

    def sequential_update(self, out, key):
        """out += each element, the reduced axes visited outermost first."""
        red = self.outer
        rdom = RDom([(0, self.size(k)) for k in reversed(red)], self.name + "_r")
        at = {k: self.vars[k] for k in self.kept}
        at.update({k: rdom[i] for i, k in enumerate(reversed(red))})
        self.define(out, key, [Expr.wrap(out[tuple(key)].node) + self.element(at)], rdom)

    def static(self, fn, axes) -> Expr:
        """fn(sizes of `axes`), computed in Python at call time (a Param)."""
        fns = [(lambda env, v=v: v.const) if v.is_const else v.static
               for v in (self.a.shape[k] for k in axes)]
        p = Param(ir.INDEX, f"__pyhalide_sum{next(_params)}")
        self.cx.static_params.append(StaticParam(p, lambda env: fn([f(env) for f in fns]),
                                                 ir.INDEX))
        return Expr.wrap(p.node)

    def pairwise_update(self, out, key):
        a = self
        run_sizes = [a.size(k) for k in a.run]
        red = [k in a.axes for k in a.order]

        def plan(sizes):
            return runs_of(sizes, red, a.merges, a.cast)

        piece = a.static(lambda z: plan(z)[1], a.order)          # B
        slab = a.static(lambda z: plan(z)[0], a.order)           # S
        pieces = a.static(lambda z: -(-plan(z)[0] // plan(z)[1]), a.order)
        runs = a.static(lambda z: plan(z)[2], a.order)
        depth = a.static(lambda z: run_depth(*plan(z)[:2], a.lanes), a.order)
        # binary(): the IR's shift, not Expr's `<<`, whose select on a signed amount's
        # sign (Halide's rule) would hide the bounds; these amounts are never negative
        slots = binary(ir.Shl, Expr.wrap(ir.index(1)), depth)
        c = a.em.new_var("c")
        nth = c % pieces
        start = (c // pieces) * slab + nth * piece      # run c: a piece of a slab
        m = _min(piece, slab - nth * piece)             # its length
        blk = a.leaves(c, m, depth)
        extra = [a.vars[k] for k in reversed(a.kept + a.outer)]   # IR order
        tree = a.tree(blk, c, m, start, run_sizes, extra, slots, depth)
        rdom = RDom([(0, runs)] + [(0, a.size(k)) for k in reversed(a.outer)],
                    a.name + "_r")
        sub = {id(v): rdom[1 + i] for i, v in enumerate(a.vars[k] for k in reversed(a.outer))}
        args = [Expr.wrap(ir.index(0)), rdom[0]] + [sub.get(id(v), v) for v in extra]
        self.define(out, key, [Expr.wrap(out[tuple(key)].node) + tree[tuple(args)]], rdom)

    def row_pairwise_update(self, out, key):
        """The run axes merge in memory and no cast: NumPy sums each row of
        them (m elements) as one pairwise_sum (runs_of gives one run of m).
        Every row has the same split tree, so each slot's leaf is found once
        (name_leaf(s, 0): its first chunk of 8 and chunks), and
        name_lanes(j, s, ..) adds slot s's chunks in order into its 8
        accumulators: an update over the chunks of a leaf (at most 16),
        whose loads are dense in j (vectorized by the default schedule,
        which computes name_lanes per slot of name_tree)."""
        a = self
        # m: a call-time parameter when several axes (bounds inference does
        # not bound a product of sizes) or a size computed in a wider type
        # (a slice a[:n] with a Python int n: the narrowing is not bounded)
        m = a.size(a.run[0]) if len(a.run) == 1 and not _narrowed(a.size(a.run[0]).node) \
            else a.static(_prod, a.run)
        q = m // a.lanes
        depth = a.static(lambda z: split_depth(_prod(z), a.lanes), a.run)
        slots = binary(ir.Shl, Expr.wrap(ir.index(1)), depth)
        extra = [a.vars[k] for k in reversed(a.kept + a.outer)]      # IR order
        extra_at = {k: a.vars[k] for k in a.kept + a.outer}
        j, s, c = a.em.new_var("j"), a.em.new_var("s"), a.em.new_var("c")
        mid = (c,) + tuple(extra)       # c: 0 (1 run), or no run when m == 0
        leaf = a.leaves(c, m, depth)
        # the rightmost leaf's slot, a parameter: bounds inference does not
        # bound a shift
        right = a.static(lambda z: rightmost_slot(_prod(z), a.lanes, a.block), a.run)

        acc = a.func("_lanes")
        row = a.vars[a.kept[-1]] if a.kept else None

        def lkey(jj, ss):
            # name_lanes(j, row, s, c, ..): a row's accumulators next to
            # the next row's (the default schedule computes ROWS rows)
            if row is None:
                return (jj, ss) + mid
            return (jj, row, ss) + tuple(v for v in mid if v is not row)
        a.define(acc, lkey(j, s), [a.zero(True)], pure=True)
        most = a.row_static(lambda z: most_chunks(_prod(z), a.lanes, a.block))
        # each slot s runs over as many chunks as the largest leaf has (its
        # accumulators stay in registers), those past its own adding -0.0
        # (x + -0.0 is x): no condition in the loop; the chunk clamped into
        # the row (it is there)
        r = RDom([(0, most)], a.name + "_chunk")
        first, chunks = leaf[s, c][0], leaf[s, c][1]
        chunk = _max(_min(first + r.x, q - 1), 0)
        akey = lkey(j, s)
        nxt = a.read_flat(chunk * a.lanes + j, m, extra_at, clamp=False)
        nxt = select(r.x < chunks, a.row_clamped(nxt, row), a.zero(True))
        # the default schedule computes ROWS rows together (a constant
        # extent, bound_extent): those past the last read the last row
        # (row_clamped; their sums are never read), with no predicate, whose
        # guard would make loop partitioning copy the rows' loops
        preds = []
        general = preds
        if len(a.run) > 1 and not a.flat():
            # several run axes (not read by address): where the last one's size is a multiple of 8,
            # no chunk crosses its rows, and a chunk is a dense vector of
            # that axis (this update, its own RDom: an RDom keeps the
            # predicates it is given); else each lane's indices are divided
            # out of the flat position (the next update): one of the two
            # runs, with the same chunks in the same order
            rv = RDom([(0, most)], a.name + "_vchunk")
            at = _max(_min(first + rv.x, q - 1), 0) * a.lanes
            dense = select(rv.x < chunks, a.row_clamped(a.read_chunk(at, j, extra_at), row),
                           a.zero(True))
            a.define(acc, akey, [Expr.wrap(acc[akey].node) + dense], rv,
                     preds=[(a.size(a.run[-1]) % a.lanes) == 0] + preds)
            general = [(a.size(a.run[-1]) % a.lanes) != 0] + preds
        a.define(acc, akey, [Expr.wrap(acc[akey].node) + nxt], r, preds=general)
        tree = a.func("_tree")
        place = {}
        out.default_hint = _rows_hint(key, place)
        acc.default_hint = _lanes_hint(tree, s, place, a.lanes)
        tkey = (s,) + mid
        lanes = [Expr.wrap(acc[lkey(Expr.wrap(ir.index(i)), s)].node) for i in range(a.lanes)]
        a.define(tree, tkey, [_combine(lanes)], pure=True)
        # the m % 8 rest, added to the rightmost leaf (slot 0 when m < 8):
        # an RDom of that extent (a parameter: no predicate)
        rr = RDom([(0, a.row_static(lambda z: _prod(z) % a.lanes))], a.name + "_rest")
        last = (right,) + mid
        elem = a.row_clamped(a.read_flat(q * a.lanes + rr.x, m, extra_at, clamp=True), row)
        a.define(tree, last, [Expr.wrap(tree[last].node) + elem], rr)
        a.tree_levels(tree, (c,), extra, slots, depth)
        tree.default_hint = _row_hint(out, key, place, slots)
        # the lanes read the chunks of 8, the tree the rest: a Func read only
        # by them is inlined into both (c has one value)
        # (set on the Funcs themselves: inside loops acc and tree are LiftedFuncs)
        part = (object(), frozenset({c.name()}))
        for g in (acc, tree):
            getattr(g, "base", g).sum_part = part
        # out += the row sums, the reduced axes outside the rows in memory order
        rdom = RDom([(0, _min(m, 1))] + [(0, a.size(k)) for k in reversed(a.outer)],
                    a.name + "_r")
        sub = {id(v): rdom[1 + i] for i, v in enumerate(a.vars[k] for k in reversed(a.outer))}
        args = [Expr.wrap(ir.index(0)), rdom[0]] + [sub.get(id(v), v) for v in extra]
        self.define(out, key, [Expr.wrap(out[tuple(key)].node) + tree[tuple(args)]], rdom)

    def row_static(self, fn) -> Expr:
        """fn(sizes of the run axes) at call time (a Param), 0 when the
        innermost kept axis is empty: an RDom of that extent reads nothing
        then (row_clamped's reads stay out of the input's region)."""
        if not self.kept:
            return self.static(fn, self.run)
        k = len(self.run)
        return self.static(lambda z: fn(z[:k]) if z[k] else 0, self.run + [self.kept[-1]])

    def row_clamped(self, e, row) -> Expr:
        """e with the innermost kept axis's index `row` clamped into the
        array: the default schedule computes ROWS rows at once, and those
        past the last read the last one."""
        if row is None:
            return e
        n = self.size(self.kept[-1])
        rc = _max(_min(row, n - 1), 0)
        return Expr.wrap(ir.substitute(e.node, {row.name(): rc.node}))

    def read_flat(self, flat, m, extra_at, clamp) -> Expr:
        """Element `flat` of a row of the run axes (m elements; clamped into
        it when `clamp`: reads past its end are never used)."""
        if clamp:
            flat = _max(_min(flat, m - 1), 0)
        if len(self.run) == 1:
            return self.element({**extra_at, self.run[0]: flat})
        if self.flat():
            return self.flat_element(flat)
        start = Expr.wrap(ir.index(0))
        sizes = [self.size(k) for k in self.run]
        return self.read_run(start, flat, m, sizes, extra_at)

    def read_chunk(self, base, j, extra_at) -> Expr:
        """Lane j of the chunk at flat position `base` of a row of the run
        axes, when the last run axis's size n is a multiple of 8 (the chunk
        is inside one of its rows): that axis's index base % n + j (the
        clamp to n - 8 holds it there for bounds inference, a no-op then),
        the others divided out of base once per chunk."""
        sizes = [self.size(k) for k in self.run]
        n = sizes[-1]
        at = dict(extra_at)
        at[self.run[-1]] = _max(_min(base % n, n - self.lanes), 0) + j
        flat = base // n
        for ax, size in zip(reversed(self.run[1:-1]), reversed(sizes[1:-1])):
            at[ax] = _max(_min(flat % size, size - 1), 0)
            flat = flat // size
        at[self.run[0]] = _max(_min(flat, sizes[0] - 1), 0)
        return self.element(at)

    def leaves(self, c, m, depth):
        """blk(s, c) = (first chunk, chunks, rightmost) of slot s's leaf; an
        empty slot has 0 chunks and is not rightmost."""
        blk = self.func("_leaf")
        s = self.em.new_var("s")
        q = m // self.lanes
        self.define(blk, (s, c), [Expr.wrap(ir.index(0)), q, Expr.wrap(ir.index(1))], pure=True)
        d = RDom([(0, depth)], self.name + "_level")
        cur = blk[s, c]
        st, nq, last = cur[0], cur[1], cur[2]
        rem = select(last == 1, m % self.lanes, 0)
        leaf = nq * self.lanes + rem <= self.block
        bit = (binary(ir.Shr, s, depth - 1 - d.x) & 1) == 1
        half = nq // 2
        new_st = select(leaf, st, select(bit, st + half, st))
        new_q = select(leaf, select(bit, 0, nq), select(bit, nq - half, half))
        new_last = select(leaf, select(bit, 0, last), select(bit, last, 0))
        self.define(blk, (s, c), [new_st, new_q, new_last], d)
        return blk

    def read_run(self, start, k, m, run_sizes, extra_at) -> Expr:
        """Element k of the run at `start` of length m (clamped into it: reads
        past its end are never used)."""
        flat = start + _max(_min(k, m - 1), 0)
        if self.flat():
            return self.flat_element(flat)
        at = dict(extra_at)
        for ax, n in zip(reversed(self.run[1:]), reversed(run_sizes[1:])):
            at[ax] = flat % n
            flat = flat // n
        at[self.run[0]] = flat
        # each index clamped into its axis (it is there already): bounds
        # inference cannot bound `%` and `//` by call-time sizes
        for ax, n in zip(self.run, run_sizes):
            at[ax] = _max(_min(at[ax], n - 1), 0)
        return self.element(at)

    def tree(self, blk, c, m, start, run_sizes, extra, slots, depth):
        a = self
        j, s = a.em.new_var("j"), a.em.new_var("s")
        extra_at = {k: a.vars[k] for k in a.kept + a.outer}
        ref = blk[s, c]
        st, nq, last = ref[0], ref[1], ref[2]
        # the 8 accumulators of each leaf
        acc = a.func("_lanes")
        akey = (j, s, c) + tuple(extra)
        first = a.read_run(start, st * a.lanes + j, m, run_sizes, extra_at)
        a.define(acc, akey, [select(nq > 0, first, a.zero(True))], pure=True)
        r = RDom([(1, a.block // a.lanes - 1)], a.name + "_lane")
        nxt = a.read_run(start, (st + r.x) * a.lanes + j, m, run_sizes, extra_at)
        a.define(acc, akey, [Expr.wrap(acc[akey].node) + nxt], r, preds=[r.x < nq])
        # a leaf's sum: the accumulators' tree, then the rest in turn
        tree = a.func("_tree")
        tkey = (s, c) + tuple(extra)
        lanes = [Expr.wrap(acc[(Expr.wrap(ir.index(i)), s, c) + tuple(extra)].node)
                 for i in range(a.lanes)]
        a.define(tree, tkey, [select(nq > 0, _combine(lanes), a.zero(True))], pure=True)
        rr = RDom([(0, a.lanes - 1)], a.name + "_rest")
        rest = select(last == 1, m % a.lanes, 0)
        elem = a.read_run(start, nq * a.lanes + st * a.lanes + rr.x, m, run_sizes, extra_at)
        a.define(tree, tkey, [Expr.wrap(tree[tkey].node) + elem], rr, preds=[rr.x < rest])
        a.tree_levels(tree, (c,), extra, slots, depth)
        return tree

    def tree_levels(self, tree, mid, extra, slots, depth):
        """The levels of the slot tree, in place: slot i <- slots 2i and 2i+1."""
        lv = RDom([(0, _max(slots // 2, 1)), (1, depth)], self.name + "_pairs")
        i, level = lv[0], lv[1]
        at = lambda k: (k,) + tuple(mid) + tuple(extra)    # noqa: E731
        self.define(tree, at(i), [Expr.wrap(tree[at(2 * i)].node) +
                                  Expr.wrap(tree[at(2 * i + 1)].node)],
                    lv, preds=[i < binary(ir.Shr, slots, level)])


def _narrowed(node) -> bool:
    """Whether an integer node casts a wider integer to a narrower one."""
    found = []

    class _Find(ir.Visitor):
        def visit_Cast(self, e):
            t, v = e.type, e.value.type
            if t.is_integer() and v.is_integer() and v.bits > t.bits:
                found.append(e)
            self.visit_children(e)

    _Find().visit(node)
    return bool(found)


def _prod(sizes):
    out = 1
    for n in sizes:
        out *= n
    return out


ROWS = 8             # rows whose sums the default schedule interleaves
COMBINE_ACROSS_ROWS = True      # name_tree's combine vectorized across the ROWS rows


def _untouched(sch) -> bool:
    return not sch.splits and all(d.kind == "serial" for d in sch.dims)


def _rows_hint(key, place):
    """The default schedule of the sum's Func: its last update (the row
    sums) split by ROWS rows, when no schedule touched it; `place` records
    the loop of ROWS rows. Returns False: still computed at root."""
    def hint(out):
        if not key:
            return False
        u = out.update(len(out.function().updates) - 1)
        if not _untouched(u.definition().schedule):
            return False
        name = key[0].name()
        outer = Var(f"{name}_rows")
        u.split(key[0], outer, Var(f"{name}_row"), ROWS)
        place["at"], place["row"] = outer, name
        place["outer_kept"] = [v.name() for v in key[1:]]
        return False
    return hint


def _row_hint(out, key, place, slots=None):
    """The default schedule of name_tree: computed per row (or per ROWS
    rows, where _rows_hint split them), at out's loop of its innermost kept
    axis (its buffer stays in cache), where out has such a loop; its slots
    the outermost loop of its first stage (name_lanes is computed per slot);
    ROWS rows where _rows_hint split them. Returns whether it placed f."""
    def hint(f):
        sch = f.function().pure.schedule
        dims = [d.var for d in sch.dims]
        if _untouched(sch) and place.get("slot") in dims:
            f.reorder(*[n for n in dims if n != place["slot"]], place["slot"])
        if place.get("row") and not f.function().schedule.bounds:
            # ROWS rows, as name_lanes (no loop over a part of the rows:
            # name_lanes computed in one copy)
            _bound_rows(f, place)
            if slots is not None:
                f.bound(place["slot"], 0, slots)
            if COMBINE_ACROSS_ROWS and _untouched(sch):
                f.reorder(place["row"], *[n for n in dims if n != place["row"]]) \
                    .vectorize(place["row"])
        if not key:
            return False
        try:
            f.compute_at(out, place.get("at", key[0]))
        except CompileError:
            return False
        return True
    return hint


def _lanes_hint(tree, s, place, lanes):
    """The default schedule of name_lanes: computed per slot of name_tree
    (its loop `s`): a few vectors, on the stack; its accumulators of a slot
    (j, `lanes` of them) one vector, and the ROWS rows' chunks interleaved
    (independent chains of adds) where _rows_hint split the rows: ROWS rows
    computed together (a constant extent: their accumulators stay in
    registers over the slot's chunks). Returns whether it placed f."""
    place["slot"] = s.name()

    def hint(f):
        row = place.get("row")
        exact = bool(row) and not f.function().schedule.bounds
        if exact:
            _bound_rows(f, place)
            f.bound("j", 0, lanes)
        _vectorize_lanes(f, row, lanes, exact)
        try:
            f.compute_at(tree, s)
        except CompileError:
            return False
        return True
    return hint


def _bound_rows(f, place):
    """ROWS rows of f, and one index of each kept axis outside them (f is
    computed inside their loops): constant extents, so no loop of unknown
    length keeps name_lanes' accumulators out of registers (3-D sums)."""
    f.bound_extent(place["row"], ROWS)
    for name in place.get("outer_kept", ()):
        f.bound_extent(name, 1)


def _vectorize_lanes(f, row=None, lanes=LANES, exact=False):
    """j (the 8 accumulators of a slot) innermost and one vector in each
    stage of f that no schedule touched; in the update, the rows `row`
    next (unrolled by ROWS) when given."""
    fn = f.function()
    stages = [(f, fn.pure.schedule)] + [(f.update(i), u.schedule) for i, u in enumerate(fn.updates)]
    for k, (stage, sch) in enumerate(stages):
        dims = [d.var for d in sch.dims]
        if not _untouched(sch) or "j" not in dims:
            continue
        if k and row in dims:
            stage.reorder("j", row, *[n for n in dims if n not in ("j", row)])
            if exact:
                stage.vectorize("j").unroll(row)
            else:
                stage.vectorize("j", lanes).unroll(row, ROWS)
        elif exact:
            stage.reorder("j", *[n for n in dims if n != "j"]).vectorize("j")
        else:
            stage.reorder("j", *[n for n in dims if n != "j"]).vectorize("j", lanes)


def _min(x, y) -> Expr:
    return Expr.wrap(ir.Min(_node(x), _node(y)))


def _max(x, y) -> Expr:
    return Expr.wrap(ir.Max(_node(x), _node(y)))


def _node(v):
    return v.node if isinstance(v, Expr) else ir.index(v)


def runs_of(sizes, reduced, merges, cast):
    """(slab, piece, runs): NumPy sums the flattened innermost reduced axes
    in slabs of `slab` elements (a product of the innermost of them), each
    in pieces of at most `piece` elements (its buffer), `runs` pieces in
    all. sizes and reduced: per axis, outermost first in memory; merges:
    per adjacent pair (memory_order). A port of npyiter_find_buffering_setup
    (NumPy 2's nditer_constr.c) for a reduction's result (op 0, stride 0
    along reduced axes, allocated in this order) and operand (op 1, cast
    when `cast`), with GROWINNER, after coalescing the axes both merge."""
    dims = []                       # innermost first: [size, reduced, merges with next]
    for k in reversed(range(len(sizes))):
        outward = merges[k - 1] if k > 0 else False
        if dims and dims[-1][1] == reduced[k] and dims[-1][2]:
            dims[-1][0] *= sizes[k]
            dims[-1][2] = outward
            continue
        dims.append([sizes[k], reduced[k], outward])
    total = 1
    for d in dims:
        if d[1]:
            total *= d[0]
        else:
            break
    if total == 0:
        return 1, 1, 0
    cost = 2 if cast else 1
    in_single = out_single = 1
    outer_reduce_dim = 0
    size = dims[0][0]
    best_dim, best_cost, best_size, best_core = 0, cost, size, 1
    for idim in range(1, len(dims)):
        if outer_reduce_dim or (size >= BUFSIZE and cost > 1):
            break
        prev, cur = dims[idim - 1], dims[idim]
        if out_single == idim:
            if prev[1] == cur[1]:
                out_single += 1
            else:
                cost += 1
                outer_reduce_dim = idim
        if in_single == idim:
            if prev[2]:
                in_single += 1
            elif not cast:
                cost += 1
        core, size = size, size * cur[0]
        if size == 0:
            break
        bufsize = BUFSIZE if size > BUFSIZE and cost > 1 else size
        if cost * best_size <= best_cost * bufsize:
            best_cost, best_core, best_size, best_dim = cost, core, size, idim
    if outer_reduce_dim and best_dim == outer_reduce_dim:
        slab = piece = best_core    # reduce mode: one call per outer step, the core
    else:
        slab = piece = best_size
        buffered = cast or in_single <= best_dim
        if buffered and best_size > BUFSIZE:
            piece = best_core * (BUFSIZE // best_core)
    return slab, piece, (total // slab) * -(-slab // piece)


def _combine(lanes):
    """The accumulators added pairwise: ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
    of 8, (r0+r1)+(r2+r3) of 4."""
    if len(lanes) == 1:
        return lanes[0]
    h = len(lanes) // 2
    return _combine(lanes[:h]) + _combine(lanes[h:])


def split_depth(m, lanes=LANES):
    """The depth of NumPy's split tree of a run of m elements itself (leaves
    of at most 16 chunks of `lanes`, the m % lanes rest in the rightmost
    node): the halvings after which every node is a leaf. Not monotone in m
    (255: 2, 256: 1). A sum lays a run's leaves on 2**split_depth(m) slots:
    each slot past the tree's own leaves would run a leaf's chunks for
    nothing (2048 elements: 16 leaves; a bound of 15 chunks per leaf gave
    32 slots)."""
    block, rem = 16 * lanes, m % lanes
    nodes, depth = {(m // lanes, True)}, 0
    while True:
        nodes = {half for nq, last in nodes if nq * lanes + (rem if last else 0) > block
                 for half in ((nq // 2, False), (nq - nq // 2, last))}
        if not nodes:
            return depth
        depth += 1


def run_depth(slab, piece, lanes=LANES):
    """The depth of the deepest split tree of the runs of a slab of `slab`
    elements in pieces of `piece`: its runs have two lengths (the full
    pieces and the last)."""
    last = slab - (-(-slab // piece) - 1) * piece
    return max(split_depth(min(slab, piece), lanes), split_depth(last, lanes))


def rightmost_slot(m, lanes=LANES, block=BLOCK):
    """The slot of the rightmost leaf of a run of m elements (in chunks of
    `lanes`, leaves of at most `block` elements): the split tree descended
    to the right split_depth(m) times, a leaf keeping the first slot of its
    subtree (as leaves() lays the tree)."""
    q, rem, slot = m // lanes, m % lanes, 0
    for _ in range(split_depth(m, lanes)):
        split = q * lanes + rem > block
        if split:
            q -= q // 2
        slot = slot * 2 + int(split)
    return slot


def pairwise_plan(m, lanes=LANES) -> tuple:
    """(split_depth, most_chunks, rightmost_slot) of a run of m elements in
    chunks of `lanes` (blocks of 16 chunks): what phase mode's pairwise sum
    (carried_sums.phase_sum) takes at call time."""
    block = 16 * lanes
    return split_depth(m, lanes), most_chunks(m, lanes, block), rightmost_slot(m, lanes, block)


def most_chunks(m, lanes=LANES, block=BLOCK):
    """The most chunks of `lanes` a leaf of the split tree of a run of m
    elements holds (the nodes of a level take at most a few sizes)."""
    nodes, best, rem = {(m // lanes, 1)}, 0, m % lanes
    while nodes:
        deeper = set()
        for nq, last in nodes:
            if nq * lanes + (rem if last else 0) <= block:
                best = max(best, nq)
            else:
                deeper |= {(nq // 2, 0), (nq - nq // 2, last)}
        nodes = deeper
    return best
