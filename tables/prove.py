"""Z3 proofs of associativity, identities and commutativity.

Every query is deterministic: a fixed random seed and a resource limit
(`rlimit`), never a wall-clock timeout. A query that exhausts its resource
limit answers UNKNOWN; the generator then drops the operator (it never claims
a property it could not prove).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import z3

from pyhalide import ir

from . import grammar, npeval
from .grammar import FP, REAL, float_theory
from .samples import make_samples
from .z3model import Model, order_only, uses_arithmetic, uses_is_nan

SEED = 0
RLIMIT = 20_000_000
PROVED, REFUTED, UNKNOWN = "proved", "refuted", "unknown"
NOT_TRIED = "not tried"       # no identity candidate passed the numeric screen

z3.set_param("smt.random_seed", SEED)
z3.set_param("sat.random_seed", SEED)


@dataclass(frozen=True)
class Verdict:
    """What the prover established about one operator."""

    associative: str                    # PROVED / REFUTED / UNKNOWN / NOT_TRIED
    identities: tuple = ()              # ir Exprs (constants, or in k0), if any
    identity_side: str = ""             # "left" / "right" / "both" / "" (none)
    commutative: str = UNKNOWN          # PROVED (is) / REFUTED (is not) / UNKNOWN


class OperatorModel:
    """An operator `ops` over a tuple of `types`, translated to Z3."""

    def __init__(self, ops, types):
        self.ops, self.types = tuple(ops), tuple(types)
        self.size = len(self.types)
        theory = float_theory(self.ops)
        self.model = Model(theory, arith_bitnot=uses_arithmetic(self.ops),
                           small_fp=theory == FP and order_only(self.ops))
        self.k = self.model.var(self.types[0], "k0")
        self.premises = []
        self._guard_nan = self.model.theory == FP and not uses_is_nan(self.ops)
        if self._guard_nan:
            self._premise(self.types[0], self.k)

    def _premise(self, t, v):
        p = self.model.not_nan(t, v)
        if p is not None:
            self.premises.append(p)

    def tuple_var(self, prefix: str) -> list:
        out = [self.model.var(t, f"{prefix}{i}") for i, t in enumerate(self.types)]
        if self._guard_nan:
            for t, v in zip(self.types, out):
                self._premise(t, v)
        return out

    def apply(self, xs, ys) -> list:
        env = {"k0": self.k}
        for i in range(self.size):
            env[f"x{i}"], env[f"y{i}"] = xs[i], ys[i]
        return [self.model.term(e, env) for e in self.ops]

    def const_tuple(self, exprs) -> list:
        return [self.model.term(e, {"k0": self.k}) for e in exprs]

    def tuple_equal(self, us, vs):
        return z3.And([self.model.equal(t, u, v) for t, u, v in zip(self.types, us, vs)])

    def check(self, goal) -> str:
        """PROVED if `goal` holds for all values satisfying the premises."""
        negated = z3.simplify(z3.Not(goal), som=True)
        if z3.is_false(negated):
            return PROVED
        s = z3.Solver()
        s.set("random_seed", SEED)
        s.set("rlimit", RLIMIT)
        s.add(*self.premises)
        s.add(negated)
        r = s.check()
        return PROVED if r == z3.unsat else REFUTED if r == z3.sat else UNKNOWN

    # ---- the three properties --------------------------------------------
    def associative(self) -> str:
        a, b, c = self.tuple_var("a"), self.tuple_var("b"), self.tuple_var("c")
        return self.check(self.tuple_equal(self.apply(self.apply(a, b), c),
                                           self.apply(a, self.apply(b, c))))

    def commutative(self) -> str:
        a, b = self.tuple_var("a"), self.tuple_var("b")
        return self.check(self.tuple_equal(self.apply(a, b), self.apply(b, a)))

    def is_identity(self, ident, side: str) -> str:
        v = self.tuple_var("v")
        e = self.const_tuple(ident)
        out = self.apply(e, v) if side == "left" else self.apply(v, e)
        return self.check(self.tuple_equal(out, v))


def identity_candidates(t: ir.Type, k: ir.Expr, infinities: bool = True) -> list:
    """Constant expressions tried as identity elements, in preference order
    (float infinities only if `infinities`: the real theory has none)."""
    if t.is_bool():
        return [ir.Const(t, False), ir.Const(t, True)] + ([k, ir.Not(k)] if k.type == t else [])
    values = [0, 1]
    if t.is_float():
        values += [-1] + ([float("-inf"), float("inf")] if infinities else [])
    else:
        values += ([-1] if t.is_int() else []) + [t.min_value(), t.max_value()]
    out = [ir.Const(t, v) for v in dict.fromkeys(values)]
    if k.type != t:
        return out
    out += [k]
    if t.is_integer():
        out += [ir.BitNot(k), ir.Sub(ir.Const(t, 0), k)]
    return out


@lru_cache(maxsize=None)
def _screen_points(t: ir.Type) -> dict:
    return make_samples(t, 1).points


def _screen_env(types, side: str, ident):
    """Sample values for a numeric pre-check of `f(ident, v) == v`."""
    env = {}
    for i, t in enumerate(types):
        pts = _screen_points(t)
        dt = t.to_numpy()
        env[f"y{i}" if side == "left" else f"x{i}"] = pts["y0"].astype(dt)
        env[f"x{i}" if side == "left" else f"y{i}"] = None
        if i == 0:
            env["k0"] = pts["k0"].astype(dt)
    return env


def _screen_identity(ops, types, ident, side: str) -> bool:
    """Whether `ident` passes as a `side` identity on sample values (IEEE floats)."""
    env = _screen_env(types, side, ident)
    k_env = {"k0": env["k0"]}
    other = "x" if side == "left" else "y"
    for i, e in enumerate(ident):
        v = npeval.evaluate(e, k_env, exact_floats=False)
        env[f"{other}{i}"] = np.broadcast_to(v, env["k0"].shape)
    own = "y" if side == "left" else "x"
    outs = npeval.evaluate_tuple(ops, env, exact_floats=False)
    for i, out in enumerate(outs):
        want = env[f"{own}{i}"]
        same = (out == want) | (np.isnan(out) & np.isnan(want) if types[i].is_float() else False)
        if not np.all(same):
            return False
    return True


def identity_screen(om: OperatorModel) -> dict:
    """side -> the candidate identity tuples that pass the numeric screen."""
    k = grammar.variables(om.types)["k0"]
    infinities = om.model.theory != REAL
    combos = list(itertools.product(*[identity_candidates(t, k, infinities) for t in om.types]))
    return {side: [c for c in combos if _screen_identity(om.ops, om.types, c, side)]
            for side in ("left", "right")}


def find_identity(om: OperatorModel, screened: dict):
    """(identities, side) for the first screened tuple that is a left identity
    (and tell whether also right), else a right identity; else None."""
    for side in ("left", "right"):
        for ident in screened[side]:
            if om.is_identity(ident, side) != PROVED:
                continue
            if side == "left" and om.is_identity(ident, "right") == PROVED:
                return ident, "both"
            return ident, side
    return None


def prove_operator(ops, types) -> Verdict:
    """The identity screen (operators without any plausible identity are not
    worth a proof: NOT_TRIED), associativity, the identity, commutativity."""
    om = OperatorModel(ops, types)
    screened = identity_screen(om)
    if not screened["left"] and not screened["right"]:
        return Verdict(NOT_TRIED)
    assoc = om.associative()
    if assoc != PROVED:
        return Verdict(assoc)
    found = find_identity(om, screened)
    if found is None:
        return Verdict(assoc)
    return Verdict(assoc, tuple(found[0]), found[1], om.commutative())
