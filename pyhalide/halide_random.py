"""Halide's pseudo-random numbers: hl.random_float / random_int / random_uint
(Halide 21's IROperator.cpp and Random.cpp). Each call is an intrinsic
`random(seed?, id)` with a process-wide call counter `id`; defining a Func
replaces it by a hash of those arguments, a process-wide definition counter
and the definition's free variables (pure Vars, then RVars), so a value is a
fixed function of its coordinates. The hash is Halide's: rng32(x) =
(C2*x + C1)*x + C0 over uint32, chained over the arguments, then
r ^ (r >> 16); random_float is (r >> 9) * 2^-23 (exactly Halide's
reinterpret of 0x3f800000 | (r >> 9), minus 1). The values equal Halide's
where the same calls and definitions came before in the process."""
from __future__ import annotations

import itertools

from . import ir
from .expr import Expr, cast, cast_node, to_node

_C0, _C1, _C2 = 576942909, 1121052041, 1040796640
_calls = itertools.count()
_made = []              # non-empty once a random call exists (definitions skip the walk before)
_definitions = itertools.count()
_U32, _I32, _F32 = ir.UInt(32), ir.Int(32), ir.Float(32)


def _random(t: ir.Type, seed) -> Expr:
    args = []
    if seed is not None:
        s = to_node(seed)
        if s.type not in (_I32, _U32) or (t == _F32 and s.type != _I32):
            allowed = "Int(32)" if t == _F32 else "Int(32) or UInt(32)"
            raise TypeError(f"the seed of a random number must have type {allowed}, not {s.type}")
        args.append(s)
    args.append(ir.const(_I32, next(_calls)))
    if not _made:
        _made.append(True)
    return Expr.wrap(ir.Call(t, "random", tuple(args), ir.INTRINSIC))


def random_float(seed=None) -> Expr:
    """A pseudo-random float32 in [0, 1), fixed per coordinate of the Func it defines."""
    return _random(_F32, seed)


def random_uint(seed=None) -> Expr:
    return _random(_U32, seed)


def random_int(seed=None) -> Expr:
    return _random(_I32, seed)


def _rng32(x: Expr) -> Expr:
    return (x * _C2 + _C1) * x + _C0


def _hash(args: list) -> Expr:
    result = _rng32(cast(_U32, Expr.wrap(args[0])))
    for a in args[1:]:
        result = _rng32(result + cast(_U32, Expr.wrap(a)))
    return result ^ (result >> 16)


class _LowerRandom(ir.Mutator):
    def __init__(self, extra: list):
        super().__init__()
        self.extra = extra

    def visit_Call(self, n):
        n = self.mutate_children(n)
        if n.call_type != ir.INTRINSIC or n.name != "random":
            return n
        r = _hash(list(n.args) + self.extra)
        if n.type == _F32:
            return to_node(cast(_F32, r >> 9) * (2.0 ** -23))
        return to_node(cast(n.type, r))


def lower_random(nodes, free_vars: list) -> tuple:
    """The definition's values (or arguments) with each random intrinsic
    replaced by its hash; `free_vars` the definition's Var/RVar nodes in
    order. Every definition takes a number, as in Halide."""
    tag = next(_definitions)
    if not _made:
        return tuple(nodes)
    extra = [ir.const(_I32, tag)] + [cast_node(_I32, v) if v.type != _I32 else v
                                      for v in reversed(free_vars)]
    lower = _LowerRandom(extra)
    return tuple(lower.mutate(n) for n in nodes)
