"""Proofs for operators synthesized at compile time (tables/synth.py):
associativity, the identity and its side, commutativity, each with a
deadline, and the Z3 counterexample of a failed law.

The polynomial fast path (tables/polynomial.py) is tried first; what it
cannot prove goes to Z3 in the tables' theories (tables/z3model.py:
bit-vectors for integers, reals or IEEE for floats), with the tables'
deterministic seed and resource limit plus a wall-clock limit (the remaining
synthesis budget). UNKNOWN is never taken as proof.

The identity: candidates from the operator's constants, 0, 1, -1 and the
type's extremes are screened on sample values and proven; failing those, an
`exists e forall v` query is answered by counterexample-guided search (a
Z3 model of e for finitely many v, then the proof for all v).
"""
from __future__ import annotations

import itertools

import numpy as np
import z3

from pyhalide import ir

from .grammar import walk
from .npeval import evaluate_tuple
from .polynomial import PolyOperator
from .prove import PROVED, REFUTED, SEED, UNKNOWN, OperatorModel
from .wide_words import WideSum

MAX_IDENTITY_COMBOS = 256
CEGIS_ROUNDS = 6


def solver(deadline):
    """A solver with the tables' seed that stops at the deadline (None if it passed)."""
    ms = deadline.wall_ms()
    if ms <= 0:
        return None
    s = z3.Solver()
    s.set("random_seed", SEED)
    s.set("timeout", ms)
    return s


class SynthModel(OperatorModel):
    """OperatorModel whose checks stop at the deadline and keep the model of
    a refutation (`last_model`)."""

    def __init__(self, ops, types, deadline):
        super().__init__(ops, types)
        self.deadline = deadline
        self.last_model = None

    def check(self, goal) -> str:
        negated = z3.simplify(z3.Not(goal), som=True)
        if z3.is_false(negated):
            return PROVED
        s = solver(self.deadline)
        if s is None:
            return UNKNOWN
        s.add(*self.premises)
        s.add(negated)
        r = s.check()
        if r == z3.sat:
            self.last_model = s.model()
            return REFUTED
        return PROVED if r == z3.unsat else UNKNOWN


class Prover:
    """The three laws of one operator (local x0.., y0..): polynomial first, then Z3."""

    def __init__(self, ops, types, deadline):
        self.ops, self.types = tuple(ops), tuple(types)
        self.poly = PolyOperator.of(self.ops)
        self.z3 = SynthModel(self.ops, self.types, deadline)
        self.deadline = deadline
        self.by_polynomial = False
        self.wide_sum = None        # a multi-word sum (tables/wide_words.py), once proven

    def associative(self) -> str:
        if self.poly is not None and self.poly.associative() == PROVED:
            self.by_polynomial = True
            return PROVED
        self.wide_sum = WideSum.of(self.ops, self.types, lambda: solver(self.deadline))
        if self.wide_sum is not None:
            return PROVED
        return self.z3.associative()

    def commutative(self) -> str:
        if self.wide_sum is not None:
            return PROVED
        if self.poly is not None and self.poly.commutative() == PROVED:
            return PROVED
        return self.z3.commutative()

    def is_identity(self, ident, side: str) -> str:
        if self.wide_sum is not None and all(i.value == 0 for i in ident):
            return PROVED
        if self.poly is not None and self.poly.is_identity(ident, side) == PROVED:
            return PROVED
        return self.z3.is_identity(ident, side)

    def counterexample(self) -> str:
        """The refuting values of the last Z3 query (a0.. b0.. c0..), as text."""
        m = self.z3.last_model
        if m is None:
            return ""
        parts = []
        for prefix in "abc":
            for i, t in enumerate(self.types):
                v = m.eval(self.z3.model.var(t, f"{prefix}{i}"), model_completion=True)
                parts.append(f"{prefix}{i} = {_show(t, v)}")
        return ", ".join(parts)

    def _point(self, values) -> list:
        return [_z3_value(self.z3.model, t, v) for t, v in zip(self.types, values)]

    def breaks_associativity(self, a, b, c) -> bool:
        """Whether Z3 evaluates op(op(a, b), c) == op(a, op(b, c)) to false at
        the concrete tuples a, b, c."""
        za, zb, zc = self._point(a), self._point(b), self._point(c)
        ap = self.z3.apply
        same = self.z3.tuple_equal(ap(ap(za, zb), zc), ap(za, ap(zb, zc)))
        return z3.is_false(z3.simplify(same))

    def show_point(self, a, b, c) -> str:
        return ", ".join(f"{p}{i} = {_show(t, v)}" for p, vs in zip("abc", (a, b, c))
                         for i, (t, v) in enumerate(zip(self.types, self._point(vs))))

    # ---- the identity ---------------------------------------------------------
    def find_identity(self, samples):
        """(identity tuple, side) or None: candidates on either side first, then
        the counterexample-guided search; "both" when it holds on both sides."""
        for search in (self._candidate, self._solve):
            for side in ("left", "right"):
                if self.deadline.expired():
                    return None
                found = search(side, samples)
                if found is not None:
                    other = "right" if side == "left" else "left"
                    return found, "both" if self.is_identity(found, other) == PROVED else side
        return None

    def _candidate(self, side: str, samples):
        """The first candidate tuple that passes the samples and the proof; a
        refuted candidate's counterexample screens the rest."""
        per_slot = [candidate_constants(t, self.ops) for t in self.types]
        combos = list(itertools.islice(itertools.product(*per_slot), MAX_IDENTITY_COMBOS))
        combos = screen(self.ops, self.types, combos, side, samples.y)
        while combos:
            if self.deadline.expired():
                return None
            ident, combos = combos[0], combos[1:]
            r = self.is_identity(ident, side)
            if r == PROVED:
                return ident
            point = self._refuting_point("v")
            if point is not None:
                combos = screen(self.ops, self.types, combos, side, point)
        return None

    def _refuting_point(self, prefix: str):
        """The last Z3 counterexample's values of prefix0.. as one sample point."""
        m = self.z3.last_model
        if m is None:
            return None
        out = []
        for i, t in enumerate(self.types):
            v = _ir_value(t, m.eval(self.z3.model.var(t, f"{prefix}{i}"), model_completion=True))
            if v is None:
                return None
            out.append(np.array([v.value], dtype=object if t.is_float() else t.to_numpy()))
        return out

    def _solve(self, side: str, samples):
        """Counterexample-guided `exists e forall v: op(e, v) == v` (side left)."""
        zm = self.z3.model
        es = [zm.var(t, f"e{i}") for i, t in enumerate(self.types)]
        points = [[_z3_value(zm, t, samples.y[i][j]) for i, t in enumerate(self.types)]
                  for j in range(3)]
        for _ in range(CEGIS_ROUNDS):
            s = solver(self.deadline)
            if s is None:
                return None
            for v in points:
                out = self.z3.apply(es, v) if side == "left" else self.z3.apply(v, es)
                s.add(self.z3.tuple_equal(out, v))
            if s.check() != z3.sat:
                return None
            m = s.model()
            ident = tuple(_ir_value(t, m.eval(e, model_completion=True))
                          for t, e in zip(self.types, es))
            if any(i is None for i in ident):
                return None
            r = self.is_identity(ident, side)
            if r == PROVED:
                return ident
            if r != REFUTED or self.z3.last_model is None:
                return None
            cm = self.z3.last_model
            points.append([cm.eval(zm.var(t, f"v{i}"), model_completion=True)
                           for i, t in enumerate(self.types)])
        return None


def candidate_constants(t: ir.Type, ops) -> list:
    """Identity candidates of one element: 0, 1, -1, the operator's constants
    of type `t` and the type's extremes (for floats the infinities, unless
    the operator does arithmetic: its theory, the reals, has none)."""
    if t.is_bool():
        return [ir.Const(t, False), ir.Const(t, True)]
    values = [0, 1] + ([] if t.is_uint() else [-1])
    values += [n.value for e in ops for n in walk(e) if isinstance(n, ir.Const) and n.type == t]
    if t.is_integer():
        values += [t.min_value(), t.max_value()]
    elif not _float_arithmetic(ops):
        values += [float("-inf"), float("inf")]
    return [ir.Const(t, v) for v in dict.fromkeys(values)]


def screen(ops, types, combos: list, side: str, ys: list) -> list:
    """The candidate tuples that are `side` identities at the sample values
    `ys` (one array per element; all candidates evaluated at once)."""
    if not combos:
        return []
    n, c = len(ys[0]), len(combos)
    env = {}
    own, other = ("y", "x") if side == "left" else ("x", "y")
    for i, t in enumerate(types):
        values = [combo[i].value for combo in combos]
        col = np.array(values, dtype=object if t.is_float() else t.to_numpy())
        env[f"{other}{i}"] = np.repeat(col, n)
        env[f"{own}{i}"] = np.tile(ys[i], c)
    env["k0"] = env[f"{own}0"]
    try:
        outs = evaluate_tuple(ops, env)
    except (TypeError, ValueError):
        return list(combos)              # not evaluable here: Z3 decides
    ok = np.ones(c, bool)
    for i, o in enumerate(outs):
        same = np.asarray(o == env[f"{own}{i}"], dtype=bool).reshape(c, n)
        ok &= same.all(axis=1)
    return [combo for combo, good in zip(combos, ok) if good]


def _float_arithmetic(ops) -> bool:
    return any(isinstance(n, (ir.Add, ir.Sub, ir.Mul)) and n.type.is_float()
               for e in ops for n in walk(e))


def _z3_value(zm, t: ir.Type, v):
    return zm.const(t, bool(v) if t.is_bool() else (float(v) if t.is_float() else int(v)))


def _ir_value(t: ir.Type, v):
    """An ir.Const of a Z3 value, or None."""
    if t.is_bool():
        return ir.Const(t, z3.is_true(v))
    if t.is_integer() and z3.is_bv_value(v):
        return ir.Const(t, t.wrap(v.as_long()) if t.is_int() else v.as_long())
    if t.is_float() and z3.is_rational_value(v):
        return ir.Const(t, float(v.numerator_as_long()) / float(v.denominator_as_long()))
    return None


def _show(t: ir.Type, v) -> str:
    v = z3.simplify(v)
    if z3.is_bv_value(v):
        return str(t.wrap(v.as_long()) if t.is_int() else v.as_long())
    return str(v)
