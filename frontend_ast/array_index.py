"""Indexing array values with NumPy's rules: basic slices, integers, None
and ... make views (index arithmetic over the same array, no copy);
integer arrays make gathers; a boolean mask is a selection whose size
depends on data (only an assignment target, array_store.py). Element reads
and writes through a view go to its array, checked against the view's
shape. Registers the "subscript" hook of array_calls."""
from __future__ import annotations

import ast
from types import SimpleNamespace

from pyhalide import checks as pchecks
from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import array_calls, ops
from .array_masks import in_masked_value, mask_fits, selection_sizes
from .array_slices import slice_axis
from .array_windows import check_where_made, window_axis, window_bounds
from .arrayexpr import ArrayExpr, broadcast_index, broadcast_shapes, lazy_in_loops, under_condition
from .complex_values import ComplexVal
from .values import Arr, TupleVal, Val, const_val, fresh, with_type_range

_NEW = "new"


class Item:
    """One index item: kind "slice" (start, stop: Val or None; step: int),
    "window" (start: a Val that depends on a loop variable; value: the
    length, a call-time Val),
    "int" (value Val), "new" (np.newaxis), "array" (value ArrayExpr of
    integers), "mask" (value ArrayExpr of bools), "ellipsis"."""

    def __init__(self, kind, node, value=None, start=None, stop=None, step=1):
        self.kind, self.node, self.value = kind, node, value
        self.start, self.stop, self.step = start, stop, step

    @property
    def axes(self) -> int:
        """How many axes of the indexed array the item consumes."""
        if self.kind in ("slice", "window", "int", "array"):
            return 1
        if self.kind == "mask":
            return self.value.ndim
        return 0


class Indexed(ArrayExpr):
    """An array value selected from another by an index: `pick(idx)` maps
    an index of this value to (the source's index nodes, run-time checks),
    a check being (ok node, offending index node, axis, size Val, name).
    `layout_pick`, where given, is pick without the clamps of windows
    (array_windows.py: the index map of a window wholly inside its array,
    the only one whose elements are read): `layout_view` is the view by
    it, for the memory-order analyses (affine_maps.affine_rows)."""

    def __init__(self, cx, shape, ty, src, pick, node, injective, mask_at=None,
                 layout_pick=None):
        self.cx, self.src, self.pick, self.injective = cx, src, pick, injective
        self.layout_pick = layout_pick or pick
        self.mask_at = mask_at          # a masked region: fn(idx) -> the mask's element
        view = self.layout_view = None
        if src.view is not None and injective:
            view = (src.view[0], lambda idx: base_map(self, idx)[0])
            self.layout_view = (src.view[0], lambda idx: _layout_map(self, idx))
        # under an `if` of data the elements may be computed where Python
        # never selects them (the branch not taken): _unless_empty
        self.lazy = under_condition(cx)
        super().__init__(shape, ty, self._element, node, view=view)

    def _element(self, idx):
        nodes, checks = self.pick(idx)
        return guard(self.cx, self._unless_empty(self.src.elem(nodes), checks), checks)

    def _unless_empty(self, v, checks):
        """v, under an `if` of data, computed only where the axes it reads
        at indices checked at run time have elements (unless_empty)."""
        return unless_empty(self.cx, v, checks) if self.lazy else v


def unless_empty(cx, v, checks):
    """v computed only where each axis read at an index checked at run
    time (`checks`) has elements (lazily, 0 elsewhere: the clamped index of
    an empty axis is outside it, `A[k]` of an empty A, which the bounds
    query sees whether or not an enclosing `if` holds); in loops only the
    axes whose size is fixed for a call (arrayexpr.lazy_in_loops). Where
    the checks pass the axes have elements. The checks v makes that read no
    data (a broadcast's sizes: NumPy's ValueError comes before the index's
    IndexError) stay where v is."""
    if cx.typing or not isinstance(v, Val) or isinstance(v, ComplexVal) or v.node is None:
        return v
    sizes = [c[3] for c in checks if len(c) == 6 and not (c[3].is_const and c[3].const > 0)
             and lazy_in_loops(cx, c[3])]
    if not sizes:
        return v
    conds = [ir.LT(ir.index(0), cast(ir.INDEX, ops.node_of(cx, n))) for n in sizes]
    zero = ir.Const(v.node.type, False if v.node.type.is_bool() else 0)
    shape_checks = [c for c in pchecks.eager(v.node) if _reads_no_data(c)]
    node = ir.lazy_select(ir.conjunction(conds), pchecks.without(v.node, shape_checks), zero)
    return Val(pchecks.apply(shape_checks, node), v.ty, risky=v.risky)


def _reads_no_data(check) -> bool:
    """Whether a check (`read != 0`) is at a position that calls nothing
    but intrinsics (no array, Func or other check read)."""
    return all(c.call_type == ir.INTRINSIC for c in ir.find_calls(list(check.a.args)))


def base_map(x: ArrayExpr, idx):
    """(index nodes of the named array x views, checks) for an index of x."""
    if isinstance(x, Indexed):
        nodes, checks = x.pick(idx)
        inner, more = base_map(x.src, nodes)
        return inner, checks + more
    return x.view[1](idx), []


def _layout_map(x: ArrayExpr, idx):
    """base_map's index nodes by the layout picks (no window clamps)."""
    if isinstance(x, Indexed):
        return _layout_map(x.src, x.layout_pick(idx)[0])
    return x.view[1](idx)


def guard(cx, v: Val, checks) -> Val:
    """v, raising NumPy's IndexError where a checked index is out of range
    (and array_windows' ValueError where a window is not inside its array);
    a complex value is guarded part by part."""
    if checks and isinstance(v, ComplexVal):
        return v.map_parts(lambda part: guard(cx, part, checks))
    for c in checks:
        if len(c) == 3:                 # (ok, exception, message): array_windows
            v = cx.guard(v, *c)
            continue
        ok, xv, axis, size, name, what = c
        v = cx.guard(v, ok, "IndexError", f"array {name!r}{what}", index=(axis, size, xv))
    return v


class MaskRead(ArrayExpr):
    """`a[mask]` outside the value of an assignment through the same mask
    (array_masks.in_masked_value): its size depends on data, so using its
    shape is a located error (array_store.py refuses it as a value)."""

    def __init__(self, cx, src, mask, node):
        self.cx, self.src, self.mask = cx, src, mask
        self.ty, self.node, self.view = src.ty, node, None
        self.elem = src.elem

    @property
    def shape(self):
        raise self.cx.err(self.node, "a boolean-mask read has a size that depends on the data; "
                                     "it is compiled only in the value of an assignment "
                                     "through the same mask, element by element: "
                                     "a[mask] = f(a[mask], b[mask])",
                          hint="use np.where(mask, a, other) to keep the shape, or assign "
                               "through the mask: out[mask] = value")

    @property
    def order(self):
        """Its memory layout (a returned value's) is as data-dependent as its
        shape: the same located error."""
        return self.shape


# parsing ----------------------------------------------------------------------------------
def parse(b, sl, windows=False) -> list:
    """The items of a subscript's index (b: the exprs.Expressions). With
    `windows`, a step-1 slice whose bounds depend on a loop variable but whose
    length does not is a "window" item (array_windows.py: start, value = the
    length Val)."""
    out = []
    for it in (sl.elts if isinstance(sl, ast.Tuple) else [sl]):
        if isinstance(it, ast.Slice):
            step = _step(b, it.step)
            w = window_bounds(b, it, lambda v: _moves(b, v)) \
                if windows and b.array_code.state.window_loops() else None
            if w is not None:
                out.append(Item("window", it, value=w[1], start=w[0]))
                continue
            out.append(Item("slice", it, start=_bound(b, it.lower), stop=_bound(b, it.upper),
                            step=step))
            continue
        if isinstance(it, ast.Constant) and it.value is Ellipsis:
            out.append(Item("ellipsis", it))
            continue
        v = b.ev(it)
        for x in (v.items if isinstance(v, TupleVal) else [v]):
            out.append(_item(b, x, it))
    return out


def _step(b, node) -> int:
    v = b.ev(node) if node is not None else None
    if v is None:
        return 1
    v = b.scalar(v, node, "an integer slice step")
    if not v.is_const or not v.ty.is_int() or v.ty.is_bool():
        raise b.cx.err(node, "a slice step must be an integer constant",
                       hint="write the step as a number (a[::2], a[::-1])")
    if int(v.const) == 0:
        raise b.cx.err(node, "slice step cannot be zero", hint="use a nonzero step")
    return int(v.const)


def _moves(b, v) -> bool:
    """Whether v is an integer scalar that depends on a loop variable."""
    if not isinstance(v, Val) or not v.ty.is_int() or v.ty.is_bool() or v.is_static:
        return False
    free = ir.free_vars(v.node)
    return any(lp.sym in free for lp in b.array_code.state.window_loops())


def _bound(b, node):
    if node is None:
        return None
    v = b.ev(node)
    if v is None:
        return None
    v = b.scalar(v, node, "an integer slice bound")
    if not v.ty.is_int() or v.ty.is_bool():
        raise b.cx.err(node, f"slice indices must be integers or None, not {v.ty.describe()}",
                       hint="convert the bound with int(...)")
    if not v.is_static:
        free = ir.free_vars(v.node)
        loops = [lp.name for lp in b.array_code.state.loops if lp.sym in free]
        if loops:
            raise b.cx.err(node, f"slice bounds must be known when the function is called "
                                 f"(computed from argument sizes and scalar arguments): these "
                                 f"change from one loop iteration to the next (they depend "
                                 f"on the loop variable {loops[-1]!r})",
                           hint="index single elements in an inner loop (for t in range(n): "
                                "... a[i * s + t]), or slice with bounds known when the "
                                "function is called")
        raise b.cx.err(node, "slice bounds must be known when the function is called "
                             "(computed from argument sizes and scalar arguments)",
                       hint="compute the bounds from len(a), a.shape or scalar arguments, "
                            "or index single elements in a loop")
    return v


def _item(b, v, where) -> Item:
    if v is None:
        return Item(_NEW, where)
    if v is Ellipsis:
        return Item("ellipsis", where)
    if isinstance(v, (Arr, ArrayExpr)):
        a = b.array_code.as_array(v, where)
        if a.ty.is_bool():
            return Item("mask", where, a)
        if not a.ty.is_int():
            raise b.cx.err(where, "arrays used as indices must be of integer (or boolean) type",
                           hint="convert the index array with .astype(np.int64)")
        return Item("array", where, a)
    if isinstance(v, Val):
        return Item("int", where, v)
    raise b.cx.err(where, f"{b.describe_obj(v)} cannot be an index",
                   hint="index with integers, slices, None, ... or integer or boolean arrays")


def expand(cx, items, ndim, node) -> list:
    """The items with `...` replaced by full slices (one `...` at most),
    and full slices added for the axes not indexed."""
    used = sum(i.axes for i in items)
    if used > ndim:
        raise cx.err(node, f"too many indices for array: array is {ndim}-dimensional, but "
                           f"{used} were indexed", hint=f"give at most {ndim} indices")
    ells = [k for k, i in enumerate(items) if i.kind == "ellipsis"]
    if len(ells) > 1:
        raise cx.err(node, "an index can only have a single ellipsis ('...')",
                     hint="keep one ... and write the other axes as :")
    fill = [Item("slice", node) for _ in range(ndim - used)]
    if ells:
        k = ells[0]
        return items[:k] + fill + items[k + 1:]
    return items + fill


# selecting ----------------------------------------------------------------------------------
def index_one(b, v: Val, n: Val, axis: int, name: str, where, what=""):
    """(int32 node in [0, n), check or None) of index v into an axis of size n
    (arrays.ArrayAccess.to_index: negative counts from the end, proven,
    checked at call time or at run time)."""
    pad = [(const_val(0), where)] * axis
    shape = [const_val(1)] * axis + [n]
    ((node, mode),) = b.arrays.index_values(
        SimpleNamespace(ndim=axis + 1, shape=shape, name=name), pad + [(v, where)], where)[axis:]
    if not isinstance(mode, tuple):
        return node, None
    last = ir.Sub(cast(ir.INDEX, ops.node_of(b.cx, n)), ir.index(1))
    return ir.Max(ir.Min(node, last), ir.index(0)), (mode[1], mode[2], axis, n, name, what)


def array_name(x: ArrayExpr) -> str:
    return x.view[0].name if x.view is not None else "array"


def select(b, src: ArrayExpr, items, node) -> ArrayExpr:
    """src indexed by items (no mask): a view for basic items, a gather when
    an integer array is among them (NumPy's placement of the indexed axes:
    where the integer indices are when they are adjacent, else first)."""
    cx = b.cx
    items = expand(cx, items, src.ndim, node)
    arrays = [i for i in items if i.kind == "array"]
    name = array_name(src)
    adv = [k for k, i in enumerate(items) if i.kind == "array" or (arrays and i.kind == "int")]
    adjacent = adv == list(range(adv[0], adv[-1] + 1)) if adv else True
    bshape = broadcast_shapes(cx, [i.value.shape for i in arrays], node) if arrays else []
    plan, slots = [], ([] if adjacent else ["block"])
    axis = 0
    for it in items:
        if it.kind == "slice":
            first, size = slice_axis(cx, src.shape[axis], it.start, it.stop, it.step)
            slots.append(len(plan))
            plan.append(["slice", axis, first, it.step, size])
        elif it.kind == "window":
            first, size, check = window_axis(cx, src.shape[axis], it.start, it.value, name,
                                             axis)
            check_where_made(b, check, it.node)
            slots.append(len(plan))
            plan.append(["window", axis, first, (check, src.shape[axis]), size])
        elif it.kind == _NEW:
            slots.append(len(plan))
            plan.append([_NEW, None, None, None, const_val(1)])
        elif it.kind == "int" and not arrays:
            x, check = index_one(b, it.value, src.shape[axis], axis, name, it.node)
            plan.append(["int", axis, x, check, None])
        else:
            if adjacent and "block" not in slots:
                slots.append("block")
            plan.append(["adv", axis, it.value, it.node, None])
        axis += it.axes
    shape, block_at = [], 0
    for s in slots:
        if s == "block":
            block_at = len(shape)
            shape.extend(bshape)
        else:
            size = plan[s][4]
            plan[s][4] = len(shape)
            shape.append(size)

    def pick(idx, clamp=True):
        out = [None] * src.ndim
        checks = []
        block = list(idx[block_at:block_at + len(bshape)]) if arrays else []
        for kind, ax, a, c, pos in plan:
            if kind == "slice":
                i = idx[pos]
                out[ax] = i if (c == 1 and isinstance(a, ir.Const) and a.value == 0) else \
                    ir.Add(a, ir.Mul(i, ir.index(c)) if c != 1 else i)
            elif kind == "window":
                last = ir.Sub(cast(ir.INDEX, ops.node_of(cx, c[1])), ir.index(1))
                out[ax] = ir.Max(ir.Min(ir.Add(a, idx[pos]), last), ir.index(0)) if clamp \
                    else ir.Add(a, idx[pos])
                checks.append(c[0])
            elif kind == "int":
                out[ax] = a
                if c is not None:
                    checks.append(c)
            elif kind == "adv":
                v = a.elem(broadcast_index(a.shape, block)) if isinstance(a, ArrayExpr) else a
                x, check = index_one(b, v, src.shape[ax], ax, name, c)
                out[ax] = x
                if check is not None:
                    checks.append(check)
        return out, checks

    windows = any(p[0] == "window" for p in plan)
    return Indexed(cx, shape, src.ty, src, pick, node, injective=not arrays,
                   layout_pick=(lambda idx: pick(idx, clamp=False)) if windows else None)


def masked_select(b, src: ArrayExpr, items, node) -> Indexed:
    """The region `src[items]` covers, for one boolean mask among basic
    items (slices, integers, ...): in NumPy's axis order (the mask's axes
    where the mask and the integers are, when they are adjacent, else
    first), its mask's axes sized by array_masks.selection_sizes; an element
    is the source's element there, and `.mask_at(idx)` whether the mask
    selects it."""
    cx = b.cx
    items = expand(cx, items, src.ndim, node)
    masks = [i for i in items if i.kind == "mask"]
    bad = next((i for i in items if i.kind in ("array", _NEW)), None) or \
        (masks[1] if len(masks) > 1 else None)
    if bad is not None:
        raise cx.err(bad.node, "a boolean mask combined with integer arrays, None or another "
                               "mask is not supported",
                     hint="combine the mask with slices and integers only (a[mask, 0], "
                          "a[1:, mask])")
    mask = masks[0].value
    sizes = selection_sizes(cx, masks[0].node, mask.shape)
    adv = [k for k, i in enumerate(items) if i.kind in ("mask", "int")]
    entries, ints, axis, name = [], [], 0, array_name(src)
    for it in items:
        if it.kind == "slice":
            first, size = slice_axis(cx, src.shape[axis], it.start, it.stop, it.step)
            entries.append((axis, first, it.step, size))
        elif it.kind == "int":
            x, check = index_one(b, it.value, src.shape[axis], axis, name, it.node)
            if check is not None:
                raise cx.err(it.node, "an integer index combined with a boolean mask must be "
                                      "known when the function is called (NumPy checks it "
                                      "whatever the mask selects)",
                             hint="compute it from argument sizes or scalar arguments")
            ints.append((axis, x))
        elif it.kind == "mask":
            mask_fits(b, mask.shape, src.shape[axis:axis + mask.ndim], it.node, axis)
            block = [(axis + j, None, 1, sizes[j]) for j in range(mask.ndim)]
            entries.append("block")
            mask_axis = axis
        axis += it.axes
    if adv != list(range(adv[0], adv[-1] + 1)):
        entries.remove("block")
        entries.insert(0, "block")
    k = entries.index("block")
    entries[k:k + 1] = block

    def pick(idx):
        out = [None] * src.ndim
        for (ax, first, step, _), i in zip(entries, idx):
            out[ax] = i if first is None or (step == 1 and isinstance(first, ir.Const) and
                                             first.value == 0) else \
                ir.Add(first, ir.Mul(i, ir.index(step)) if step != 1 else i)
        for ax, x in ints:
            out[ax] = x
        return out, []

    def mask_at(idx):
        return mask.elem(pick(idx)[0][mask_axis:mask_axis + mask.ndim])

    return Indexed(cx, [e[3] for e in entries], src.ty, src, pick, node, True, mask_at)


# the subscript hook ----------------------------------------------------------------------------
def subscript(b, base, node):
    """`base[index]` that is not an element read of a named array."""
    items = parse(b, node.slice, windows=True)
    if any(i.kind == "window" for i in items) and \
            any(i.kind in ("mask", "array") for i in items):
        w = next(i for i in items if i.kind == "window")
        raise b.cx.err(w.node, "a slice whose start depends on the loop variable is "
                               "compiled only with slices and integers in the same index",
                       hint="index the window first, then apply the mask or index array")
    if isinstance(base, ArrayExpr) and all(i.kind == "int" for i in items) and \
            len(items) == base.ndim:
        return read_element(b, base, items, node)
    src = b.array_code.as_array(base, node)
    masks = [i for i in items if i.kind == "mask"]
    if masks:
        if len(masks) == 1 and in_masked_value(b, node, masks[0].node):
            sel = masked_select(b, src, items, node)
            return ArrayExpr(sel.shape, sel.ty, sel.elem, node)
        if len(items) != 1:
            raise b.cx.err(node, "a boolean mask combined with other indices is compiled only "
                                 "in the value of an assignment through the same index",
                           hint="write a[mask, 0] = f(a[mask, 0]), or use np.where")
        return MaskRead(b.cx, src, masks[0].value, node)
    return select(b, src, items, node)


def read_element(b, x: ArrayExpr, items, node) -> Val:
    """x[i, j, ...] with one integer per axis (also inside loops): a view's
    element is its array's, read like arrays.ArrayAccess.read (a pending
    write of this iteration is seen)."""
    nodes, checks = element_index(b, x, items, node, "")
    if x.view is None:
        v = x.elem(nodes)
        # (under an `if` of data, `(a * b)[0]` of an empty `a` is computed
        # where Python never evaluates it; the index checks are located at
        # the subscript, not at the operation whose element it reads, so
        # that the order of the two operations' checks counts as unknown:
        # check_order.order_unknown)
        b.cx.cur_node = node
        return guard(b.cx, unless_empty(b.cx, v, checks) if under_condition(b.cx) else v, checks)
    at, more = base_map(x, nodes)
    arr = x.view[0]
    cx = b.cx
    if cx.typing and arr.kind != "input":
        v = with_type_range(Val(ir.Variable(arr.ty.ir(), fresh("read")), arr.ty))
        return guard(cx, v, checks + more)
    cell = b.arrays.find_cell(arr, at)
    if cell is not None:
        v = b.arrays.cell_value(cell)
    elif checks:
        v = _read_inside(b, arr, at)
    else:
        v = b.array_code.read_element(arr, at)
    return guard(cx, v, checks + more)


def _read_inside(b, arr: Arr, at) -> Val:
    """arr[at] of a view's element whose index is in the view only where
    its checks pass, read where they fail too (`t = b[k:k + 1]` empty with
    k past b's end, `t[0]` under an `if` that does not hold: Halide's bounds
    query sees the read whether or not the `if` holds): the index clamped
    into arr and, for an input, the read made only where arr has elements
    (lazily, 0 elsewhere: arrays.ArrayAccess._unless_empty). Where the
    checks pass neither changes the value."""
    cx = b.cx
    inside, sizes = [], []
    for node, n in zip(at, arr.shape):
        size = cast(ir.INDEX, ops.node_of(cx, n))
        sizes.append(size)
        inside.append(ir.Max(ir.Min(node, ir.Sub(size, ir.index(1))), ir.index(0)))
    v = b.array_code.read_element(arr, inside)
    if arr.kind != "input" or cx.typing or isinstance(v, ComplexVal):
        return v
    zero = ir.Const(v.node.type, False if v.node.type.is_bool() else 0)
    cond = ir.conjunction([ir.LT(ir.index(0), n) for n in sizes])
    return Val(ir.lazy_select(cond, v.node, zero), v.ty, risky=v.risky)


def element_index(b, x: ArrayExpr, items, node, what):
    """(in-range index nodes, checks) of one integer per axis of x."""
    name = array_name(x)
    nodes, checks = [], []
    for axis, it in enumerate(items):
        n, c = index_one(b, it.value, x.shape[axis], axis, name, it.node, what)
        nodes.append(n)
        if c is not None:
            checks.append(c)
    return nodes, checks


array_calls.HOOKS["subscript"] = subscript
