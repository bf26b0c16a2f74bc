"""IR nodes: typed, frozen, slotted dataclasses with named fields.

Nodes compare and hash by identity (`eq=False`), as Halide's IR handles do:
structural comparison is `ir.equal`. Constructors validate operand types, so a
malformed tree fails where it is built, not in codegen.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from .types import INDEX, Bool, Type

node = dataclass(frozen=True, slots=True, eq=False)


class IRNode:
    __slots__ = ()


class Expr(IRNode):
    __slots__ = ()


class Stmt(IRNode):
    __slots__ = ()


def _check(cond: bool, msg: str):
    """Raise TypeError(msg) unless cond; `msg` is a constant (a message that
    formats values is built only when its check fails)."""
    if not cond:
        raise TypeError(msg)


# float32: significant bits, least normal exponent, largest finite value
_FLOAT32 = (24, -126, math.ldexp(2.0 - 2.0 ** -23, 127))


def round_to_float(t: Type, v: float) -> float:
    """v rounded to nearest (ties to even) into the float type t, overflowing
    to infinity: a float32 Const holds only values float32 has (Halide's
    FloatImm does the same)."""
    if t.bits == 64 or v == 0 or v != v or math.isinf(v):
        return v
    precision, min_exponent, largest = _FLOAT32
    if abs(v) >= 2.0 ** 128:            # past float32's range whatever the rounding
        return math.copysign(math.inf, v)
    exponent = max(math.frexp(v)[1] - 1, min_exponent) - (precision - 1)
    rounded = math.ldexp(float(round(math.ldexp(v, -exponent))), exponent)
    if abs(rounded) > largest:
        return math.copysign(math.inf, v)
    return math.copysign(rounded, v)


def int_to_float(t: Type, v: int) -> float:
    """The integer v converted to the float type t with one rounding, as the
    machine's conversion does (float(v) first would round twice into float32
    beyond 2**53)."""
    if t.bits == 64 or abs(v) <= 2 ** 53:
        return round_to_float(t, float(v))
    shift = abs(v).bit_length() - 53
    # 53 bits kept and a sticky bit for any bit shifted out: rounding that
    # to float32's 24 bits is the single rounding of v
    kept = (abs(v) >> shift) | (1 if abs(v) & ((1 << shift) - 1) else 0)
    return math.copysign(round_to_float(t, math.ldexp(float(kept), shift)), v)


# --------------------------------------------------------------------------
# Leaves
# --------------------------------------------------------------------------
@node
class Const(Expr):
    """A scalar constant; integer values are stored wrapped into the type."""

    type: Type
    value: object

    def __post_init__(self):
        t = self.type
        _check(t.lanes == 1, "Const must be scalar")
        code = t.code
        if code == "float":
            object.__setattr__(self, "value", round_to_float(t, float(self.value)))
        elif code == "bool":
            object.__setattr__(self, "value", bool(self.value))
        else:
            v = self.value
            w = t.wrap(v if type(v) is int else int(v))
            if w is not v:
                object.__setattr__(self, "value", w)


@node
class Variable(Expr):
    """A named scalar: a pure Var or loop variable, an RVar ("rvar"), a scalar
    parameter ("param"), or a let-bound name ("")."""

    type: Type
    name: str
    kind: str = ""
    param: object = None   # the user-level object a "param" Variable stands for


# --------------------------------------------------------------------------
# Unary and binary operators
# --------------------------------------------------------------------------
@node
class Cast(Expr):
    type: Type
    value: Expr

    def __post_init__(self):
        if self.type.lanes != self.value.type.lanes:
            raise TypeError(f"cast changes lanes: {self.value.type} -> {self.type}")


class BinaryOp(Expr):
    """Binary operators keep their result type in a slot, set once at
    construction: asking a deep left-leaning chain (a + b + c + ...) for its
    type is then O(1), not a walk down the chain."""

    __slots__ = ("_type",)
    op_symbol = "?"

    @property
    def type(self) -> Type:
        try:
            return self._type
        except AttributeError:          # a copy made without __post_init__ (copy, pickle)
            self.__post_init__()
            return self._type

    def _check_same(self):
        ta, tb = self.a.type, self.b.type
        if ta is not tb and ta != tb:
            raise TypeError(f"{type(self).__name__} operands differ: {ta} vs {tb}")
        return ta


class Arith(BinaryOp):
    """Result type = operand type."""

    __slots__ = ()

    def __post_init__(self):
        object.__setattr__(self, "_type", self._check_same())


@node
class Add(Arith):
    a: Expr
    b: Expr
    op_symbol = "+"


@node
class Sub(Arith):
    a: Expr
    b: Expr
    op_symbol = "-"


@node
class Mul(Arith):
    a: Expr
    b: Expr
    op_symbol = "*"


@node
class Div(Arith):
    """Integer: Euclidean (floor for positive divisor), x/0 == 0. Float: IEEE."""

    a: Expr
    b: Expr
    op_symbol = "/"


@node
class Mod(Arith):
    """Integer: Euclidean (result never negative), x%0 == 0. Float: a - b*floor(a/b)."""

    a: Expr
    b: Expr
    op_symbol = "%"


@node
class Min(Arith):
    a: Expr
    b: Expr
    op_symbol = "min"


@node
class Max(Arith):
    a: Expr
    b: Expr
    op_symbol = "max"


@node
class BitAnd(Arith):
    a: Expr
    b: Expr
    op_symbol = "&"


@node
class BitOr(Arith):
    a: Expr
    b: Expr
    op_symbol = "|"


@node
class BitXor(Arith):
    a: Expr
    b: Expr
    op_symbol = "^"


@node
class Shl(Arith):
    """Shift amounts >= bits (or negative) give 0."""

    a: Expr
    b: Expr
    op_symbol = "<<"


@node
class Shr(Arith):
    """Arithmetic for signed types; shift amounts >= bits give the sign fill."""

    a: Expr
    b: Expr
    op_symbol = ">>"


class Compare(BinaryOp):
    __slots__ = ()

    def __post_init__(self):
        object.__setattr__(self, "_type", Bool(self._check_same().lanes))


@node
class EQ(Compare):
    a: Expr
    b: Expr
    op_symbol = "=="


@node
class NE(Compare):
    a: Expr
    b: Expr
    op_symbol = "!="


@node
class LT(Compare):
    a: Expr
    b: Expr
    op_symbol = "<"


@node
class LE(Compare):
    a: Expr
    b: Expr
    op_symbol = "<="


@node
class GT(Compare):
    a: Expr
    b: Expr
    op_symbol = ">"


@node
class GE(Compare):
    a: Expr
    b: Expr
    op_symbol = ">="


class Logical(BinaryOp):
    __slots__ = ()

    def __post_init__(self):
        t = self._check_same()
        if not t.is_bool():
            raise TypeError(f"{type(self).__name__} needs bool operands")
        object.__setattr__(self, "_type", t)


@node
class And(Logical):
    a: Expr
    b: Expr
    op_symbol = "&&"


@node
class Or(Logical):
    a: Expr
    b: Expr
    op_symbol = "||"


@node
class Not(Expr):
    a: Expr

    @property
    def type(self) -> Type:
        return self.a.type

    def __post_init__(self):
        _check(self.a.type.is_bool(), "Not needs a bool operand")


@node
class BitNot(Expr):
    a: Expr

    @property
    def type(self) -> Type:
        return self.a.type


@node
class Select(Expr):
    condition: Expr
    true_value: Expr
    false_value: Expr

    @property
    def type(self) -> Type:
        return self.true_value.type

    def __post_init__(self):
        _check(self.condition.type.is_bool(), "select condition must be bool")
        if self.true_value.type != self.false_value.type:
            raise TypeError(f"select branches differ: {self.true_value.type} vs "
                            f"{self.false_value.type}")
        _check(self.condition.type.lanes in (1, self.true_value.type.lanes),
               "select condition lanes mismatch")


# --------------------------------------------------------------------------
# Calls, lets, memory, vectors
# --------------------------------------------------------------------------
FUNC, IMAGE, INTRINSIC = "func", "image", "intrinsic"


@node
class Call(Expr):
    """A call to a Func (by name, element `value_index`), a read of an input
    image, or an intrinsic (sqrt, exp, is_nan, ...)."""

    type: Type
    name: str
    args: tuple
    call_type: str = FUNC
    value_index: int = 0
    func: object = None    # the called Function, or the input image object

    def __post_init__(self):
        object.__setattr__(self, "args", tuple(self.args))
        if self.call_type not in (FUNC, IMAGE, INTRINSIC):
            raise TypeError(f"bad call type {self.call_type}")


@node
class Let(Expr):
    name: str
    value: Expr
    body: Expr

    @property
    def type(self) -> Type:
        return self.body.type


@node
class Load(Expr):
    """Load from flattened storage `name` at element `index`."""

    type: Type
    name: str
    index: Expr


@node
class Ramp(Expr):
    base: Expr
    stride: Expr
    lanes: int

    @property
    def type(self) -> Type:
        return self.base.type.with_lanes(self.lanes)

    def __post_init__(self):
        _check(self.base.type == self.stride.type and self.base.type.is_scalar(),
               "ramp base/stride must be the same scalar type")


@node
class Broadcast(Expr):
    value: Expr
    lanes: int

    @property
    def type(self) -> Type:
        return self.value.type.with_lanes(self.lanes)


@node
class VectorReduce(Expr):
    """Reduce the lanes of `value` to `lanes` lanes with op in
    add/mul/min/max/and/or. Output lane j combines input lanes j*f .. j*f+f-1
    (f = input lanes / lanes), in order unless `reassoc` allows any order
    (a float reduction the schedule asked to reassociate)."""

    op: str
    value: Expr
    lanes: int = 1
    reassoc: bool = False

    @property
    def type(self) -> Type:
        return self.value.type.with_lanes(self.lanes)


# --------------------------------------------------------------------------
# Statements
# --------------------------------------------------------------------------
@node
class Range(IRNode):
    """A half-open interval given as (min, extent)."""

    min: Expr
    extent: Expr


class ForKind:
    SERIAL = "serial"
    PARALLEL = "parallel"
    VECTORIZED = "vectorized"
    UNROLLED = "unrolled"
    # A vectorized loop left serial because a bounds guard (an `if` reading no
    # memory) depends on the lanes: the guarded copy of a partitioned loop (a
    # tail, rarely run). A serial loop that LLVM neither unrolls nor vectorizes.
    FALLBACK = "fallback"


@node
class For(Stmt):
    """for name in [min, min + extent): body  — loops are (min, extent)."""

    name: str
    min: Expr
    extent: Expr
    kind: str
    body: Stmt


@node
class LetStmt(Stmt):
    name: str
    value: Expr
    body: Stmt


@node
class AssertStmt(Stmt):
    """If `condition` is false, the pipeline stops and raises `error` (a
    Python exception name) with `message` formatted with the values of `args`."""

    condition: Expr
    error: str
    message: str
    args: tuple = ()


@node
class Provide(Stmt):
    """Multi-dimensional write of a (tuple) value to Func `name` at `args`."""

    name: str
    values: tuple
    args: tuple


@node
class Store(Stmt):
    name: str
    value: Expr
    index: Expr


@node
class Realize(Stmt):
    """Storage for Func `name` over `bounds`, one buffer per tuple element."""

    name: str
    types: tuple
    bounds: tuple
    body: Stmt


@node
class Allocate(Stmt):
    """Flat storage of prod(extents) elements of `type` for the body's scope.
    Where `reuse_if` (evaluated before the body) holds at run time, the
    storage is buffer `reuse`'s instead and nothing is allocated (an output
    computed in the caller's buffer when it holds the region)."""

    name: str
    type: Type
    extents: tuple
    body: Stmt
    reuse_if: Optional[Expr] = None
    reuse: str = ""


@node
class IfThenElse(Stmt):
    condition: Expr
    then_case: Stmt
    else_case: Optional[Stmt] = None


@node
class Block(Stmt):
    stmts: tuple

    def __post_init__(self):
        object.__setattr__(self, "stmts", tuple(self.stmts))


@node
class LoopExit(Stmt):
    """Leave the enclosing loop named `loop`: its remaining iterations do
    nothing. Built as `if (c) LoopExit else body`, so a pass that copies or
    removes the loop may leave the statement behind: where no enclosing loop
    has that name it does nothing (the body stays skipped)."""

    loop: str


@node
class Evaluate(Stmt):
    value: Expr


@node
class ProducerConsumer(Stmt):
    name: str
    is_producer: bool
    body: Stmt


def block(*stmts) -> Stmt:
    """A Block of the non-empty statements, flattening nested Blocks."""
    out = []
    for s in stmts:
        if s is None:
            continue
        if isinstance(s, Block):
            out.extend(s.stmts)
        else:
            out.append(s)
    if len(out) == 1:
        return out[0]
    return Block(tuple(out))


def index_var(name: str) -> Variable:
    return Variable(INDEX, name)
