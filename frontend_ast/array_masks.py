"""Boolean masks in assignments: which masked reads may be part of the
value (`a[m] = f(a[m], b[m], scalars)`, `a[m] op= g(b[m])`), the sizes that
stand for the number of selected elements, and the call-time checks of a
mask's shape.

NumPy evaluates such a value over the k selected elements (an array whose
size depends on data). Compiled, the value is evaluated at every element of
the region the mask covers and written where the mask holds; that is
NumPy's result when
  - every masked read of the value uses the target's mask: a textually equal
    mask expression (nothing is written between the evaluations of the two,
    and `:=` is refused, so they have equal values), and
  - the value is built from the masked reads element by element (operators,
    element-wise NumPy functions, .astype/.clip), with scalars and arrays
    whose size is 1 along the selected axes.
The selected axes of one statement's mask get sizes of their own
(`selection_sizes`: symbols that no other size equals), shared by its reads
and its target, so that an array of another size in the value is refused
(array_store.selection_fits) instead of broadcast silently."""
from __future__ import annotations

import ast
import itertools
import weakref

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import calls, ops
from .arrayexpr import same_size
from .call_time_reach import IfReached
from .ranges import INT32, Aff
from .refs import BuiltinRef
from .types import PY_INT
from .values import DtypeVal, ModuleRef, Val

_SIZES = weakref.WeakKeyDictionary()     # Context -> {(id(stmt), mask text): [size Val]}
_AXES = weakref.WeakKeyDictionary()      # Context -> {selection symbol: the mask's axis size}
_ids = itertools.count()
_METHODS = ("astype", "clip")            # element-wise methods of a masked value
_BUILTINS = ("abs",)                     # element-wise builtins


def text(node) -> str:
    """A mask expression's text, without positions (equal masks compare equal)."""
    return ast.dump(node)


def target_of(stmt):
    """The subscript an assignment statement writes through, or None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        t = stmt.targets[0]
    elif isinstance(stmt, ast.AugAssign):
        t = stmt.target
    else:
        return None
    return t if isinstance(t, ast.Subscript) else None


def in_masked_value(b, node, mask_node) -> bool:
    """Whether the masked read `node` (a subscript whose item `mask_node` is
    a boolean mask) is part of the value of the statement being executed
    that assigns through a textually equal mask, reached from the value by
    element-wise operations only."""
    stmt = b.cx.stmt
    target = target_of(stmt)
    if target is None:
        return False
    items = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    if not any(text(it) == text(mask_node) for it in items):
        return False
    path = _path(stmt.value, node)
    return path is not None and all(_elementwise(b, path, k) for k in range(len(path)))


def _path(root, node):
    """[(parent, child)] from root down to node, or None if node is not in root."""
    if root is node:
        return []
    for child in ast.iter_child_nodes(root):
        rest = _path(child, node)
        if rest is not None:
            return [(root, child)] + rest
    return None


def _elementwise(b, path, k) -> bool:
    """Whether path[k]'s parent computes element by element from its child."""
    parent, child = path[k]
    if isinstance(parent, ast.BinOp):
        return not isinstance(parent.op, ast.MatMult)
    if isinstance(parent, (ast.UnaryOp, ast.Compare, ast.keyword)):
        return True                      # (a keyword: an argument of the call above it)
    if isinstance(parent, ast.Attribute):        # x.astype(...): the call above it
        return k > 0 and path[k - 1][1] is parent and isinstance(path[k - 1][0], ast.Call) \
            and path[k - 1][0].func is parent
    if not isinstance(parent, ast.Call):
        return False
    f = parent.func
    if child is f:
        return isinstance(f, ast.Attribute) and f.attr in _METHODS
    fn = b.ev(f)
    if isinstance(fn, ModuleRef):
        return fn.obj in calls.ELEMENTWISE
    if isinstance(fn, BuiltinRef):
        return fn.name in _BUILTINS
    return isinstance(fn, DtypeVal)


def selection_sizes(cx, mask_node, mask_shape) -> list:
    """The sizes standing for the selected axes of the mask `mask_node` in
    the statement being executed: one size per axis of the mask, equal only
    to itself (a symbol of its own), bounded by the mask's axis size (whose
    call-time value it carries; it is never the size of an array that is
    stored)."""
    memo = _SIZES.setdefault(cx, {})
    key = (id(cx.stmt), text(mask_node))
    got = memo.get(key)
    if got is None or len(got[0]) != len(mask_shape):
        got = ([_selection_size(cx, n) for n in mask_shape], cx.stmt)
        memo[key] = got                  # the statement kept alive while its id is a key
    return got[0]


def _selection_size(cx, n: Val) -> Val:
    sym = f"len(mask#{next(_ids)})"
    hi = n.hi if n.hi is not None else INT32[1]
    node = cast(ir.INDEX, ops.node_of(cx, n))
    cx.syms.add(sym, 0, hi)
    cx.sym_nodes[sym] = node
    cx.sym_static[sym] = n.static
    _AXES.setdefault(cx, {})[sym] = n
    return Val(node, PY_INT, 0, hi, [Aff.sym(sym)], [Aff.sym(sym)], static=n.static)


def mask_axis_size(cx, size: Val):
    """The size of the mask's axis a selection size (selection_sizes)
    stands for, or None if `size` is not one. Where the mask fits the
    array it indexes (array_index.masked_select checks it, at compile or
    call time), this is the indexed axis's size: every element of that
    axis is a candidate of the selection."""
    if not is_selection(cx, size) or len(size.lbs) != 1:
        return None
    return _AXES.get(cx, {}).get(next(iter(size.lbs[0].terms)))


def is_selection(cx, size: Val) -> bool:
    """Whether a size stands for selected elements (selection_sizes)."""
    return any(x.c == 0 and len(x.terms) == 1 and next(iter(x.terms)).startswith("len(mask#")
               for x in size.lbs)


# call-time checks ---------------------------------------------------------------------------
def call_time_check(bld, check, node):
    """Add a check made when the function is called: only for a statement
    that runs whenever its loop iteration does (not inside an `if`), made
    only where its enclosing loops run (IfReached). bld: anything with .cx
    and .scope (the builder, or the exprs.Expressions)."""
    if not bld.scope.unconditional():
        raise bld.cx.err(node, "this assignment needs a check of array shapes or types when "
                               "the function is called, which is not made inside an `if`",
                         hint="move the assignment out of the `if` (np.where(cond, new, old) "
                              "chooses between values)")
    reached = bld.cx.loops_run_at_call()
    bld.cx.static_checks.append(check if reached is None else IfReached(check, reached))


def mask_fits(bld, mshape, shape, node, first_axis=0):
    """A boolean index has the shape of the axes it indexes (compile time
    where the sizes are known, else NumPy's IndexError at call time)."""
    if not all(same_size(bld.cx, m, s) for m, s in zip(mshape, shape)):
        call_time_check(bld, MaskShape(mshape, shape, bld.cx.smap.loc(node), first_axis), node)


class MaskShape:
    """Call time: a boolean index has the shape of the axes it indexes
    (NumPy's IndexError otherwise)."""

    def __init__(self, mshape, shape, loc, first_axis=0):
        self.mshape, self.shape, self.loc, self.first = mshape, shape, loc, first_axis

    def __call__(self, env):
        for axis, (m, s) in enumerate(zip(self.mshape, self.shape)):
            mv, sv = int(m.static(env)), int(s.static(env))
            if mv != sv:
                where = f" ({self.loc.file}:{self.loc.line})" if self.loc is not None else ""
                raise IndexError(f"boolean index did not match indexed array along axis "
                                 f"{axis + self.first}; size of axis is {sv} but size of "
                                 f"corresponding boolean axis is {mv}{where}")
