"""Which element NumPy 2.4 returns among equal ones in a float max/min
reduction of every axis (np.max, np.min, np.nanmax, np.nanmin): only
visible for 0.0 and -0.0, which compare equal (docs/numpy_zero_ties24.md).

NumPy reduces a contiguous block (the operand in its memory order; a view
that is not one is copied into the iterator's buffer first, one block
where it has at most 8192 elements) with its AVX-512 loop
(loops_minmax.dispatch.c.src, simd_reduce_c): x[0] in all V lanes (V = 8
float64, 16 float32), elements 1 .. F*V (F = (n - 1) // V) to lane
(p - 1) % V, an update keeping the later element of a tie, the lanes
reduced by GCC's _mm512_reduce_max/min (a fixed preference of lanes,
`_prio`), then the tail serially: max/min keep the later element of a tie
there, fmax/fmin (nanmax/nanmin) the earlier one (the accumulator). Among
the elements equal to a zero result that is the element of greatest key
(numpy_zero_keys.contiguous_key: the tail above the lanes for max/min,
below them for fmax/fmin; in the lanes the preferred lane, then the later
element; x[0] just below the elements of the top lane, as it sits in every
lane before them). Other loops: numpy_zero_keys.py; which loop NumPy runs
for a reduction of one axis: `_one_axis_rule`.

The result is computed as before (the serial rule); `numpy_choice` adds a
second reduction, run only where that result is a zero (an RDom predicate
on it), of the greatest key (its low bit the element's sign bit) over the
operand, its elements computed again inline; the result is then the zero
of that sign. An element is read only where the reduction reads it (no
read of x[0] outside the loop: an empty array in an untaken branch reads
nothing).

The rule is that of NumPy's AVX-512 loops or of its AVX2 (X86_V3) ones
(V = 4 float64, 8 float32; their lanes' preference and the binary loop's
tail: numpy_zero_keys.ISA, docs/numpy_zero_ties28.md): where this NumPy
runs neither (`MODELLED` false: another CPU, NPY_DISABLE_CPU_FEATURES), no
second pass is made and the serial rule stays (docs/numpy_zero_ties24.md)."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.simplify import simplify
from pyhalide.var import RDom

from . import ops
from .affine_maps import affine_rows
from .arrayexpr import ArrayExpr, element_node, size_is
from .numpy_zero_keys import (
    BUFFER,
    ISA,
    MAX_CHUNK,
    NONE,
    POS,
    buffer_size,
    chunked_key,
    const,
    contiguous_key,
    line_key,
    strided_key,
    strided_rows_key,
    vector_lanes,
)
from .numpy_zero_views import lines_rule, part_view_rule
from .result_order import Unresolved
from .sum_order import array_layout, memory_order, view_of_new
from .values import Arr, Val
from .whole_views import is_whole_view

MODELLED = ISA is not None


def _layout(arr):
    """array_layout(arr), with an array the function makes (no image)
    whose recorded order (NumPy's: arraycode.materialize) is C or Fortran
    order as "C" or "F": `b = a * 1.0` of a Fortran-ordered a is."""
    layout = array_layout(arr)
    if not isinstance(layout, tuple) or len(layout) != 2 or not all(layout[1]) or \
            getattr(arr, "image", None) is not None or len(layout[0]) != arr.ndim:
        return layout
    order = tuple(layout[0])
    if order == tuple(range(arr.ndim)):
        return "C"
    return "F" if order == tuple(reversed(range(arr.ndim))) else layout


def strided_read(operand, axis) -> bool:
    """Whether NumPy reads `operand` along `axis` with a stride other than
    its element size: a new array where the axis is not innermost in its
    memory; a view of a strided array, or moving along another axis than
    its array's innermost (of size > 1), or with a step other than 1."""
    if operand.view is None:
        big = [k for k in _order(operand) if not size_is(operand.shape[k], 1)]
        return not big or big[-1] != axis
    arr, to_base = operand.view
    layout = _layout(arr)
    if layout not in ("C", "F"):
        return True
    probes = [ir.Variable(ir.INDEX, f"%zero_probe{k}") for k in range(operand.ndim)]
    name = probes[axis].name
    moving = []
    for k, m in enumerate(to_base(probes)):
        if ir.uses_var(m, name):
            if ir.uses_var(simplify(ir.Sub(m, probes[axis])), name):
                return True     # a step other than 1
            moving.append(k)
    if len(moving) != 1:
        return True
    k = moving[0]
    inner = range(k + 1, arr.ndim) if layout == "C" else range(k)
    return not all(size_is(arr.shape[j], 1) for j in inner)


def _one_axis_rule(cx, operand, axis, fm):
    """(kind, lines, unit, backwards) of NumPy's loop for max/min (fm: fmax/fmin) of one
    axis that `strided_read` says is not innermost with unit stride at compile
    time, or None where it is not modelled (the serial rule stays; so for
    max/min of an axis not innermost: it is NumPy's op(out, line)).
    kind "lines": lines, the axes of the binary loop's lines
    (`_inner_lines`); kind "reduce": the axis innermost in memory (each
    line a reduce), lines None; unit: None,
    or the run-time test that the innermost axis has unit stride (an
    argument that is a non-contiguous view: its layout (the strides' order,
    the call's key) gives the innermost axis, not its stride), NumPy's loop
    where it holds, else for the innermost axis the strided reduce's scalar
    8-unroll (strided_key), for lines the strided binary loop's; backwards:
    the innermost axis is read with a negative stride (lines: the later
    element). A view of part of an array: numpy_zero_views.part_view_rule."""
    view = operand.view
    if view is not None and not is_whole_view(operand):
        return part_view_rule(cx, operand, axis, fm)
    layout = _layout(view[0]) if view is not None and is_whole_view(operand) else None
    image = getattr(view[0], "image", None) if view is not None else None
    if isinstance(layout, tuple) and image is not None:
        perm, merges = layout[:2]   # (the axes longer than 1 by decreasing stride)
        if axis not in perm:
            return None
        unit = _unit_inner_stride(operand)
        if axis == perm[-1]:
            return "reduce", None, unit, False
        if not fm:
            return None
        return lines_rule(perm, merges, perm.index(axis), unit, _reversed_inner(operand))
    if not fm:
        return None
    lines = _inner_lines(operand, axis)
    return None if lines is None else ("lines", lines, None, False)


def _several_axes_rule(operand, axes):
    """(kind, axes, None, False) of NumPy's loop for a reduction of several axes
    but not all of a new array or a whole C or Fortran argument (one run of
    memory), in memory order: the reduced axes innermost: "reduce" (each
    line a contiguous reduce); the innermost axis kept: "lines", the kept
    axes inside the last reduced one (the binary loop's lines); else
    "rows", the reduced axes inside the last kept one (one contiguous
    reduce per row, from the result so far: chunked_key). None where the
    layout is not known."""
    view = operand.view
    if view is not None and not (is_whole_view(operand) and
                                 _layout(view[0]) in ("C", "F")):
        return None
    try:
        order, merges = memory_order(operand)
    except Unresolved:
        return None
    if not all(merges):
        return None
    last_kept = max(i for i, k in enumerate(order) if k not in axes)
    run = order[last_kept + 1:]
    if len(run) == len(axes):
        return "reduce", None, None, False
    if run:
        return "rows", run, None, False
    last = max(i for i, k in enumerate(order) if k in axes)
    return "lines", order[last + 1:], None, False


def _view_memory_order(operand):
    """memory_order(operand) (the axes in memory order and where they merge)
    of a view of a C or Fortran array (an argument's or one the function
    makes), else None (not a view, a view of array code, another layout, or
    strides not known)."""
    view = operand.view
    if view is None or isinstance(view[0], ArrayExpr) or _layout(view[0]) not in ("C", "F"):
        return None
    try:
        return memory_order(operand)
    except Unresolved:
        return None


def _view_rows_rule(operand, axes):
    """The rule of a reduction of several axes of a view of a C or Fortran
    array (an argument's or one the function makes) whose innermost axes in
    memory are reduced (one run of memory: `run`) and some reduced axis lies
    outside a kept one: NumPy reduces each row of `run` in turn into the
    result so far, unbuffered: ("rows", run) where the row has unit stride
    (chunked_key with rows as chunks), else ("strided rows", run), the
    strided reduce per row (strided_rows_key); measured on NumPy 2.4's AVX2
    build (docs/numpy_zero_ties28.md). None otherwise (a kept axis outermost:
    NumPy's buffered blocks, not modelled)."""
    found = _view_memory_order(operand)
    if found is None:
        return None
    order, merges = found
    last_kept = max(i for i, k in enumerate(order) if k not in axes)
    run = order[last_kept + 1:]
    if not run or len(run) == len(axes) or not all(merges[last_kept + 1:]):
        return None
    kind = "strided rows" if strided_read(operand, run[-1]) else "rows"
    return kind, run, None, False


def _view_block_rule(operand, axes):
    """The rule of a reduction of several axes of a view of a C or Fortran
    array whose kept axes are all outside the reduced ones in memory and
    whose innermost axis has unit stride: NumPy reduces each kept point's
    block of the reduced axes as a reduction of every axis of that block:
    one run of memory a contiguous reduce ("reduce"); rows that do not merge
    at one place NumPy's buffers of whole rows ("chunks", the rows' axes:
    chunked_key); measured on NumPy 2.4's AVX2 build
    (docs/numpy_zero_ties28.md). None otherwise (not modelled)."""
    found = _view_memory_order(operand)
    if found is None:
        return None
    order, merges = found
    first = len(order) - len(axes)
    run = order[first:]
    if set(run) != set(axes):
        return None
    if strided_read(operand, run[-1]):
        # (two reduced axes with a step: NumPy merges them where their strides
        # do at run time, a strided reduce; else its buffers of whole rows)
        if len(run) != 2 or affine_rows(operand) is None:
            return None
        return "strided block", run, None, False
    inside = list(merges[first:])
    if all(inside):
        return "reduce", None, None, False
    if inside.count(False) != 1:
        return None
    return "chunks", run[inside.index(False) + 1:], None, False


def _merge_test(cx, operand, pair, sizes):
    """The run-time test that axes pair = (u, v) of a view of a C or Fortran
    array merge (NumPy's iterator: stride of u == stride of v * size of v),
    the strides from the view's affine index map and the array's sizes."""
    arr = operand.view[0]
    rows = affine_rows(operand)
    dims = [ops.cast(ir.INDEX, ops.node_of(cx, s)) for s in arr.shape]
    fortran = _layout(arr) == "F"
    strides = []
    for j in range(arr.ndim):
        st = ir.index(1)
        for i in (range(j) if fortran else range(j + 1, arr.ndim)):
            st = ir.Mul(st, dims[i])
        strides.append(st)

    def stride(k):
        out = ir.index(0)
        for j in range(arr.ndim):
            if rows[j][k]:
                out = ir.Add(out, ir.Mul(ir.index(rows[j][k]), strides[j]))
        return out
    u, v = pair
    return ir.EQ(stride(u), ir.Mul(stride(v), sizes[v]))


def _view_lines_rule(cx, operand, axes):
    """The rule of a reduction of several axes of a view (an argument's, or
    one the function makes) whose one kept axis is inside all of them in
    memory: NumPy's binary loop over lines of that axis, each element
    visited in the reduced axes' order, as for a reduction of the last
    reduced axis alone (its unit-stride test, strided lines; measured on
    3-D views with steps, slices and reversals: /tmp/h1/msev.py of session
    26). None otherwise (not modelled)."""
    shaped = operand if operand.view is not None else view_of_new(operand)
    if shaped.view is None:
        return None
    try:
        order, _ = memory_order(shaped)
    except Unresolved:
        return None
    kept = [k for k in order if k not in axes]
    if len(kept) != 1 or order[-1] != kept[0]:
        return None
    rule = part_view_rule(cx, shaped, order[-2], True) if shaped is not operand else \
        _one_axis_rule(cx, shaped, order[-2], True)
    if rule is None or rule[0] != "lines" or tuple(rule[1]) != (kept[0],):
        return None
    return rule


def _inner_lines(operand, axis):
    """The axes inside `axis` in memory (outermost first) where NumPy's
    fmax/fmin of axis `axis` is its binary loop over contiguous lines of
    them (out[q] = op(out[q], x[j, q]) for j in order, q the flat position
    in the line): a new array or a whole C or Fortran argument, the axes
    inside `axis` one run of memory. None where that is not known."""
    if operand.view is not None and not (
            is_whole_view(operand) and _layout(operand.view[0]) in ("C", "F")):
        return None
    try:
        order, merges = memory_order(operand)
    except Unresolved:
        return None
    pos = order.index(axis)
    inner = order[pos + 1:]
    if not inner or not all(merges[pos + 1:]):
        return None
    return inner


def _whole_key(operand, p, n, sizes, lanes, fm):
    """The key of flat position p (memory order) among the n elements of a
    reduction of every axis of an operand of 2 or more axes: NumPy's
    iteration after it merges axes (memory_order's merges). One run of
    memory: a contiguous reduce, or for an argument with a step in its
    innermost axis (a run-time test) the strided reduce's 8-unroll. Rows
    that do not merge (one place): the buffered iteration (chunked_key;
    rows longer than BUFFER one by one). Else (more places, rows longer
    than MAX_CHUNK): the contiguous reduce in memory order (not NumPy's:
    docs/numpy_zero_ties25.md)."""
    contiguous = contiguous_key(p, n, lanes, fm)
    try:
        order, merges = memory_order(operand)
    except Unresolved:
        return contiguous
    if list(merges).count(False) == 1:
        split = list(merges).index(False) + 1
        row = const(1)
        for k in order[split:]:
            row = ir.Mul(row, ops.cast(POS, sizes[k]))
        key = ir.Select(ir.LE(row, const(MAX_CHUNK)),
                        chunked_key(p, n, buffer_size(row), lanes, fm), contiguous)
        unit = _unit_inner_stride(operand)
        if ISA == "avx2" and unit is not None:
            # (AVX2, measured: rows longer than BUFFER with a step are
            # each the strided reduce, unbuffered; docs/numpy_zero_ties28.md)
            long = ir.And(ir.GT(row, const(BUFFER)), ir.Not(unit))
            key = ir.Select(long, strided_rows_key(p, row, fm), key)
        return key
    unit = _unit_inner_stride(operand) if all(merges) else None
    return contiguous if unit is None else ir.Select(unit, contiguous, strided_key(p, n, fm))


def _reversed_inner(operand) -> bool:
    """Whether the operand is a whole argument whose innermost axis in
    memory has a negative stride (specialize.array_layout's third element)."""
    view = operand.view
    if view is None or not is_whole_view(operand):
        return False
    layout = array_layout(view[0])
    return isinstance(layout, tuple) and len(layout) > 2


def _unit_inner_stride(operand):
    """For a whole argument that is a non-contiguous view (its layout the
    strides' order), the run-time test that its innermost axis in memory
    has unit stride (false where it has a negative one: NumPy's reductions
    do not flip it, measured); None for other operands (their stride is
    known)."""
    view = operand.view
    if view is None or not is_whole_view(operand):
        return None
    layout, image = array_layout(view[0]), getattr(view[0], "image", None)
    if not isinstance(layout, tuple) or image is None or not layout[0]:
        return None
    if len(layout) > 2:     # a negative stride (the kernel reads a copy): not unit
        return ir.EQ(ir.index(0), ir.index(1))
    stride = image.dim(operand.ndim - 1 - layout[0][-1]).stride().node
    return ir.EQ(stride, ir.index(1))


def _row_unit_stride(operand):
    """For a 1-D view moving by +1 along the innermost axis in memory of an
    argument whose layout is its strides' order (`a[i]` of an argument
    `x[::2]` or `x[:, ::2]`, the same layout), the run-time test that this
    axis has unit stride (then NumPy's contiguous reduce); else None."""
    arr, to_base = operand.view
    layout, image = array_layout(arr), getattr(arr, "image", None)
    if not isinstance(layout, tuple) or len(layout) > 2 or image is None or not layout[0]:
        return None
    probe = ir.Variable(ir.INDEX, "%zero_probe0")
    mapped = to_base([probe])
    moving = [k for k, m in enumerate(mapped) if ir.uses_var(m, probe.name)]
    if moving != [layout[0][-1]] or \
            ir.uses_var(simplify(ir.Sub(mapped[moving[0]], probe)), probe.name):
        return None
    stride = image.dim(arr.ndim - 1 - moving[0]).stride().node
    return ir.EQ(stride, ir.index(1))


def _order(operand):
    """NumPy's visiting order of the operand's axes (outermost first): its
    memory order (C order where that is chosen at run time)."""
    try:
        return memory_order(operand)[0]
    except Unresolved:
        return tuple(range(operand.ndim))


NOT_MODELLED = object()


def choice_rule(cx, operand: ArrayExpr, axes, fm):
    """NumPy's loop for the float max/min (fm: fmax/fmin) of `operand` over
    `axes` (sorted), as `choice_key` takes it: None for the default keys
    (every axis; one axis innermost in memory with unit stride), a rule
    (kind, axes, unit, backwards) of _one_axis_rule / _several_axes_rule /
    part_view_rule, or NOT_MODELLED (the serial rule stays: MODELLED false,
    float16 / longdouble, a layout not modelled)."""
    nd = operand.ndim
    whole = len(axes) == nd
    if not MODELLED or operand.ty.dtype.itemsize not in (4, 8) or \
            not operand.ty.is_float():
        return NOT_MODELLED     # (float16, longdouble: other loops; complex: no zero ties)
    rule = None
    shaped = view_of_new(operand) if operand.view is None and len(axes) == 1 else operand
    if shaped is not operand and shaped.view is not None:
        # (a view of a new array, `(a * 2)[:, ::2]`, `(a[i] * 2)[::2]`: its
        # strides in that array)
        rule = part_view_rule(cx, shaped, axes[0], fm)
    elif not whole and len(axes) == 1 and strided_read(operand, axes[0]):
        rule = _one_axis_rule(cx, operand, axes[0], fm)
    elif not whole and len(axes) != 1:
        rule = _several_axes_rule(operand, axes) or _view_lines_rule(cx, operand, axes) or \
            _view_rows_rule(operand, axes) or _view_block_rule(operand, axes)
    else:
        return None
    return NOT_MODELLED if rule is None else rule


def choice_key(cx, operand: ArrayExpr, axes, fm, rule, idx, sizes, size_one=True):
    """(key, x): the key of element idx (index nodes, NumPy axis order) of
    `operand` among the elements of its result equal to a zero under
    `rule` (choice_rule): its rank in NumPy's loop times 2 plus its sign
    bit, the greatest key the element NumPy returns; x the element's node.
    sizes: the operand's sizes as index nodes. size_one: for a view of part
    of an array, the key of the view without an axis of size 1 at run time
    where one has (_without_size_one)."""
    nd = operand.ndim
    whole = len(axes) == nd
    strided = whole and nd == 1 and strided_read(operand, 0)
    vty = operand.ty
    t = vty.ir()
    lanes = vector_lanes(vty.dtype.itemsize)
    n, p = const(1), None
    for k in [k for k in _order(operand) if k in axes]:     # (memory order)
        s = ops.cast(POS, sizes[k])
        n = ir.Mul(n, s)
        i = ops.cast(POS, idx[k])
        p = i if p is None else ir.Add(ir.Mul(p, s), i)
    x = element_node(cx, operand.elem(idx), vty)
    neg = ir.LT(ir.Call(t, "copysign", (ir.Const(t, 1.0), x), ir.INTRINSIC), ir.Const(t, 0.0))
    if rule is None and whole and nd > 1:
        rank = _whole_key(operand, p, n, sizes, lanes, fm)
    elif rule is None:
        rank = strided_key(p, n, fm) if strided else contiguous_key(p, n, lanes, fm)
        unit = _row_unit_stride(operand) if strided and operand.view is not None else None
        if unit is not None:
            rank = ir.Select(unit, contiguous_key(p, n, lanes, fm), rank)
    else:
        kind, along, unit, backwards = rule
        other = None
        if kind == "lines":         # (max/min: the later in memory order)
            rank = line_key(p, idx, sizes, along, lanes) if fm else p
            other = line_key(p, idx, sizes, along, lanes, strided=True) if fm else p
            if backwards and ISA == "avx512":
                # (lines read backwards: AVX-512 the later, AVX2 as lines with
                # a step; measured)
                other = p
        elif kind == "chunks":
            row = const(1)
            for k in along:
                row = ir.Mul(row, ops.cast(POS, sizes[k]))
            rank = ir.Select(ir.LE(row, const(MAX_CHUNK)),
                             chunked_key(p, n, buffer_size(row), lanes, fm),
                             contiguous_key(p, n, lanes, fm))
        elif kind == "strided block":
            row = ops.cast(POS, sizes[along[1]])
            rank = ir.Select(_merge_test(cx, operand, along, sizes), strided_key(p, n, fm),
                             ir.Select(ir.LE(row, const(MAX_CHUNK)),
                                       chunked_key(p, n, buffer_size(row), lanes, fm),
                                       contiguous_key(p, n, lanes, fm)))
        elif kind in ("rows", "strided rows"):
            size = const(1)
            for k in along:
                size = ir.Mul(size, ops.cast(POS, sizes[k]))
            rank = strided_rows_key(p, size, fm) if kind == "strided rows" else \
                ir.Select(ir.LE(size, const(MAX_CHUNK)), chunked_key(p, n, size, lanes, fm),
                          ir.Sub(const(0), p) if fm else p)
        else:                       # the axes innermost: unit stride or not
            rank, other = contiguous_key(p, n, lanes, fm), strided_key(p, n, fm)
        rank = rank if unit is None else ir.Select(unit, rank, other)
    key = ir.Add(ir.Mul(rank, const(2)), ir.Select(neg, const(1), const(0)))
    if size_one and rule is not None and nd > 1 and operand.view is not None and \
            not is_whole_view(operand) and not isinstance(operand.view[0], ArrayExpr):
        key = _without_size_one(cx, operand, axes, fm, idx, sizes, key)
    return key, x


def _without_size_one(cx, operand, axes, fm, idx, sizes, key):
    """`key` (of a rule of a view of part of an array) where no axis has
    size 1 at run time; where exactly one axis has size 1, the key of the
    view without that axis (NumPy's iterator drops it, which can change its
    loop: lines that merge, a strided line); else NONE (the serial result
    stays)."""
    def only(k):
        cond = ir.Const(ir.Bool(), True)
        for j, s in enumerate(sizes):
            cond = ir.And(cond, ir.EQ(s, ir.index(1)) if j == k else ir.GT(s, ir.index(1)))
        return cond
    out = const(NONE)
    for k in range(operand.ndim):
        rest = [a - (a > k) for a in axes if a != k]
        if not rest or operand.ndim == 2 and k in axes:
            continue        # (2-D: one element per result, no tie)
        smaller = _drop_axis(operand, k)
        rule = choice_rule(cx, smaller, rest, fm)
        if rule is NOT_MODELLED:
            continue
        drop = idx[:k] + idx[k + 1:], sizes[:k] + sizes[k + 1:]
        alt = choice_key(cx, smaller, rest, fm, rule, *drop, size_one=False)[0]
        out = ir.Select(only(k), alt, out)
    return ir.Select(only(None), key, out)


def _drop_axis(operand, k):
    """The view `operand` without its axis k (at index 0)."""
    arr, to_base = operand.view

    def full(idx):
        return list(idx[:k]) + [ir.index(0)] + list(idx[k:])
    return ArrayExpr(operand.shape[:k] + operand.shape[k + 1:], operand.ty,
                     lambda idx: operand.elem(full(idx)), operand.node,
                     view=(arr, lambda idx: to_base(full(idx))))


def signed_zero(val, key, t):
    """val, or where it is a zero, the zero of the sign bit of `key` (a
    choice_key; NONE: val)."""
    zero = ir.Const(t, 0.0)
    sign = ir.EQ(ir.BitAnd(key, const(1)), const(1))
    signed = ir.Select(sign, ir.Const(t, -0.0), zero)
    # (NONE where a zero result has no key: choice_key's rule not valid at
    # run time; the serial result stays)
    return ir.Select(ir.And(ir.EQ(val, zero), ir.NE(key, const(NONE))), signed, val)


def numpy_choice(ac, operand: ArrayExpr, out: ArrayExpr, axes, fm, name, node, group=None,
                 join_out=False):
    """`out` (the float max/min of `operand` over `axes` (sorted), by the
    serial rule) with NumPy's sign where an element of it is a zero; fm:
    fmax/fmin (nanmax/nanmin). `group`: the sum_part group of the Funcs
    that read the operand (a local array read only by them stays inlined);
    join_out: a group of the Func `out` views and this pass's (shared_group).
    `out` itself where NumPy's rule is not modelled here (choice_rule)."""
    rule = choice_rule(ac.cx, operand, axes, fm)
    if rule is NOT_MODELLED:
        return out
    nd = operand.ndim
    if join_out:
        group = shared_group(out)
    cx = ac.cx
    cx.cur_node = node
    loc = cx.smap.loc(node)
    vty = operand.ty
    t = vty.ir()
    sizes = [ops.cast(ir.INDEX, ops.node_of(cx, s)) for s in operand.shape]
    kept = [k for k in range(nd) if k not in axes]
    arr = Arr(name + "_zeros", ir.Int(64), [operand.shape[k] for k in kept], "local", loc)
    f = ac.new_func(name + "_zeros", arr)
    vars_ = [ac.defs.axis_var(arr, j) for j in range(len(kept))]
    fkey = tuple(reversed(vars_))
    ac.emitter.define(f, fkey, (const(NONE),), [], None, loc, pure=True, label=name)
    rdom = RDom([(0, sizes[k]) for k in reversed(axes)], "r_" + f.name())
    rvars = {k: rdom[j] for j, k in enumerate(reversed(axes))}
    idx = [rvars[k].node if k in rvars else vars_[kept.index(k)].node for k in range(nd)]
    v = element_node(cx, out.elem([w.node for w in vars_]), vty)
    zero = ir.Const(t, 0.0)
    key, x = choice_key(cx, operand, axes, fm, rule, idx, sizes)
    new = ir.Max(f[fkey].node if fkey else f[()].node, key)
    ac.defs.mark_emitted([new], f)
    loops = [(SimpleNamespace(name=f"axis{k}"), rv) for k, rv in rvars.items()]
    # (the element's test a predicate of its own: a branch, the key computed
    # for the zeros only)
    # (a typing run inside a loop reads placeholders: its Func is dropped)
    preds = [] if cx.typing else [ir.EQ(v, zero), ir.EQ(x, zero)]
    ac.emitter.define(f, fkey, (new,), preds, rdom, loc, label=name,
                      loops=loops)
    base = getattr(f, "base", f)
    if group is not None:
        base.sum_part = group
    base.default_hint = _rarely_run
    arr.func = f
    arr.defined = True
    arr.versions.append(f)

    def elem(i):
        val = element_node(cx, out.elem(i), vty)
        args = tuple(Expr.wrap(j) for j in reversed(i))
        return Val(signed_zero(val, (f[args] if args else f[()]).node, t), vty)
    return ArrayExpr(out.shape, vty, elem, node)


def _rarely_run(f):
    """The default schedule of the pass's Func: its update's loops plain
    (ForKind.FALLBACK: LLVM neither unrolls nor vectorizes them, nor does
    specialize_rows copy them): they run only where a result is a zero.
    Returns False: still computed at root."""
    d = f.update(0).definition().schedule
    if d.splits or any(x.kind != "serial" for x in d.dims):
        return False
    for i, x in enumerate(d.dims):
        d.dims[i] = dataclasses.replace(x, kind=ir.ForKind.FALLBACK)
    return False


def shared_group(out: ArrayExpr):
    """A sum_part group (specialize._inlinable) holding the Func of the
    reduction `out` views, for numpy_choice's Func to join: a local array
    both read stays inlined."""
    group = (object(), frozenset())
    f = out.view[0].func
    getattr(f, "base", f).sum_part = group
    return group
