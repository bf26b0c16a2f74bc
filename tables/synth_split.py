"""Taking an update apart into an operator op(x, y) (tables/synth.py, step 1
and 2): the inputs the y's stand for, the ways to give each element's y one
of them, the operator of one way, the canonical text of the update (the
cache key) and the operations synthesis does not model.

    inputs_of(cores, n, info) -> list | None
    assignments(inputs, types) -> list of tuples slot -> input
    build_ops(cores, types, inputs, slots, self_names) -> tuple of Exprs
    canonical_text(cores, types, inputs, self_names) -> str
    unmodelled(ops) -> str
    no_inputs(cores, info) -> str              (the refusal when inputs_of fails)
"""
from __future__ import annotations

import itertools

from pyhalide import ir
from pyhalide.ir.ops import substitute_exprs

from .grammar import walk
from .match_canon import XInfo, is_self

MAX_ASSIGNMENTS = 800


def _constant_only(e) -> bool:
    return not any(isinstance(n, (ir.Variable, ir.Call)) for n in walk(e))


def _add_unique(out: list, e):
    if not any(ir.equal(e, o) for o in out):
        out.append(e)


def _maximal_free(cores, info: XInfo) -> list:
    """Distinct maximal x-free, non-constant subterms, in order of appearance."""
    out: list = []

    def visit(n):
        if not info.has_x(n):
            if not _constant_only(n):
                _add_unique(out, n)
            return
        for c in ir.children(n):
            visit(c)

    for c in cores:
        visit(c)
    return out


def _contains(big, small) -> bool:
    return big is not small and any(ir.equal(n, small) for n in walk(big) if n is not big)


def _size(e) -> int:
    return sum(1 for _ in walk(e))


def inputs_of(cores, n: int, info: XInfo) -> list | None:
    """The inputs the elements' y's stand for (at most n), or None."""
    terms = _maximal_free(cores, info)
    while len(terms) > n:
        inner = [t for t in terms if any(_contains(t, o) for o in terms)]
        split = inner[0] if inner else max(terms, key=_size)
        if isinstance(split, ir.Call):      # an input's read is not taken apart
            return None
        parts = [c for c in ir.children(split) if not _constant_only(c)]
        if not parts:
            return None
        at = terms.index(split)
        rest = terms[:at] + parts + terms[at + 1:]
        terms = []
        for t in rest:
            _add_unique(terms, t)
    return terms


def assignments(inputs: list, types: tuple) -> list:
    """Tuples slot -> input index, every input used, types agreeing; the
    order of appearance first."""
    n, m = len(types), len(inputs)
    choices = [[j for j in range(m) if inputs[j].type == types[i]] for i in range(n)]
    natural = tuple(min(i, m - 1) for i in range(n))
    found = []
    for a in itertools.product(*choices):
        if len(set(a)) == m:
            found.append(a)
            if len(found) >= MAX_ASSIGNMENTS:
                break
    return sorted(found, key=lambda a: sum(x != y for x, y in zip(a, natural)))


def build_ops(cores, types, inputs, slots, self_names) -> tuple:
    """The operator of `slots` (slot -> input): element i reads input j as y<i>
    when its own slot holds j, else as the first slot holding j."""
    xs = _local_xs(types, self_names)
    out = []
    for i, core in enumerate(cores):
        pairs = []
        for j, e in enumerate(inputs):
            s = i if slots[i] == j else slots.index(j)
            pairs.append((e, ir.Variable(types[s], f"y{s}")))
        op = substitute_exprs(core, pairs)
        out.append(_Rename(xs).mutate(op))
    return tuple(out)


class _Rename(ir.Mutator):
    def __init__(self, xs):
        super().__init__()
        self.xs = xs

    def visit_Variable(self, v):
        return self.xs[v.name] if is_self(v) else v


_MODELLED = (ir.Variable, ir.Const, ir.Select, ir.Not, ir.BitNot, ir.Add, ir.Sub, ir.Mul,
             ir.Min, ir.Max, ir.BitAnd, ir.BitOr, ir.BitXor, ir.And, ir.Or, ir.LT, ir.LE,
             ir.GT, ir.GE, ir.EQ, ir.NE)


def unmodelled(ops) -> str:
    """The first operation of `ops` that the random test and the proofs do not
    model (the tables' grammar, casts between integers and is_nan), or ''."""
    for e in ops:
        for n in walk(e):
            if isinstance(n, _MODELLED):
                continue
            if isinstance(n, ir.Cast) and n.type.is_integer() and \
                    (n.value.type.is_integer() or n.value.type.is_bool()):
                continue
            if isinstance(n, ir.Call) and n.name == "is_nan":
                continue
            return ir.expr_to_str(n)
    return ""


def _local_xs(types, self_names) -> dict:
    """SELF name -> the operator's x<j> (element j of the group)."""
    return {name: ir.Variable(t, f"x{j}") for j, (name, t) in enumerate(zip(self_names, types))}


def canonical_text(cores, types, inputs, self_names) -> str:
    """The cores with x's local and the inputs named i0.. (the cache key's text)."""
    named = [(e, ir.Variable(e.type, f"i{j}")) for j, e in enumerate(inputs)]
    xs = _local_xs(types, self_names)
    texts = [ir.expr_to_str(_Rename(xs).mutate(substitute_exprs(c, named))) for c in cores]
    return "|".join(str(t) for t in types) + "::" + " ; ".join(texts)


def no_inputs(cores, info) -> str:
    terms = _maximal_free(cores, info)
    if not terms:
        return "it reads no input besides its previous value"
    shown = ", ".join(ir.expr_to_str(t) for t in terms[:4]) + (", ..." if len(terms) > 4 else "")
    n = len(cores)
    return (f"it combines {len(terms)} inputs ({shown}) with its previous value, more than "
            f"its {n} value{'s' if n > 1 else ''} can carry into an operator on the values")
