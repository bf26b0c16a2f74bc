"""On-the-fly operator synthesis: the associative operator of an update (or
of a group of its elements) the tables have no entry for.

    synthesize(cores, types, budget) -> Synthesized

`cores` are update values over the SELF Variables x<i> of the group (the
matcher's cores: guards and the `x - e` form already taken apart) and
`types` their element types. Steps, within `budget` seconds (steps 1 and 2
are tables/synth_split.py):

1. abstraction: the maximal subterms free of every x are the candidate
   inputs; while there are more of them than elements, one that contains
   another (`255 - a` contains `a`), else the largest, is replaced by its
   non-constant parts (`leaves`);
2. every way to give each element's y one of those inputs (types agreeing,
   every input used) yields an operator op(x, y); each is tried on random
   triples (integers wrap, floats exact) before a proof;
3. associativity is proven as a polynomial identity when every element is a
   polynomial (tables/polynomial.py), else by Z3 (synth_prove.py); then the
   identity and its side, and commutativity.

A refusal names the law that failed and, where Z3 refuted it, its
counterexample. Results are cached on disk by canonical form
(tables/synth_cache.py).
"""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field

import numpy as np

from pyhalide import ir

from . import synth_cache, synth_split
from .grammar import FP, float_theory
from .match_canon import XInfo
from .npeval import evaluate_tuple
from .samples import make_samples
from .syntax import format_expr
from .synth_split import build_ops, canonical_text, inputs_of, no_inputs, unmodelled

DEFAULT_BUDGET = 2.0         # seconds; PYHALIDE_SYNTH_SECONDS overrides (0: no synthesis)
MAX_ELEMENTS = 6
N_SAMPLES = 128

POLYNOMIAL, SYNTHESIZED = "polynomial", "synthesized"


def budget() -> float:
    """The synthesis time limit in seconds (0 turns synthesis off)."""
    text = os.environ.get("PYHALIDE_SYNTH_SECONDS", "")
    try:
        return max(0.0, float(text)) if text else DEFAULT_BUDGET
    except ValueError:
        return DEFAULT_BUDGET


WALL_SLACK = 20.0

_memo: dict = {}         # canonical text -> Synthesized, proven in this process


def forget() -> None:
    """Drop what this process synthesized (the next call reads the disk cache)."""
    _memo.clear()


class Deadline:
    """A limit on the CPU time of this process (z3 runs in it), so that
    whether synthesis finishes does not depend on the machine's load.
    `wall_ms()`: a wall-clock limit for one Z3 query that leaves it the CPU
    time left when the process gets a share of a core (the load average per
    core, at most WALL_SLACK times)."""

    def __init__(self, seconds: float):
        self.end = time.process_time() + seconds

    def left(self) -> float:
        return self.end - time.process_time()

    def expired(self) -> bool:
        return self.left() <= 0

    def wall_ms(self) -> int:
        share = os.getloadavg()[0] / (os.cpu_count() or 1)
        return int(self.left() * 1000 * min(WALL_SLACK, max(1.0, share)))


@dataclass
class Synthesized:
    """The operator of a group over local x0.., y0.. (element j of the group is
    x<j>), or a refusal (`ops` empty, `reason` says why)."""

    ops: tuple = ()
    identities: tuple = ()
    identity_side: str = ""
    commutative: bool = False
    source: str = ""                   # POLYNOMIAL or SYNTHESIZED
    ys: tuple = ()                     # what each y<j> stands for in the update
    reason: str = ""
    seconds: float = 0.0
    cached: bool = False
    complete: bool = True              # every split was decided (a refusal may be cached)
    key: str = ""
    slots: tuple = field(default=(), repr=False)   # y<j> -> index of its input in `inputs`

    def __bool__(self):
        return bool(self.ops)


# ---- random triples --------------------------------------------------------------
class _Samples:
    """Random triples (x, y, z) per element (the tables' sample values)."""

    def __init__(self, types):
        n = len(types)
        by_type = {t: make_samples(t, n, 0, N_SAMPLES) for t in dict.fromkeys(types)}

        def col(which, i, t):
            a = getattr(by_type[t], which)[i]
            return a.astype(object) if t.is_float() else a

        self.x = [col("a", i, t) for i, t in enumerate(types)]
        self.y = [col("b", i, t) for i, t in enumerate(types)]
        self.z = [col("c", i, t) for i, t in enumerate(types)]


def _apply(ops, xs, ys):
    env = {"k0": xs[0]}
    for i, (x, y) in enumerate(zip(xs, ys)):
        env[f"x{i}"], env[f"y{i}"] = x, y
    return evaluate_tuple(ops, env)


def random_failure(ops, s: _Samples):
    """The first sample triple (a, b, c) at which op(op(a, b), c) differs from
    op(a, op(b, c)), or None (also when the exact evaluator cannot hold a
    float constant: then the proof decides)."""
    try:
        lhs = _apply(ops, _apply(ops, s.x, s.y), s.z)
        rhs = _apply(ops, s.x, _apply(ops, s.y, s.z))
    except ValueError:
        return None
    bad = np.zeros(len(s.x[0]), bool)
    for u, v in zip(lhs, rhs):
        bad |= np.broadcast_to(np.asarray(u != v, dtype=bool), bad.shape)
    if not bad.any():
        return None
    j = int(np.flatnonzero(bad)[0])
    return tuple([col[j] for col in cols] for cols in (s.x, s.y, s.z))


def random_commutative(ops, s: _Samples) -> bool:
    """False when op(x, y) != op(y, x) at a sample (a concrete counterexample)."""
    try:
        return all(np.array_equal(np.asarray(u), np.asarray(v))
                   for u, v in zip(_apply(ops, s.x, s.y), _apply(ops, s.y, s.x)))
    except ValueError:
        return True


# ---- 3. the search -----------------------------------------------------------------
def synthesize(cores, types, self_names=None, seconds: float | None = None) -> Synthesized:
    """The operator of `cores`, whose element j reads its previous value as the
    SELF Variable named self_names[j] (default x<j>); an operator synthesized
    before (this process's memo, the disk cache) is taken without a search, and
    without importing z3."""
    start = time.process_time()
    seconds = budget() if seconds is None else seconds
    info = XInfo()
    types = tuple(types)
    self_names = tuple(self_names or (f"x{j}" for j in range(len(types))))
    if len(cores) > MAX_ELEMENTS:
        return Synthesized(reason=f"operators of more than {MAX_ELEMENTS} elements are not "
                                  f"synthesized")
    inputs = inputs_of(cores, len(cores), info)
    if not inputs:
        return Synthesized(reason=no_inputs(cores, info))
    text = canonical_text(cores, types, inputs, self_names)
    hit = _memo.get(text)
    if hit is not None:
        return dataclasses.replace(hit, ys=tuple(inputs[j] for j in hit.slots), cached=True,
                                   seconds=time.process_time() - start)
    hit = synth_cache.load(text, types, inputs)
    if hit is not None:
        hit.seconds = time.process_time() - start
        return hit
    out = _search(cores, types, inputs, self_names, Deadline(seconds))
    out.key = text
    if out.ops or (out.reason.startswith("not associative") and out.complete):
        synth_cache.store(text, out)
        _memo[text] = out
    out.seconds = time.process_time() - start
    return out


def _copies_floats(ops) -> bool:
    """Float elements proven in the IEEE theory (no float arithmetic)."""
    return any(o.type.is_float() for o in ops) and float_theory(ops) == FP


def _search(cores, types, inputs, self_names, deadline) -> Synthesized:
    assignments = synth_split.assignments(inputs, types)
    if not assignments:
        return Synthesized(reason="no way to give each value an input of its type was found")
    what = unmodelled(build_ops(cores, types, inputs, assignments[0], self_names))
    if what:
        return Synthesized(reason=f"its operator uses {what}, which synthesis does not model "
                                  f"(the tables' operations, integer casts)")
    # z3 is imported here, only when a proof is needed
    from .prove import PROVED, REFUTED
    from .synth_prove import Prover
    samples = _Samples(types)
    first_failure = None
    undecided = False
    float_compare = False
    for slots in assignments:
        if deadline.expired():
            undecided = True
            break
        ops = build_ops(cores, types, inputs, slots, self_names)
        point = random_failure(ops, samples)
        if point is not None:
            first_failure = first_failure or (ops, point, "")
            continue
        prover = Prover(ops, types, deadline)
        verdict = prover.associative()
        if verdict == REFUTED:
            first_failure = first_failure or (ops, None, prover.counterexample())
            continue
        if verdict != PROVED:
            undecided = True
            continue
        if any(o.type.is_float() for o in ops) and not prover.by_polynomial:
            # float compares and selects: the proof's IEEE model and the compiled code
            # disagreed on NaN inputs (a lexicographic float argmin was accepted and
            # rfactor changed its index); only + - * polynomials are synthesized for floats
            float_compare = True
            continue
        found = prover.find_identity(samples)
        if found is None and deadline.expired():
            undecided = True
            break
        ident, side = found or (tuple(ir.zero(t) for t in types), "none")
        # the FP theory equates +0 and -0: a float operator that only compares and
        # copies (max-like) may give either zero on a tie, so commutativity, which
        # lets rfactor interleave, is not claimed for it (bits could differ)
        commutative = not _copies_floats(ops) and random_commutative(ops, samples) and \
            prover.commutative() == PROVED
        return Synthesized(ops, tuple(ident), side, commutative,
                           "polynomial" if prover.by_polynomial else SYNTHESIZED,
                           tuple(inputs[j] for j in slots), slots=tuple(slots))
    if float_compare and first_failure is None:
        return Synthesized(reason="a float operator that compares or selects is not "
                                  "synthesized (only +, -, * polynomials are, for floats): "
                                  "the shipped tables hold the proven float min/max/select "
                                  "forms")
    if undecided and first_failure is None:
        return Synthesized(reason="the synthesis of its operator ran out of time (the limit "
                                  "is PYHALIDE_SYNTH_SECONDS)")
    if first_failure is None:
        return Synthesized(reason="no way to split the update into an operator on the "
                                  "previous and the new value was found")
    out = _refusal(*first_failure, types, deadline)
    out.complete = not undecided
    return out


def _refusal(ops, point, cex, types, deadline) -> Synthesized:
    """Why `ops` (the first split tried) is not an associative operator: the
    sample triple `point` that breaks the law, checked in Z3's theory, else
    Z3's counterexample `cex` (found by the search, or now: given at least a
    quarter of a second)."""
    from .prove import REFUTED
    from .synth_prove import Prover
    prover = Prover(ops, types, Deadline(max(deadline.left(), 0.25)))
    shown = ", ".join(format_expr(o) for o in ops)
    shown = shown if len(ops) == 1 else "{" + shown + "}"
    law = "op(op(a, b), c) == op(a, op(b, c))"
    if point is not None and prover.breaks_associativity(*point):
        cex = prover.show_point(*point)
    elif not cex:
        cex = prover.counterexample() if prover.associative() == REFUTED else ""
    return Synthesized(reason=f"not associative: the operator op(x, y) = {shown} (x the "
                              f"previous value, y the new one) breaks {law}"
                              + (f", for example at {cex} (Z3)" if cex else
                                 " on random values"))
