"""NumPy evaluation of IR expressions over many input points at once.

Integer and bool values are NumPy arrays of the IR type's dtype, so integer
arithmetic wraps at the type's width exactly as the compiler's does. Float
values are evaluated *exactly*: the random filter feeds integers (a subset of
the rationals; the grammar has no division, so every intermediate value is an
exact integer) held in int64 or, where values can grow past it, object arrays
of Python ints. `exact_floats=False` evaluates floats in IEEE instead.
"""
from __future__ import annotations

import numpy as np

from pyhalide import ir

BINARY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "Min": np.minimum, "Max": np.maximum,
    "BitAnd": np.bitwise_and, "BitOr": np.bitwise_or, "BitXor": np.bitwise_xor,
    "And": np.logical_and, "Or": np.logical_or,
    "LT": np.less, "LE": np.less_equal, "GT": np.greater, "GE": np.greater_equal,
    "EQ": np.equal, "NE": np.not_equal,
}
UNARY = {"Not": np.logical_not, "BitNot": np.invert}


def apply_op(name: str, args):
    """Apply the node kind `name` to evaluated operands (arrays); callers
    silence NumPy's overflow warnings (wrapping is the intended semantics)."""
    if name == "Select":
        return np.where(args[0], args[1], args[2])
    if name in UNARY:
        return UNARY[name](args[0])
    return BINARY[name](args[0], args[1])


def const_array(t: ir.Type, value, exact_floats: bool):
    """A NumPy scalar of the constant's value (broadcasts against arrays)."""
    if t.is_float() and exact_floats:
        if value != value or value in (float("inf"), float("-inf")) or value != int(value):
            raise ValueError(f"exact float evaluation needs integer constants, got {value}")
        return np.int64(int(value))
    return t.to_numpy().type(value)


def evaluate(e: ir.Expr, env: dict, exact_floats: bool = True):
    """Evaluate `e` with Variables bound by name in `env` (arrays or scalars)."""
    memo: dict = {}

    def ev(n):
        key = id(n)
        if key in memo:
            return memo[key]
        if isinstance(n, ir.Variable):
            r = env[n.name]
        elif isinstance(n, ir.Const):
            r = const_array(n.type, n.value, exact_floats)
        elif isinstance(n, ir.Cast):
            v = ev(n.value)
            r = v if (n.type.is_float() and exact_floats) else np.asarray(v).astype(n.type.to_numpy())
        elif isinstance(n, ir.Call) and n.name == "is_nan":
            v = ev(n.args[0])
            r = np.zeros(np.shape(v), bool) if exact_floats else np.isnan(v)
        elif isinstance(n, ir.Select):
            r = apply_op("Select", [ev(n.condition), ev(n.true_value), ev(n.false_value)])
        elif isinstance(n, (ir.Not, ir.BitNot)):
            r = apply_op(type(n).__name__, [ev(n.a)])
        elif isinstance(n, ir.BinaryOp):
            r = apply_op(type(n).__name__, [ev(n.a), ev(n.b)])
        else:
            raise TypeError(f"cannot evaluate {type(n).__name__}")
        memo[key] = r
        return r

    with np.errstate(all="ignore"):
        return ev(e)


def evaluate_tuple(ops, env: dict, exact_floats: bool = True) -> list:
    return [evaluate(e, env, exact_floats) for e in ops]
