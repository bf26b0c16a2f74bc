"""NumPy-style array code: named arrays as array values (views), element-wise
operators, and array values stored as Funcs when they are named or returned."""
from __future__ import annotations

import operator

import numpy as np

from pyhalide import ir

from . import array_complex, calls, ops
from . import types as T
from .arrayexpr import ArrayExpr, element_node, k_order, lift, same_size
from .lifted import LiftedFunc
from .result_order import chosen
from .values import Arr, Val, fresh, with_type_range
from .whole_views import is_whole_view

_PYTHON_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul,
                     "/": operator.truediv, "//": operator.floordiv, "%": operator.mod,
                     "**": operator.pow, "<<": operator.lshift, ">>": operator.rshift,
                     "&": operator.and_, "|": operator.or_, "^": operator.xor,
                     "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
                     "==": operator.eq, "!=": operator.ne}


class ArrayCode:
    """Array values (arrayexpr.ArrayExpr) of whole-array code.

    Reads elements of named arrays through `defs` (their current Func
    version, the read noted so that a later write makes a new version);
    stores array values as Funcs made by `emitter`; inside loops
    (`state`), those Funcs are lifted over the loops (lifted.py).
    """

    def __init__(self, cx, state, emitter, defs, arrays):
        self.cx, self.state, self.emitter, self.defs = cx, state, emitter, defs
        self.arrays = arrays    # element reads and writes (arrays.ArrayAccess)
        # stored arrays whose elements have run-time checks: computed whole
        # (not only where read), so that they raise where Python raises
        self.checked = []       # [Arr]
        # the body of a loop in phase mode while it runs (carried_phases.PhaseRun)
        self.phase_run = None
        # sorted whole arrays, shared by the calls that sort them (array_sort.py)
        self.sorted = {}
        # the Funcs lifted over loops (lifted_pins.py reads their lifted Vars)
        self.lifted = []        # [LiftedFunc]

    # Funcs of array values -----------------------------------------------------------------
    def new_func(self, name, owner=None):
        """A Func for an array value; inside loops, lifted over them (one
        value per iteration: lifted.LiftedFunc)."""
        f = self.emitter.new_func(name, owner)
        if not self.state.loops:
            return f
        taken = set(self.emitter.input_names) | {"x", "y", "z", "w"}
        lf = LiftedFunc(f, self.state.loops, taken, self.check_lifted, self.cx)
        if not self.cx.typing:
            self.lifted.append(lf)
        return lf

    def check_lifted(self, nodes):
        """A lifted Func is computed before its loop nest: it must not read
        an array the nest writes, nor a scalar a loop carries."""
        if self.cx.typing:
            return
        node = self.cx.cur_node
        for name in ir.free_vars(nodes):
            g = self.state.ph_owner.get(name)
            if g is not None:
                raise self.cx.err(node, f"inside a loop, array code cannot use "
                                        f"{', '.join(repr(n) for n in g.names[:g.base])}, "
                                        f"which the loop changes from one iteration to the next",
                                  hint="compute the array values from arrays and from values "
                                       "that do not change in the loop")
        written = {}
        for cell in self.state.nest_writes:
            arr = cell.arr
            for f in arr.versions:
                written[f.name()] = arr
            if arr.kind == "input":
                written[arr.image.name()] = arr
        for c in ir.find_calls(list(nodes)):
            arr = written.get(c.name)
            if arr is not None:
                name = arr.name.removesuffix(".real").removesuffix(".imag")   # a complex part
                raise self.cx.err(node, f"inside a loop, array code cannot read {name!r}, "
                                        f"which the same loop writes",
                                  hint="write the loop with element assignments (a[i] = ...), "
                                       "or compute the array values in a separate loop")

    # array values -------------------------------------------------------------------------
    def outside_loops(self, node, what="whole-array operations"):
        if self.state.loops:
            raise self.cx.err(node, f"{what} are compiled outside loops only",
                              hint="index single elements inside the loop (a[i]), or move the "
                                   "array statement out of the loop")

    def as_array(self, v, node):
        """An Arr or ArrayExpr as an ArrayExpr; None for anything else."""
        if isinstance(v, ArrayExpr):
            return v
        if isinstance(v, Arr):
            return self.view_of(v, node)
        return None

    def view_of(self, arr: Arr, node) -> ArrayExpr:
        """The whole of a named array as an array value (its elements read
        when the value is used, from the version current then)."""
        return ArrayExpr(arr.shape, arr.ty, lambda idx: self.read_element(arr, idx), node,
                         view=(arr, lambda idx: list(idx)))

    def read_element(self, arr: Arr, idx) -> Val:
        """arr[idx] for int32 index nodes known to be in range (inside a
        loop, a write of this iteration at that index is seen, as by
        arrays.ArrayAccess.read)."""
        if isinstance(arr, array_complex.ComplexArr):
            return array_complex.read_element(self, arr, idx)
        if arr.kind == "input":
            v = self.defs.element_call(arr, list(idx))
        else:
            if self.state.loops:
                cell = self.arrays.find_cell(arr, list(idx))
                if cell is not None:
                    return self.arrays.cell_value(cell)
            if self.cx.typing:
                return with_type_range(Val(ir.Variable(arr.ty.ir(), fresh("read")), arr.ty))
            self.defs.ensure_defined(arr)
            v = self.defs.element_call(arr, list(idx))
            self.defs.note_read(arr, v.node, list(idx))
            v = self.arrays.aliased(arr, list(idx), v)
        return with_type_range(v)

    # operators ----------------------------------------------------------------------------
    def operands(self, values, node):
        """Arrays among values as ArrayExprs; scalars as they are (a value
        that is neither is a located error)."""
        out = []
        for v in values:
            a = self.as_array(v, node)
            if a is not None:
                out.append(a)
            elif isinstance(v, Val):
                out.append(v)
            else:
                raise self.cx.err(node, f"unsupported operand {type(v).__name__}")
        return out

    def binary(self, op, a, b, node):
        x, y = self.operands([a, b], node)
        if op == "**" and isinstance(y, Val) and x.ty.is_complex():
            return lift(self.cx, array_complex.operator_power, [x, y], node, probe=np.power,
                        ufunc=True)
        if op == "**" and isinstance(y, Val) and x.ty.dtype == np.bool_ and y.ty.weak and \
                y.ty.is_int() and not y.ty.is_bool():
            x = self._bool_square_base(x, y, node)
        if op == "**" and isinstance(y, Val):
            # NumPy's power loop with one exponent: x ** 0.5 is sqrt(x)
            return lift(self.cx, lambda cx, p, q: calls.np_power_scalar_exponent(
                cx, np.power, p, q), [x, y], node, probe=np.power, ufunc=True)
        return lift(self.cx, lambda cx, p, q: ops.binary(cx, op, p, q), [x, y], node,
                    probe=_PYTHON_OPERATORS[op], ufunc=True)

    def _bool_square_base(self, x, y, node):
        """The base of a boolean array ** a Python int: ndarray's ** computes b ** 2
        as np.square(b), int8 for booleans (other exponents: power, int64), so with
        exponent 2 the base is b as int8; an exponent known only at run time would
        make the dtype depend on it (refused)."""
        if not y.is_const:
            raise self.cx.err(node, "the dtype of a boolean array ** a Python int depends on "
                                    "the int (NumPy computes ** 2 as np.square: int8, other "
                                    "powers int64)",
                              hint="convert the array first: b.astype(np.int64) ** n")
        if y.const != 2:
            return x
        int8 = T.np_ty(np.dtype(np.int8))
        return lift(self.cx, lambda cx, p: ops.cast_to(cx, p, int8), [x], node)

    def compare(self, op, a, b, node):
        x, y = self.operands([a, b], node)
        return lift(self.cx, lambda cx, p, q: cx.compare(op, p, q), [x, y], node,
                    probe=_PYTHON_OPERATORS[op], ufunc=True)

    def unary(self, fn, a, node):
        (x,) = self.operands([a], node)
        return lift(self.cx, lambda cx, p: fn(cx, p), [x], node, ufunc=True)

    def merge(self, name, cond, a, b, node):
        """The array a name holds after an `if` whose branches bound it to
        a (condition true) and b: arrays of one dtype and shape merge into
        a new array selecting between them."""
        x, y = self.as_array(a, node), self.as_array(b, node)
        same = x is not None and y is not None and x.ty == y.ty and x.ndim == y.ndim and \
            all(same_size(self.cx, p, q) for p, q in zip(x.shape, y.shape))
        if not same:
            raise self.cx.err(node, f"{name!r} names arrays of different shapes or dtypes "
                                    f"(or an array and a scalar) after the two branches",
                              hint="give the array the same shape and dtype in both branches, "
                                   "or bind it before the `if`")
        truth = ops.truth(self.cx, cond)
        value = lift(self.cx, lambda cx, p, q: ops.select(cx, truth, p, q, lazy=False), [x, y],
                     node)
        # NumPy's memory order: the array the branch taken made
        value.order = chosen(truth, k_order(x), k_order(y), f"{name!r} after this `if`",
                             self.cx.smap.loc(node))
        return self.materialize(value, name, node)

    # storing ------------------------------------------------------------------------------
    def materialize(self, value, name, node) -> Arr:
        """The array value stored as a new array (a Func with a pure
        definition) named `name`; a view of a whole named array is that array."""
        if isinstance(value, Arr):
            return value
        if value.view is not None and is_whole_view(value):
            return value.view[0]
        if value.ty.is_complex():
            return array_complex.materialize(self, value, name, node)
        arr = Arr(name, value.ty, value.shape, "local", self.cx.smap.loc(node))
        arr.memory_order = value.order      # NumPy's, where not C's (array_shape's views)
        if value.readonly:
            arr.writes_refused = (f"assignment destination is read-only (NumPy's ValueError): "
                                  f"{value.readonly}", f"write into a copy ({name} = ....copy())")
        f = self.new_func(name, arr)
        vars_ = [self.defs.axis_var(arr, k) for k in range(arr.ndim)]
        self.cx.cur_node = node
        v = value.elem([x.node for x in vars_])
        n = element_node(self.cx, v, arr.ty)
        self.emitter.define(f, tuple(reversed(vars_)), (n,), [], None, arr.loc, pure=True,
                            label=name)
        if v.risky:
            self.checked.append(arr)
        self.defs.mark_emitted([n], f)
        arr.func = f
        arr.defined = True
        arr.versions.append(f)
        return arr
