"""A float reduction of every axis to a scalar (a.max(), a.argmin(),
np.min(a)) in contiguous blocks, with the result of the serial loop
(array_reduce uses it for float min/max/argmin/argmax of every axis; the
integer ones stay one update, which LLVM vectorizes and rfactor splits).

The serial reduction folds the elements in C order with an update `step`
whose operator is associative with the initial value as a two-sided
identity: max/min `select(acc > x or acc is NaN, acc, x)` (the first NaN;
among equal values, ±0 included, the later one) and argmin/argmax's
(index, value) pairs (the first NaN, else the first of the extreme
values; a block that beats nothing keeps the identity, which no later
block loses to). Folding each block of
consecutive elements from the identity, then folding the block results in
order, therefore gives the serial result bit for bit
(tests/frontend/test_reduction_speed_paths.py checks the operators'
associativity on every triple of special values).

The Funcs: `name_blocks(b)` folds the rows [b*R, (b+1)*R) of the first
axis (R = ceil(rows / BLOCKS)) with every other axis, in C order (an
update over an RDom of the inner axes and the block's rows, predicated
on the row being in range); `name` folds name_blocks(0..BLOCKS-1) in
order. The default schedule runs the BLOCKS blocks side by side
(b innermost, unrolled): independent chains instead of one chain of
dependent selects. A schedule may run b in parallel instead
(name_blocks.update(0).parallel("b"); "b_" where an argument is named b):
the result is the same."""
from __future__ import annotations

from types import SimpleNamespace

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.var import RDom

from . import ops
from .arrayexpr import ArrayExpr, element_node
from .values import Arr, Val, with_type_range

BLOCKS = 8


def _state(f, tys, key):
    ref = f[key]
    return [with_type_range(Val(ref[j].node if len(tys) > 1 else ref.node, t))
            for j, t in enumerate(tys)]


def blocked(ac, operand: ArrayExpr, tys, init, step, combine, name, node, view=True):
    """reduction() of every axis of `operand` (ndim >= 1, not empty) in
    blocks: step(cx, state, element, {axis: index node}) folds an element,
    combine(cx, state, block state) folds a block's result."""
    cx = ac.cx
    cx.cur_node = node
    loc = cx.smap.loc(node)
    nd = operand.ndim
    sizes = [ops.cast(ir.INDEX, ops.node_of(cx, operand.shape[k])) for k in range(nd)]
    rows = Expr.wrap(sizes[0])
    per = (rows + (BLOCKS - 1)) // BLOCKS
    part = ac.new_func(name + "_blocks")
    b = ac.emitter.new_var("b")
    ac.emitter.define(part, (b,), tuple(init), [], None, loc, pure=True, label=name)
    rdom = RDom([(0, Expr.wrap(sizes[k])) for k in reversed(range(1, nd))] + [(0, per)],
                "r_" + part.name())
    row = b * per + rdom[nd - 1]
    at = {k: rdom[nd - 1 - k].node for k in range(1, nd)}
    # the row clamped into the array for bounds inference (the predicate keeps it there)
    at_read = dict(at)
    at_read[0] = ir.Max(ir.Min(row.node, ir.Sub(sizes[0], ir.index(1))), ir.index(0))
    at[0] = row.node
    x = operand.elem([at_read[k] for k in range(nd)])
    cx.cur_node = node
    new = step(cx, _state(part, tys, (b,)), x, at)
    vals = [element_node(cx, v, t) for v, t in zip(new, tys)]
    ac.defs.mark_emitted(vals, part)
    rdom.where(row < rows)
    loops = [(SimpleNamespace(name=f"axis{k}"), rdom[nd - 1 - k]) for k in range(nd)]
    ac.emitter.define(part, (b,), vals, [], rdom, loc, label=name, loops=loops)
    part.default_hint = lambda f: _side_by_side(f, b.name())
    # the blocks' results in order
    arr = Arr(name, tys[0], [], "local", loc)
    f = ac.new_func(name, arr)
    ac.emitter.define(f, (), tuple(init), [], None, loc, pure=True, label=name)
    rb = RDom([(0, BLOCKS)], "r_" + f.name())
    new = combine(cx, _state(f, tys, ()), _state(part, tys, (rb.x,)))
    vals = [element_node(cx, v, t) for v, t in zip(new, tys)]
    ac.defs.mark_emitted(vals, f)
    ac.emitter.define(f, (), vals, [], rb, loc, label=name)
    arr.func = f
    arr.defined = True
    arr.versions.append(f)
    if view:
        return ac.view_of(arr, node)
    return ArrayExpr([], arr.ty, lambda i: ac.read_element(arr, i), node)


def _side_by_side(f, b):
    """The default schedule of name_blocks (its block Var named b): the
    blocks innermost, unrolled (when no schedule touched its update).
    Returns False: still computed at root."""
    d = f.update(0).definition().schedule
    if d.splits or any(x.kind != "serial" for x in d.dims):
        return False
    rest = [x.var for x in d.dims if x.var != b]
    f.update(0).reorder(b, *rest).unroll(b, BLOCKS)
    return False
