"""Translation of operator expressions into Z3 terms.

Theories:
- integers: bit-vectors of the type's width (wrap-around is exact; signed
  comparisons and min/max for int types, unsigned ones for uint types);
- bool: Z3 Bool;
- floats, "real": Z3 reals — used for every float operator that contains
  `+`, `-` or `*` (reassociating float sums and products is what the schedule
  asks for); there are no infinities or NaN in this theory;
- floats, "fp": Z3's IEEE floating-point theory of the type's format — used
  for float operators built only from min/max/select/comparisons/is_nan
  (in a small IEEE format when that is equivalent, see `order_only`).
  `min`/`max` with a NaN operand return an unspecified value (an
  uninterpreted function of the operands, so a proof holds for every choice);
  with a +0/-0 pair either zero (Z3's fp.min/fp.max). Two float results are
  equal when both are NaN or they compare equal (so +0 == -0): no node kind of
  the grammar tells the zeros apart or looks at NaN payloads.
"""
from __future__ import annotations

import z3

from pyhalide import ir

from .grammar import ARITH, FP, REAL, walk


def uses_arithmetic(ops) -> bool:
    """Whether any `+`, `-` or `*` occurs in `ops`."""
    return any(isinstance(n, ARITH) for e in ops for n in walk(e))


def uses_is_nan(ops) -> bool:
    return any(isinstance(n, ir.Call) and n.name == "is_nan" for e in ops for n in walk(e))


# A small IEEE format for operators that only compare and copy floats.
SMALL_FP = (4, 5)                  # exponent bits, significand bits
_ORDER_CONSTANTS = (0.0, 1.0, -1.0, float("inf"), float("-inf"))


def order_only(ops) -> bool:
    """Whether the floats in `ops` are only compared, selected and copied
    (min/max/select/comparisons/is_nan) with no constants but 0, +-1, +-inf.

    Such an operator's results depend only on how its float inputs and
    constants are ordered (and which are NaN, which are zeros), so a claim
    about all inputs holds in a format iff it holds in every format that can
    realize every such ordering: SMALL_FP has at least 8 distinct values
    strictly between any two consecutive constants, more than the float
    inputs of any query (at most 3 tuples of 2 elements plus k0). Proofs of
    these operators therefore use SMALL_FP for float32 and float64 alike.
    """
    for e in ops:
        for n in walk(e):
            if isinstance(n, ARITH) and n.type.is_float():
                return False
            if isinstance(n, ir.Const) and n.type.is_float() and n.value not in _ORDER_CONSTANTS:
                return False
    return True


class Model:
    """Z3 terms for expressions over one operator's types, in one float theory."""

    def __init__(self, float_theory_: str, arith_bitnot: bool = False, small_fp: bool = False):
        self.theory = float_theory_
        self.arith_bitnot = arith_bitnot
        self.small_fp = small_fp
        self._nan_fns = {}

    def _fp_sort(self, t: ir.Type):
        if self.small_fp:
            return z3.FPSort(*SMALL_FP)
        return z3.Float32() if t.bits == 32 else z3.Float64()

    # ---- values -----------------------------------------------------------
    def var(self, t: ir.Type, name: str):
        if t.is_bool():
            return z3.Bool(name)
        if t.is_float():
            return z3.Real(name) if self.theory == REAL else z3.FP(name, self._fp_sort(t))
        return z3.BitVec(name, t.bits)

    def const(self, t: ir.Type, value):
        if t.is_bool():
            return z3.BoolVal(bool(value))
        if t.is_float():
            if self.theory == REAL:
                if value != value or value in (float("inf"), float("-inf")):
                    raise ValueError(f"{value} is not a real number")
                return z3.RealVal(value)
            return z3.FPVal(value, self._fp_sort(t))
        return z3.BitVecVal(int(value) & ((1 << t.bits) - 1), t.bits)

    def equal(self, t: ir.Type, a, b):
        """Result equality (for floats in FP: both NaN, or equal numbers)."""
        if t.is_float() and self.theory == FP:
            return z3.Or(z3.And(z3.fpIsNaN(a), z3.fpIsNaN(b)), z3.fpEQ(a, b))
        return a == b

    def not_nan(self, t: ir.Type, v):
        return z3.Not(z3.fpIsNaN(v)) if t.is_float() and self.theory == FP else None

    # ---- expressions ------------------------------------------------------
    def term(self, e: ir.Expr, env: dict):
        """The Z3 term of `e` with Variables bound by name in `env`."""
        memo: dict = {}

        def tr(n):
            key = id(n)
            if key not in memo:
                memo[key] = self._term(n, tr, env)
            return memo[key]

        return tr(e)

    def _term(self, n, tr, env):
        if isinstance(n, ir.Variable):
            return env[n.name]
        if isinstance(n, ir.Const):
            return self.const(n.type, n.value)
        if isinstance(n, ir.Cast):
            return self._cast(n.value.type, n.type, tr(n.value))
        if isinstance(n, ir.Call) and n.name == "is_nan":
            t = n.args[0].type
            return z3.fpIsNaN(tr(n.args[0])) if self.theory == FP and t.is_float() else z3.BoolVal(False)
        if isinstance(n, ir.Select):
            return z3.If(tr(n.condition), tr(n.true_value), tr(n.false_value))
        if isinstance(n, ir.Not):
            return z3.Not(tr(n.a))
        if isinstance(n, ir.BitNot):
            a = tr(n.a)
            if self.arith_bitnot:
                # ~a == -1 - a in two's complement: written arithmetically, the
                # sum-of-monomials simplifier normalizes polynomial operators
                return z3.BitVecVal(-1, a.size()) - a
            return ~a
        if isinstance(n, ir.BinaryOp):
            return self._binary(type(n).__name__, n.a.type, tr(n.a), tr(n.b))
        raise TypeError(f"no Z3 translation for {type(n).__name__}")

    def _cast(self, src: ir.Type, dst: ir.Type, v):
        if src == dst:
            return v
        if src.is_bool() and dst.is_integer():
            return z3.If(v, z3.BitVecVal(1, dst.bits), z3.BitVecVal(0, dst.bits))
        if src.is_integer() and dst.is_integer():
            if dst.bits > src.bits:
                ext = z3.SignExt if src.is_int() else z3.ZeroExt
                return ext(dst.bits - src.bits, v)
            return z3.Extract(dst.bits - 1, 0, v) if dst.bits < src.bits else v
        raise TypeError(f"no Z3 translation for a cast {src} -> {dst}")

    def _binary(self, name: str, t: ir.Type, a, b):
        fp = t.is_float() and self.theory == FP
        if name in ("Min", "Max"):
            return self._minmax(name, t, a, b)
        if name in ("Add", "Sub", "Mul"):
            if fp:
                rm = z3.RNE()
                return {"Add": z3.fpAdd, "Sub": z3.fpSub, "Mul": z3.fpMul}[name](rm, a, b)
            return {"Add": a + b, "Sub": a - b, "Mul": a * b}[name]
        if name in ("BitAnd", "BitOr", "BitXor", "And", "Or"):
            if t.is_bool():
                return {"BitAnd": z3.And, "And": z3.And, "BitOr": z3.Or, "Or": z3.Or,
                        "BitXor": z3.Xor}[name](a, b)
            return {"BitAnd": a & b, "BitOr": a | b, "BitXor": a ^ b}[name]
        if name in ("EQ", "NE"):
            eq = z3.fpEQ(a, b) if fp else a == b
            return eq if name == "EQ" else z3.Not(eq)
        if name in ("LT", "LE", "GT", "GE"):
            return self._compare(name, t, a, b)
        raise TypeError(f"no Z3 translation for {name}")

    def _compare(self, name, t, a, b):
        if t.is_float() and self.theory == FP:
            return {"LT": z3.fpLT, "LE": z3.fpLEQ, "GT": z3.fpGT, "GE": z3.fpGEQ}[name](a, b)
        if t.is_uint():
            return {"LT": z3.ULT, "LE": z3.ULE, "GT": z3.UGT, "GE": z3.UGE}[name](a, b)
        if t.is_bool():
            a, b = z3.If(a, 1, 0), z3.If(b, 1, 0)
        return {"LT": a < b, "LE": a <= b, "GT": a > b, "GE": a >= b}[name]

    def _minmax(self, name, t, a, b):
        if t.is_float() and self.theory == FP:
            fn = z3.fpMin if name == "Min" else z3.fpMax
            key = (name, t.bits)
            if key not in self._nan_fns:
                s = self._fp_sort(t)
                self._nan_fns[key] = z3.Function(f"{name.lower()}_nan_f{t.bits}", s, s, s)
            unspecified = self._nan_fns[key](a, b)
            return z3.If(z3.Or(z3.fpIsNaN(a), z3.fpIsNaN(b)), unspecified, fn(a, b))
        first = self._compare("LT" if name == "Min" else "GT", t, a, b)
        return z3.If(first, a, b)
