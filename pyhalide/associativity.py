"""`prove_associativity(stage)`: the associative operator behind an update.

The update's run-time checks (`pyhalide.checks`: @pipeline's index and
division checks) are on the point, not on the value: they are set aside
(`AssociativeOp.checks`) and the operator is found in what they guard. The
update's reads of its own Func at exactly its left-hand-side coordinates
become the operator's x_i; the table matcher (`pyhalide.tables.matcher`)
finds the operator, its identities, its commutativity and what each y_i
stands for. A read of the Func anywhere else (other coordinates, the
left-hand side, an RDom predicate) is not a reduction the tables describe,
and is refused with the reason.

An update rfactor builds with an operator outside the tables (the
lexicographic argmin/argmax that combines partial results, see
rfactor_lex.py) is registered with that operator by `register`, and answered
from that record.
"""
from __future__ import annotations

import time
import weakref

from . import ir
from .checks import shown
from .checks import strip as strip_checks
from .expr import Expr


class AssociativeOp:
    """The answer of `prove_associativity`.

    associative: bool; reason: why not ('' if associative);
    ops: one Expr per tuple element over x0.. (the partial result) and y0..
    (the new value); identities: one Expr per element; commutative: bool;
    ys: what each y_i stands for in the update (None for an element the
    update leaves unchanged; for an update `f - e`, y is `0 - e`);
    identity_side: "both", "left" ("f(id, v) == v"), "right" or "none";
    source: where the operator came from: "table" (an entry of the tables),
    "synthesized" (split from the update and proven by Z3 at compile time) or
    "polynomial" (synthesized, associativity proven as a polynomial identity);
    search_time: seconds spent finding it (synthesis_time: of which in synthesis)."""

    def __init__(self, associative, ops=(), identities=(), commutative=False, ys=(),
                 reason="", identity_side="", search_time=0.0, match=None, predicate=None,
                 checks=(), source="table", synthesis_time=0.0):
        self.associative = associative
        self.source = source
        self.synthesis_time = synthesis_time
        self.ops = tuple(Expr.wrap(o) for o in ops)
        self.identities = tuple(Expr.wrap(i) for i in identities)
        self.commutative = commutative
        self.ys = tuple(None if y is None else Expr.wrap(y) for y in ys)
        self.reason = reason
        self.identity_side = identity_side
        self.search_time = search_time
        self.match = match              # the matcher's MatchResult (blocks, negated, ...)
        self.predicate = predicate      # a guard of the whole update, for rfactor
        self.checks = tuple(checks)     # the update's run-time checks (pyhalide.checks),
        #                                 which the operator leaves out; rfactor keeps them

    def __bool__(self):
        return self.associative

    def __str__(self):
        if not self.associative:
            return f"not associative: {self.reason}"
        ops = ", ".join(str(o) for o in self.ops)
        ids = ", ".join(str(i) for i in self.identities)
        ys = ", ".join(f"y{i} = {y}" for i, y in enumerate(self.ys) if y is not None)
        if len(self.ops) > 1:
            ops, ids = "{" + ops + "}", "{" + ids + "}"
        text = (f"ops: {ops}; identities: {ids}; "
                f"{'commutative' if self.commutative else 'not commutative'}; {ys}")
        if self.predicate is not None:
            text += f"; where {ir.expr_to_str(self.predicate)}"
        return text

    def __repr__(self):
        return f"<pyhalide.AssociativeOp {self}>"


# ---- records of updates rfactor built ------------------------------------------------
_registered: dict = {}          # id(definition) -> (weakref, values, AssociativeOp)
_cache: dict = {}               # id(definition) -> (weakref, values, (tables generation, op))


def register(definition: ir.Definition, op: AssociativeOp):
    """Record that `definition` (as it is now) applies the operator `op`."""
    _registered[id(definition)] = (weakref.ref(definition), definition.values, op)


def _lookup(table, definition, key):
    hit = table.get(id(definition))
    if hit is not None and hit[0]() is definition and hit[1] is key:
        return hit[2]
    return None


# ---- the proof -----------------------------------------------------------------------
def _stage_parts(stage):
    from .func import Func, Stage
    if isinstance(stage, Func):
        return None, stage.function(), f"Func {stage.name()}"
    if not isinstance(stage, Stage):
        raise TypeError(f"prove_associativity needs an update stage (f.update(i)), "
                        f"not {type(stage).__name__}")
    if stage.index() == 0:
        return None, stage.function(), f"Func {stage.name()}"
    return stage.definition(), stage.function(), f"Func {stage.name()}"


class _SelfRefs(ir.Mutator):
    """Reads of Func `fn` at the left-hand side -> SELF Variables x<i>."""

    def __init__(self, fn: ir.Function, lhs: tuple):
        super().__init__()
        self.fn, self.lhs, self.elsewhere = fn, lhs, []

    def visit_Call(self, c):
        if c.call_type == ir.FUNC and (c.func is self.fn or c.name == self.fn.name):
            if len(c.args) == len(self.lhs) and all(ir.equal(a, b) for a, b in zip(c.args, self.lhs)):
                from .tables.match_canon import self_var
                return self_var(c.type, c.value_index)
            self.elsewhere.append(c)
        return self.mutate_children(c)


def _reads_self(fn, exprs) -> bool:
    return any(c.call_type == ir.FUNC and (c.func is fn or c.name == fn.name)
               for c in ir.find_calls(list(exprs)))


def _refuse(reason: str, start: float) -> AssociativeOp:
    return AssociativeOp(False, reason=reason, search_time=time.perf_counter() - start)


def prove_associativity(stage) -> AssociativeOp:
    """The associative operator of update `stage` (`f.update(i)`), or
    `.associative == False` with a `.reason`."""
    start = time.perf_counter()
    d, fn, name = _stage_parts(stage)
    if d is None:
        return _refuse(f"{name} is the pure definition, not an update", start)
    known = _lookup(_registered, d, d.values)
    if known is not None:
        return known
    from .tables.match_index import generation
    cached = _lookup(_cache, d, d.values)
    if cached is not None and cached[0] == generation():
        return cached[1]
    op = _prove(d, fn, name, start)
    _cache[id(d)] = (weakref.ref(d), d.values, (generation(), op))
    return op


def _prove(d: ir.Definition, fn: ir.Function, name: str, start: float) -> AssociativeOp:
    from .tables.matcher import match_update
    if _reads_self(fn, d.args):
        return _refuse(f"{name} computes where it writes from {fn.name} itself", start)
    if _reads_self(fn, d.predicates):
        return _refuse(f"{name} has an RDom predicate that reads {fn.name}, so whether a "
                       f"point takes part depends on the partial result", start)
    values, checks = strip_checks(d.values)
    if _reads_self(fn, checks):
        return _refuse(f"{name} has a run-time check (of an index or a division) that reads "
                       f"{fn.name}, so whether it raises depends on the partial result", start)
    refs = _SelfRefs(fn, tuple(d.args))
    values = tuple(refs.mutate(v) for v in values)
    if refs.elsewhere:
        c = refs.elsewhere[0]
        lhs = ", ".join(ir.expr_to_str(shown(a)) for a in d.args)
        return _refuse(f"{name} reads {ir.expr_to_str(shown(c))}, a value of {fn.name} other "
                       f"than the one it writes ({fn.name}({lhs})), so it is not a reduction of the "
                       f"values written", start)
    calls = {f"x{i}": ir.Call(t, fn.name, tuple(d.args), ir.FUNC, i)
             for i, t in enumerate(fn.output_types)}
    if len(fn.output_types) == 1:
        calls = {"x0": ir.Call(fn.output_types[0], fn.name, tuple(d.args), ir.FUNC, 0)}

    def describe(e):
        return ir.expr_to_str(ir.substitute(shown(e), calls))

    m = match_update(values, describe)
    elapsed = time.perf_counter() - start
    if not m.associative:
        return AssociativeOp(False, reason=f"{name}: {m.reason}", search_time=elapsed, match=m,
                             synthesis_time=m.synth_seconds)
    ys = [None if y is None else (ir.Sub(ir.zero(y.type), y) if i in m.negated else y)
          for i, y in enumerate(m.ys)]
    return AssociativeOp(True, m.ops, m.identities, m.commutative, ys, "", m.identity_side,
                         elapsed, m, m.predicate, checks, m.source, m.synth_seconds)
