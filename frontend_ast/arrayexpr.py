"""Array values of NumPy-style code: an array that is not stored under its
own Func (yet) is its shape, its element type and its elements as a
function of an index. Element-wise operations compose these functions
(fusion: no temporary arrays); broadcasting follows NumPy's rules."""
from __future__ import annotations

import re

import numpy as np

from pyhalide import checks, ir
from pyhalide.expr import cast_node

from . import complex_values, ops, unions
from .call_time_reach import add_shape_check, call_time_reach, run_time_gated
from .values import Val, const_val, exact_aff, fresh, with_type_range


class ArrayExpr:
    """An array-valued expression.

    Fields:
      shape  [Val] the sizes, NumPy axis order (Python ints, call-time static)
      ty     the element Ty (a NumPy dtype)
      elem   fn([index node]) -> Val: the element at an index (int32 nodes,
             NumPy axis order, each in range of its axis)
      view   (Arr, to_base) when the array is a view of a named array:
             to_base([index node]) -> [index node of the array]; None for a
             new array (the result of an operation)
      node   the AST node the value comes from (errors are located there)
      order  a new array's axes outermost in memory first where NumPy's
             result is not C-ordered (result_order.py), else None
    """

    def __init__(self, shape, ty, elem, node, view=None, readonly=None, order=None):
        self.shape = list(shape)
        self.ty = ty
        self.elem = elem
        self.node = node
        self.view = view
        self.readonly = readonly    # why NumPy gives this value read-only, or None
        self.order = order

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self):
        return f"<ArrayExpr {self.ty!r} {self.ndim}-D{' view' if self.view else ''}>"


def size_is(v: Val, n: int) -> bool:
    """Whether a size is the constant n."""
    return v.is_const and v.const == n


def same_size(cx, a: Val, b: Val) -> bool:
    """Whether two sizes are provably equal (constants, or equal affine forms)."""
    if a is b:
        return True
    if a.is_const and b.is_const:
        return a.const == b.const
    ea = exact_aff(a)
    return ea is not None and ea == exact_aff(b)


def broadcast_shapes(cx, shapes, node, empty_read=None, checked: bool = True) -> list:
    """The broadcast shape of several shapes (NumPy's rule: right-aligned, a
    size-1 axis stretches). Where two sizes are neither provably equal nor
    constant, the result is decided at call time (the other size where one
    is 1), and sizes that differ with neither 1 raise NumPy's ValueError
    (`checked`: that check is registered; a caller that only reads the shape
    of operands whose operation registers it passes False).
    `empty_read` (a list): the caller reads an operand only where each size
    appended to it is above 0 (lift: lazily), so a check made at run time
    under an `if` of data needs no call-time check where that size is 0
    (call_time_reach.IfEmpty: a clamped read of an empty operand is outside
    it)."""
    nd = max((len(s) for s in shapes), default=0)
    out = []
    for k in range(nd):
        sizes = [s[len(s) - nd + k] for s in shapes if len(s) - nd + k >= 0]
        chosen = None
        for s in sizes:
            if size_is(s, 1):
                continue
            if chosen is None:
                chosen = s
            elif not same_size(cx, chosen, s):
                if chosen.is_const and s.is_const:
                    raise cx.err(node, f"operands could not be broadcast together with shapes "
                                       f"{_shape_text(shapes)}")
                if checked:
                    _check_broadcast(cx, chosen, s, node, empty_read)
                if never_one(chosen) and never_one(s):
                    continue        # equal, or the check raises
                one = const_val(1)
                chosen = ops.select(cx, cx.compare("==", chosen, one), s, chosen, lazy=False)
        out.append(chosen if chosen is not None else sizes[0])
    return out


def _check_broadcast(cx, a: Val, b: Val, node, empty_read) -> None:
    """Registers NumPy's ValueError where sizes a and b do not broadcast: at
    call time, or where the statement runs under an `if` of data (b joins
    `empty_read` there, broadcast_shapes)."""
    check = Broadcastable(a, b, cx.smap.loc(node), call_time_reach(cx))
    if run_time_gated(cx):
        if empty_read is not None and not lazy_in_loops(cx, b):
            empty_read = None
        if empty_read is not None:
            empty_read.append(b)
        add_shape_check(cx, check, lambda: _broadcasts(cx, a, b), node,
                        "operands could not be broadcast together",
                        () if empty_read is not None else (b,))
    else:
        cx.static_checks.append(check)


def lazy_in_loops(cx, n: Val) -> bool:
    """Whether an element read lazily where size n is above 0 may be made so
    here: outside loops, or n fixed for a call (checks.fixed_for_call: the
    read stays lazy in lifted array code, checks._Strip, and its element
    loop gets a copy without the test, lowering/unswitch_lazy.py; a test of
    a size that changes in the loop would be a branch per element)."""
    return not cx.in_loops() or checks.fixed_for_call(ops.node_of(cx, n))


def _broadcasts(cx, a: Val, b: Val) -> Val:
    """`a == b or a == 1 or b == 1`: sizes a and b broadcast."""
    one = const_val(1)
    return cx.logical_or(cx.logical_or(cx.compare("==", a, b), cx.compare("==", a, one)),
                         cx.compare("==", b, one))


_INPUT_AXIS = re.compile(r".+\.shape\[\d+\]$")


def never_one(v: Val) -> bool:
    """Whether a size is surely not 1 when it is broadcast: a constant other
    than 1, or an input array's axis (the specialization key has the axes of
    size 1, which are constant 1)."""
    if v.is_const:
        return v.const != 1
    exact = exact_aff(v)
    if exact is None or exact.c != 0 or len(exact.terms) != 1:
        return False
    (sym, k), = exact.terms.items()
    return k == 1 and bool(_INPUT_AXIS.match(sym))


def _shape_text(shapes) -> str:
    def one(s):
        items = [str(v.const) if v.is_const else "n" for v in s]
        return "(" + ",".join(items) + ("," if len(items) == 1 else "") + ")"
    return " ".join(one(s) for s in shapes)


class Broadcastable:
    """Call-time check that two sizes broadcast (equal, or one of them 1),
    raising NumPy's ValueError otherwise; made only where `reached`
    (Context.loops_run_at_call: the enclosing loops run in this call) is
    None or true."""

    def __init__(self, a, b, loc, reached=None):
        self.a, self.b, self.loc, self.reached = a, b, loc, reached

    def __call__(self, env):
        if self.reached is not None and not self.reached(env):
            return
        x, y = self.a.static(env), self.b.static(env)
        if x != y and 1 not in (x, y):
            where = f" ({self.loc.file}:{self.loc.line})" if self.loc is not None else ""
            raise ValueError(f"operands could not be broadcast together: sizes {x} and {y}"
                             f"{where}")


def broadcast_index(operand_shape, idx, shape=None, cx=None, gated=False):
    """The index of an operand of shape operand_shape at the broadcast
    index idx (right-aligned; a size-1 axis is read at 0). Given the
    broadcast `shape` (and `cx`), an axis whose size is 1 only at call time
    is read at 0 then too. `gated`: the operation is under an `if`, so its
    Broadcastable check may not run where the array is still computed whole
    (the branch not taken): an axis not provably the broadcast size is
    clamped into the operand even where it is never 1."""
    k = len(operand_shape)
    if k == 0:
        return []
    tail = list(idx[len(idx) - k:])
    out = []
    for j, (s, i) in enumerate(zip(operand_shape, tail)):
        if size_is(s, 1):
            out.append(ir.index(0))
            continue
        full = shape[len(shape) - k + j] if shape is not None else None
        if full is None or same_size(cx, s, full) or never_one(s) and not gated:
            # (a size that is never 1 is the broadcast size, or the call-time
            # check raises before anything is read: i is inside it, unclamped,
            # so that the vectorizer sees a dense load)
            out.append(i)
            continue
        # i is below the broadcast size, which is this size unless that is 1.
        # An int32 size (an input's extent, a slice's length) clamps into
        # [0, size - 1], so that bounds inference sees the read inside the
        # array (the clamp at 0 matters only where the size is 0: nothing is
        # read then); another (a call-time Python int) selects index 0 where
        # it is 1
        n = ops.node_of(cx, s)
        if n.type == ir.INDEX:
            out.append(ir.Max(ir.Min(i, ir.Sub(n, ir.index(1))), ir.index(0)))
        else:
            one = ir.Const(n.type, 1)
            out.append(ir.Select(ir.EQ(n, one), ir.index(0), i))
    return out


def placeholder(ty, cx=None) -> Val:
    """An element of type ty with an unknown value (for result types; `cx`
    locates errors of a complex one)."""
    if ty.is_complex():
        return complex_values.placeholder(cx, ty, placeholder)
    return with_type_range(Val(ir.Variable(ty.ir(), fresh("elem")), ty))


def under_condition(cx) -> bool:
    """Whether the code being evaluated is under an `if` whose condition is
    not a constant (Context.assumed): Python may not run it."""
    return any(c is not None and not c.is_const for c, _ in cx.assumed)


def clamped_into(cx, i, size: Val) -> ir.Expr:
    """Index i clamped into [0, size - 1]: the read of an operand whose size
    a gated call-time check (call_time_reach.add_loop_gated, reads_inside)
    would have proved, inside the operand also where the check is not made
    (the branch not taken). Where the check holds, i itself."""
    if size.is_const:
        return ir.Max(ir.Min(i, ir.index(int(size.const) - 1)), ir.index(0))
    n = cast_node(ir.INDEX, ops.node_of(cx, size))
    return ir.Max(ir.Min(i, ir.Sub(n, ir.index(1))), ir.index(0))


def lift(cx, fn, operands, node, probe=None, ufunc=False):
    """fn applied element-wise: operands are Vals (scalars, broadcast) and
    ArrayExprs; fn(cx, *element Vals) -> Val is the scalar operation. A
    scalar result when no operand is an array, and for a `ufunc` (a NumPy
    ufunc or operator: its 0-d result is a NumPy scalar) when all are 0-d.

    `probe`, the NumPy function of the operation, is called at call time on
    empty arrays of the operands' dtypes and the Python-number operands'
    values, so that what NumPy raises for the operands themselves (a Python
    int out of range of the array's dtype: OverflowError) is raised whether
    or not any element is computed."""
    arrays = [o for o in operands if isinstance(o, ArrayExpr)]
    if not arrays:
        return fn(cx, *operands)
    empty_read = None if any(a.ty.is_complex() for a in arrays) else []
    shape = broadcast_shapes(cx, [a.shape for a in arrays], node, empty_read)
    gated = under_condition(cx)
    if probe is not None and any(_weak_static(o) for o in operands) and \
            not any(isinstance(o, Val) and o.union for o in operands):
        cx.static_checks.append(_ProbeNumpy(probe, operands, call_time_reach(cx)))
    probe = [placeholder(o.ty, cx) if isinstance(o, ArrayExpr) else o for o in operands]
    cx.cur_node = node

    def apply(vals):
        # a scalar whose Python/NumPy type depends on data (a union) is
        # distributed over; the array's dtype must not depend on it
        out = unions.distribute(cx, lambda *v: fn(cx, *v), *vals)
        if out.union:
            raise cx.err(node, "the dtype of this array would depend on run-time data (a "
                               "scalar operand is a Python or a NumPy number depending on "
                               "the data)",
                         hint="convert the scalar to one type first (float(...), "
                              "np.float64(...))")
        return out

    ty = apply(probe).ty

    def elem(idx):
        vals = [_unless_empty(cx, o, o.elem(broadcast_index(o.shape, idx, shape, cx, gated)),
                              empty_read)
                if isinstance(o, ArrayExpr) else o for o in operands]
        cx.cur_node = node
        out = apply(vals)
        if out.ty != ty:
            raise cx.err(node, f"internal error: element type {out.ty!r} differs from the "
                               f"array's {ty!r}")
        return out

    if ufunc and not shape:
        return elem([])
    order = RESULT_ORDER["fn"](arrays, len(shape))
    return ArrayExpr(shape, ty, elem, node, order=order)


def _unless_empty(cx, o: ArrayExpr, v: Val, empty_read) -> Val:
    """An operand's element v, computed only where o's sizes among
    `empty_read` (broadcast_shapes: checked at run time, may be 0) are above
    0, 0 elsewhere (lazily: bounds inference then needs o's reads only where
    it has elements; where the broadcast check passes and o is empty, the
    result is empty and nothing is read)."""
    sizes = [n for n in o.shape if any(n is e for e in empty_read or ())]
    if not sizes or cx.typing or v.node is None:
        return v
    conds = [ir.LT(ir.index(0), cast_node(ir.INDEX, ops.node_of(cx, n))) for n in sizes]
    zero = ir.Const(v.node.type, False if v.node.type.is_bool() else 0)
    lo = None if v.lo is None else min(v.lo, 0)
    hi = None if v.hi is None else max(v.hi, 0)
    return Val(ir.lazy_select(ir.conjunction(conds), v.node, zero), v.ty, lo, hi,
               risky=v.risky)


# The memory order NumPy allocates an element-wise result in
# (result_order.result_order registers itself here when imported, as
# array_reduce does before any function is compiled: that module reads the
# sum order, which reads array values, so arrayexpr cannot import it)
RESULT_ORDER = {"fn": lambda operands, ndim: None}


def k_order(a: ArrayExpr):
    """The memory order NumPy gives a new array made like the array value
    `a` with order='K' (np.copy, np.array, np.zeros_like, np.cumsum): the
    order of a's own memory; None for C order or a complex `a` (its parts
    are separate arrays)."""
    if a.ndim < 2 or a.ty.is_complex():
        return None
    return RESULT_ORDER["fn"]([a], a.ndim)


def _weak_static(v) -> bool:
    return isinstance(v, Val) and not v.union and v.ty.weak and v.ty.kind == "int" and \
        v.static is not None


class _ProbeNumpy:
    """Call-time check: NumPy's operation on empty arrays of the array
    operands' dtypes and the static scalar operands' values (raising what
    NumPy raises for them), where the statement runs (`reached`: as
    Context.reached_at_call). A scalar operand whose own computation raises
    is no failure of the operation: its node raises where the kernel
    computes it (context.deferred_static)."""

    def __init__(self, probe, operands, reached=None):
        self.probe = probe
        self.reached = reached or None
        self.args = [("array", o.ty.dtype) if isinstance(o, ArrayExpr) else
                     (("static", o.static) if o.static is not None else ("sample", o.ty.sample(1)))
                     for o in operands]

    def __call__(self, env):
        if self.reached is not None and not self.reached(env):
            return
        try:
            vals = [np.empty(0, x) if kind == "array" else (x(env) if kind == "static" else x)
                    for kind, x in self.args]
        except Exception:
            return
        with np.errstate(all="ignore"):
            self.probe(*vals)


def element_node(cx, v: Val, ty) -> ir.Expr:
    """The IR of an element value stored in an array of type ty."""
    if v.ty != ty:
        v = ops.cast_to(cx, v, ty)
    return ops.node_of(cx, v)
