"""What the interpreter computes with: scalar values (an IR expression with
placeholders for loop variables and loop-carried state, its Python/NumPy type,
what is known about its range, and, for values that depend only on array
sizes and scalar arguments, a Python function computing it exactly at call
time), arrays, loops."""
from __future__ import annotations

import itertools

import numpy as np

from pyhalide import ir

from .ranges import INT32, INT64, Aff
from .types import PY_INT, Ty, of_value

NO_CONST = object()
_ids = itertools.count()


def fresh(prefix: str) -> str:
    return f"%{prefix}#{next(_ids)}"


class Val:
    """A scalar value.

    Fields: node (IR, None for a value known only at call time until a
    static parameter is made for it, node_of), ty, lo/hi (numeric range),
    lbs/ubs (affine bounds), static (the call-time function), const (the
    compile-time value or NO_CONST), risky (evaluating it may fail: only
    where Python evaluates it), facts, origin (constructor), union (UnionVal).
    Modules pass the fields at construction and change a Val only through
    set_range; within the value modules, ops.binary completes the risky/
    static/const fields of the Val its operator helper made, ops.tighten
    narrows a range in place and node_of gives a call-time value its node."""

    __slots__ = ("node", "ty", "lo", "hi", "lbs", "ubs", "static", "const", "risky", "facts",
                 "origin", "union")

    def __init__(self, node, ty: Ty, lo=None, hi=None, lbs=(), ubs=(), static=None,
                 const=NO_CONST, risky=False, *, facts=None, origin=None):
        """`facts`: for a bool value, (the Affs that are >= 0 where it is
        true, those >= 0 where it is false), or None; `origin`: (group,
        member index) when the value is a loop's final state (loop_state.Group),
        or None."""
        self.facts = facts
        self.origin = origin
        self.union = None       # [(bool Val or None, Val)]: the value of the first true
                                # alternative, each with its own Python type
        self.node = node
        self.ty = ty
        if ty.is_bool():
            lo = 0 if lo is None else lo
            hi = 1 if hi is None else hi
        elif ty.is_int() and ty.kind == "np":
            t = ty.ir()
            lo = t.min_value() if lo is None else max(lo, t.min_value())
            hi = t.max_value() if hi is None else min(hi, t.max_value())
        self.lo, self.hi = lo, hi
        self.lbs = list(lbs)
        self.ubs = list(ubs)
        if ty.is_int() or ty.is_bool():
            if not self.lbs and lo is not None:
                self.lbs = [Aff.const(lo)]
            if not self.ubs and hi is not None:
                self.ubs = [Aff.const(hi)]
        self.static = static
        self.const = const
        self.risky = risky

    def set_range(self, lo, hi, lbs=None, ubs=None):
        self.lo, self.hi = lo, hi
        self.lbs = list(lbs) if lbs else ([Aff.const(lo)] if lo is not None else [])
        self.ubs = list(ubs) if ubs else ([Aff.const(hi)] if hi is not None else [])
        return self

    @property
    def is_const(self) -> bool:
        return self.const is not NO_CONST

    @property
    def is_static(self) -> bool:
        return self.static is not None

    @property
    def rng(self):
        return (self.lo, self.hi)

    def __repr__(self):
        c = f" = {self.const!r}" if self.is_const else ""
        return f"<Val {self.ty!r}{c} {ir.expr_to_str(self.node)} [{self.lo}, {self.hi}]>"


def negated_facts(facts):
    """The facts of `not v` from those of v (true and false swapped)."""
    return None if facts is None else (facts[1], facts[0])


def exact_aff(v: Val):
    """The affine form that is both a lower and an upper bound of v (its
    value), or None."""
    return next((a for a in v.lbs if a in v.ubs), None)


def with_type_range(v: Val) -> Val:
    """v, an integer given the whole range of its type (a value read from an
    array or Func, of which nothing more is known)."""
    if v.ty.is_int():
        t = v.ty.ir()
        v.set_range(t.min_value(), t.max_value())
    return v


def int_node_type(lo, hi) -> ir.Type:
    """The IR type holding a Python int known to lie in [lo, hi]."""
    if lo is not None and hi is not None and INT32[0] <= lo and hi <= INT32[1]:
        return ir.Int(32)
    return ir.Int(64)


def cannot_raise(fn) -> bool:
    """Whether call-time function fn is marked as one that cannot raise
    (convert.static2, mark_cannot_raise)."""
    return getattr(fn, "cannot_raise", False)


def mark_cannot_raise(fn):
    """fn, marked as a call-time function that cannot raise (reading an
    argument, a size or a constant)."""
    fn.cannot_raise = True
    return fn


def const_val(v) -> Val:
    """A compile-time constant (Python or NumPy scalar)."""
    ty = of_value(v)
    if ty.kind == "int":
        v = int(v)
        if INT64[0] <= v <= INT64[1]:
            node = ir.Const(int_node_type(v, v), v)
        else:
            node = None     # materialized only through a static parameter
        return Val(node, ty, v, v, [Aff.const(v)], [Aff.const(v)],
                   mark_cannot_raise(lambda env, v=v: v), v)
    if ty.kind == "float":
        return Val(ir.Const(ir.Float(64), float(v)), ty, static=mark_cannot_raise(lambda env, v=v: v),
                   const=float(v))
    if ty.kind == "bool":
        b = bool(v)
        return Val(ir.Const(ir.Bool(), b), ty, int(b), int(b),
                   static=mark_cannot_raise(lambda env, b=b: b), const=b)
    t = ty.ir()
    if t.is_bool():
        node = ir.Const(t, bool(v))
    elif t.is_float():
        node = ir.Const(t, float(v))
    else:
        node = ir.Const(t, int(v))
    iv = int(v) if ty.is_int() or ty.is_bool() else None
    return Val(node, ty, iv, iv, [Aff.const(iv)] if iv is not None and ty.is_int() else [],
               [Aff.const(iv)] if iv is not None and ty.is_int() else [],
               mark_cannot_raise(lambda env, v=v: v), v)


class UnionTypeError(Exception):
    """The single type of a value whose type depends on run-time data was
    asked for (the builder turns it into a located CompileError)."""

    def __init__(self, val):
        super().__init__("a value whose type depends on run-time data")
        self.val = val


class UnionVal(Val):
    """A value whose Python/NumPy type depends on run-time data (whether a
    loop ran, which operand of min() won, which branch was taken): one
    alternative per type, `union` = [(bool Val, Val)], the conditions
    exclusive and exhaustive. Operations apply to each alternative
    (unions.distribute); asking for its one type raises UnionTypeError."""

    __slots__ = ()

    def __init__(self, alts):
        self.union = list(alts)
        self.node = None
        self.lo = self.hi = None
        self.lbs, self.ubs = [], []
        self.static = None
        self.const = NO_CONST
        self.risky = any(c.risky or v.risky for c, v in alts)
        self.facts = None
        self.origin = None

    @property
    def ty(self):
        raise UnionTypeError(self)

    def types(self):
        return [v.ty for _, v in self.union]

    def set_range(self, lo, hi, lbs=None, ubs=None):
        return self

    def __repr__(self):
        return "<UnionVal " + " | ".join(repr(v) for _, v in self.union) + ">"


def node_of(cx, v: Val) -> ir.Expr:
    """The IR node of a value of one type: a value known only at call time
    gets its static parameter from the interpreter `cx`; a union raises
    UnionTypeError."""
    if v.union:
        raise UnionTypeError(v)
    if v.node is None:
        v.node = cx.static_param(v)
    return v.node


class Arr:
    """An array: an input (ImageParam) or one the function creates (Func)."""

    def __init__(self, name, ty: Ty, shape: list, kind: str, loc=None):
        self.name = name
        self.ty = ty
        self.shape = shape          # [Val] static Python ints, NumPy axis order
        self.kind = kind            # "input" | "local"
        self.loc = loc
        self.image = None           # ImageParam (inputs)
        self.arg_name = None
        self.func = None            # current Func version (locals)
        self.fill = None            # Val of the fill value, or None for np.empty
        self.defined = False        # has a pure definition
        self.read_elsewhere = False # the current version was read by another definition
        self.versions = []          # every Func this array has been
        self.py_names = {name}
        self.writes_refused = None  # (message, hint): a write is a located error
        # a hidden 0-d array of check_order.LoopSinks: a value's checks stored
        # where Python computes it (read by nothing of the function)
        self.sink = False

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self):
        return f"<Arr {self.name} {self.ty!r} {self.ndim}-D {self.kind}>"


def loop_symbol(name: str, node) -> str:
    """The symbol of loop variable `name` of For node `node` (the same in
    every typing run of the loop)."""
    return f"%{name}@{node.lineno}:{node.col_offset}"


class Loop:
    """An active `for v in range(start, stop, step)` loop.

    Fields: name (of v), node (the For), start and stop (Vals), step (int),
    loc, nest_id (LoopState.nest_id when it was made), and
      sym       v's symbol (loop_symbol), var its IR Variable
      pure_var  the pure Var that stands for v in definitions
      val       v's value: var, in [lo, hi] (the range the constructor is
                given, None where unknown), bounded by its own symbol
      max_trip  the largest number of iterations (None when lo or hi is unknown)
    """

    def __init__(self, name, node, start: Val, stop: Val, step: int, loc, nest_id, *,
                 pure_var, lo=None, hi=None):
        self.name = name
        self.node = node
        self.start, self.stop, self.step = start, stop, step
        self.loc = loc
        self.sym = loop_symbol(name, node)
        self.var = ir.Variable(ir.INDEX, self.sym)
        self.nest_id = nest_id
        self.pure_var = pure_var
        self.val = Val(self.var, PY_INT, lo, hi, [Aff.sym(self.sym)], [Aff.sym(self.sym)])
        self.body_ranges = []      # (Val, lo, hi): a clamped bound's range in the body
        if lo is not None and hi is not None:
            self.max_trip = max(0, (hi - lo) // abs(step) + 1)
        else:
            self.max_trip = None

    def __repr__(self):
        return f"<Loop {self.name}>"


class TupleVal:
    """A tuple of values (shapes, multiple returns)."""

    def __init__(self, items):
        self.items = list(items)


class ModuleRef:
    """`np`, `math` and attributes of them (functions, dtypes, constants)."""

    def __init__(self, name, obj):
        self.name = name
        self.obj = obj


class DtypeVal:
    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)


class MaybeUnbound(Val):
    """Loop state that is unassigned until the loop assigns it (reading it
    before is an error, as in Python)."""

    __slots__ = ()
