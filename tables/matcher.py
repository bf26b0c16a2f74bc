"""The rfactor matcher: the associative operator behind an update's values,
found in the operator tables (CGO 2017, Section 4).

    match_update(values) -> MatchResult

`values` are the update's values (one per tuple element) in which every read
of the Func's own value at the left-hand side is a Variable of kind SELF
named x<i> (`match_canon.self_var`). Steps:

1. canonicalize (match_canon);
2. classify each element: unchanged (its value is x_i), guarded
   (`select(P, core, x_i)` with P free of x, or the lazy
   `if_then_else(P, core, x_i)`), a subtraction from the initial
   value (`x_i - e`, matched as `x_i + e` and merged by subtraction), or
   plain; an element that does not read any x (the last write wins) has no
   operator;
3. build the dependency graph and its maximal subgraphs (match_groups);
4. match each subgraph against the table entries of its size whose skeletons
   equal its own, for every order of its elements (match_index,
   match_pattern); when one fails, try groupings of related subgraphs;
5. check that an element shared by several subgraphs got the same operator,
   identity and y; apply the guards: `select(P, x op e, x)` is `x op y` with
   `y = select(P, e, identity)` (`if_then_else` for a lazy guard: e is
   evaluated only where P holds) when the operator has a right identity, and
   a guard shared by the whole update becomes an RDom predicate otherwise;
6. when the tables miss, synthesize the operator (tables/synth_hook.py,
   docs/synthesis.md; an operator synthesized before comes from its cache).

Nothing here knows any particular operator: what is recognized is what the
tables hold or synthesis proves. The only operators known here are the two projections the
tables exclude by construction (they use only one of x and y): an element the
update leaves unchanged (x) and one it overwrites without reading it (y, the
last write wins: associative, with only a left identity).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from pyhalide import ir

from . import match_index, synth_hook
from .grammar import REAL, float_theory
from .match_canon import SELF, XInfo, canonicalize, factoring_refusal, is_self, negate, self_index
from .match_form import expression_converter, skeleton
from .match_groups import groupings, maximal_subgraphs, reachable
from .match_guards import split_guards
from .match_pattern import PatternMatch
from .signed_zero import signed_zero_identities

MAX_TABLE_TUPLE = 4


@dataclass
class Block:
    """One matched group of elements: `elements[j]` is the update element that
    the entry's element j stands for."""

    elements: tuple
    entry: object
    ops: dict                  # update element -> op over x_i/y_i
    identities: dict           # update element -> identity
    ys: dict                   # update element -> bound expression
    commutative: bool
    identity_side: str
    source: str = "table"      # or how tables/synth.py proved it


@dataclass
class MatchResult:
    associative: bool
    reason: str = ""
    ops: tuple = ()            # per element, over Variables x<i>, y<i>
    identities: tuple = ()
    ys: tuple = ()             # per element: what y<i> stands for (None if unchanged)
    commutative: bool = False
    identity_side: str = ""    # both | left | right | none (over all blocks)
    blocks: list = field(default_factory=list)
    unchanged: frozenset = frozenset()
    negated: frozenset = frozenset()   # elements updated as x - y
    predicate: object = None   # a guard of the whole update, to add to the RDom
    tried: int = 0             # table candidates tried
    source: str = "table"      # table | synthesized | polynomial (tables/synth.py)
    synth_seconds: float = 0.0  # time spent in synthesis
    folded: dict = field(default_factory=dict)  # element -> (its y before the guard was
    #                            folded in, the value y takes where the guard is false)
    guarded: frozenset = frozenset()   # elements whose guard was folded or is the predicate
    split: bool = False        # matched with guards taken out of mixed conditions


def op_vars(types) -> tuple:
    """(x Variables, y Variables) of an operator over elements of `types`."""
    return (tuple(ir.Variable(t, f"x{i}") for i, t in enumerate(types)),
            tuple(ir.Variable(t, f"y{i}") for i, t in enumerate(types)))


class _Element:
    def __init__(self, i, value):
        self.index, self.value, self.core = i, value, value
        self.guard = None
        self.lazy = False            # the guard is an if_then_else: its core is evaluated
        #                              only where it holds
        self.unchanged = False
        self.assigned = False        # the value ignores every x: the last write wins
        self.negated = False
        self.subtraction = None      # the core as written, when matched as x + e


class _Search:
    def __init__(self, values, describe, synthesize=True):
        self.values = canonicalize(values)
        self.synthesize = synthesize
        self.types = tuple(v.type for v in values)
        self.describe = describe
        self.info = XInfo()
        self.conv = expression_converter()
        self.tried = 0
        self.block_cache = {}
        self.synth_seconds, self.synth_refusal = 0.0, ""

    def fail(self, reason) -> MatchResult:
        return MatchResult(False, reason, tried=self.tried, synth_seconds=self.synth_seconds)

    def name(self, i) -> str:
        return f"value {i} ({self.describe(self.values[i])})" if len(self.values) > 1 \
            else f"the value ({self.describe(self.values[i])})"

    # ---- step 2 -------------------------------------------------------------
    def classify(self):
        elems = []
        for i, v in enumerate(self.values):
            el = _Element(i, v)
            if is_self(v) and self_index(v) == i:
                el.unchanged = True
            elif not self.info.has_x(v):
                el.assigned = True
            else:
                self._guard(el)
                if not self.info.has_x(el.core):
                    return None, self.fail(
                        f"{self.name(i)} assigns a value that does not depend on the previous "
                        f"one, under a condition: the last write where the condition holds "
                        f"wins, which no operator on the value alone expresses")
            elems.append(el)
        return elems, None

    def _guard(self, el):
        v = el.value
        lazy = ir.is_lazy_select(v)
        if isinstance(v, ir.Select):
            cond, then_v, else_v = v.condition, v.true_value, v.false_value
        elif lazy:
            cond, then_v, else_v = v.args
        if (isinstance(v, ir.Select) or lazy) and not self.info.has_x(cond):
            xi = ir.Variable(self.types[el.index], f"x{el.index}", SELF)
            if ir.equal(else_v, xi) and self.info.has_x(then_v):
                el.guard, el.core, el.lazy = cond, then_v, lazy
            elif ir.equal(then_v, xi) and self.info.has_x(else_v):
                el.guard, el.core, el.lazy = negate(cond), else_v, lazy
        c = el.core
        if isinstance(c, ir.Sub) and self.info.xs(c) == {el.index} and \
                is_self(c.a) and not self.info.has_x(c.b):
            el.negated, el.subtraction = True, c
            el.core = ir.Add(c.a, c.b)

    # ---- step 4 -------------------------------------------------------------
    def match_block(self, elements: frozenset):
        if elements in self.block_cache:
            return self.block_cache[elements]
        result = self._match_block(sorted(elements))
        self.block_cache[elements] = result
        return result

    def _match_block(self, elements: list):
        k = len(elements)
        if k > MAX_TABLE_TUPLE:
            return None
        ms = {g: self.conv(self.cores[g]) for g in elements}
        indexes = [match_index.index_for(t) for t in dict.fromkeys(self.types[g] for g in elements)]
        for perm in itertools.permutations(elements):
            inv = {g: j for j, g in enumerate(perm)}
            skels = tuple(skeleton(ms[g], inv) for g in perm)
            actual = tuple(self.types[g] for g in perm)
            for idx in indexes:
                for item in idx.candidates(skels):
                    if not match_index.types_fit(item, actual):
                        continue
                    self.tried += 1
                    pm = PatternMatch(dict(enumerate(perm)),
                                      match_index.pattern_types(item, actual), self.conv)
                    for b in pm.elements(zip(item.patterns, (ms[g] for g in perm))):
                        return self._block(item, perm, b)
        return None

    def _block(self, item, perm, b) -> Block:
        entry = item.entry
        xs, ys = op_vars(self.types)
        sub = {f"x{j}": xs[g] for j, g in enumerate(perm)}
        sub.update({f"y{j}": ys[g] for j, g in enumerate(perm)})
        if "k0" in b:
            sub["k0"] = b["k0"]
        ops, ids, bound = {}, {}, {}
        for j, g in enumerate(perm):
            ops[g] = ir.substitute(entry.ops[j], sub)
            ident = ir.substitute(entry.identities[j], {"k0": b["k0"]} if "k0" in b else {})
            ids[g] = match_index.identity_as(ident, self.types[g]) if j in item.carried else ident
            bound[g] = b.get(f"y{j}")
        return Block(tuple(perm), entry, ops, ids, bound, entry.commutative, entry.identity_side)

    # ---- the search ----------------------------------------------------------
    def run(self) -> MatchResult:
        elems, refusal = self.classify()
        if refusal is not None:
            return refusal
        self.elems = elems
        assigned = [self._assigned_block(el) for el in elems if el.assigned]
        changed = [el for el in elems if not el.unchanged and not el.assigned]
        if not changed:
            return self.assemble(assigned, elems)
        self.cores = {el.index: el.core for el in elems}
        deps = {}
        for el in changed:
            reads = set(self.info.xs(el.core))
            for j in reads:
                if (elems[j].unchanged or elems[j].assigned) and j != el.index:
                    return self.fail(f"{self.name(el.index)} reads value {j}, which the update "
                                     f"leaves unchanged or overwrites; keep them in separate "
                                     f"Funcs")
            deps[el.index] = reads
        subgraphs = maximal_subgraphs(reachable(deps))
        for el in changed:       # x - e is a subtraction only where it stands alone
            if el.negated and frozenset((el.index,)) not in subgraphs:
                el.negated, el.core = False, el.subtraction
                self.cores[el.index] = el.core
        blocks = self._first_partition(subgraphs)
        if blocks is None:
            blocks = self._grouped(subgraphs)
        if blocks is None and self.synthesize:
            blocks = synth_hook.synthesized(self, subgraphs, changed, self._consistent)
        if blocks is None:
            reason = self._failure_reason(subgraphs)
            return self.fail(reason + (f"; {self.synth_refusal}" if self.synth_refusal else ""))
        return self.assemble(assigned + blocks, elems)

    def _assigned_block(self, el) -> Block:
        """An element whose update ignores the previous value: the operator
        y (the last write wins) is associative, with a left identity only and
        not commutative. The tables hold operators that use both x and y, so
        this projection (like the unchanged element's x) is known here."""
        g, t = el.index, self.types[el.index]
        y = ir.Variable(t, f"y{g}")
        return Block((g,), None, {g: y}, {g: ir.zero(t)}, {g: el.value}, False, "left")

    def _first_partition(self, subgraphs):
        out = []
        for s in subgraphs:
            b = self.match_block(s)
            if b is None:
                return None
            out.append(b)
        return out

    def _grouped(self, subgraphs):
        if len(subgraphs) < 2:
            return None
        frees = {s: self._free_parts(s) for s in subgraphs}

        def related(a, b):
            return bool(a & b) or bool(frees[a] & frees[b])

        for blocks in groupings(subgraphs, related, MAX_TABLE_TUPLE):
            out = []
            for elements in blocks:
                b = self.match_block(elements)
                if b is None:
                    break
                out.append(b)
            else:
                if self._consistent(out) is None:
                    return out
        return None

    def _free_parts(self, s) -> set:
        """Printed maximal x-free subexpressions of the cores in s (what
        `related` compares)."""
        out = set()
        for g in s:
            stack = [self.cores[g]]
            while stack:
                n = stack.pop()
                if not self.info.has_x(n):
                    if not isinstance(n, (ir.Const,)):
                        out.add(ir.expr_to_str(n))
                else:
                    stack.extend(ir.children(n))
        return out

    def _failure_reason(self, subgraphs) -> str:
        for s in subgraphs:
            if self.match_block(s) is not None:
                continue
            first = min(s)
            why = factoring_refusal(self.cores[first], self.info) if len(s) == 1 else ""
            if why:
                return f"{self.name(first)} is not associative: {why}"
            names = ", ".join(str(g) for g in sorted(s))
            types = ", ".join(sorted({str(self.types[g]) for g in s}))
            values = ", ".join(self.describe(self.values[g]) for g in sorted(s))
            what = self.name(first) if len(s) == 1 else \
                f"values {names}, which read each other's previous values ({values}),"
            if len(s) > MAX_TABLE_TUPLE:
                return (f"{what} form an operator over {len(s)} elements; the tables hold "
                        f"operators of at most {MAX_TABLE_TUPLE} elements")
            return (f"{what} {'match' if len(s) > 1 else 'matches'} no associative operator "
                    f"of the {types} tables ({self.tried} candidates of the same shape tried)")
        return "the operators of the subgraphs disagree on a shared element"

    # ---- step 5 -------------------------------------------------------------
    def _consistent(self, blocks):
        """None if shared elements agree, else a reason."""
        seen = {}
        for b in blocks:
            for g in b.elements:
                if g in seen:
                    other = seen[g]
                    for what, d1, d2 in (("operators", b.ops, other.ops),
                                         ("identities", b.identities, other.identities),
                                         ("ys", b.ys, other.ys)):
                        if not _same(d1[g], d2[g]):
                            return (f"{self.name(g)} is part of two operators that give it "
                                    f"different {what}: {ir.expr_to_str(d2[g])} and "
                                    f"{ir.expr_to_str(d1[g])}")
                else:
                    seen[g] = b
        return None

    def assemble(self, blocks, elems) -> MatchResult:
        why = self._consistent(blocks)
        if why:
            return self.fail(why)
        n = len(elems)
        xs, _ = op_vars(self.types)
        ops, ids, ys = list(xs), [ir.zero(t) for t in self.types], [None] * n
        owner = {}
        for b in blocks:
            for g in b.elements:
                ops[g], ids[g], ys[g] = b.ops[g], b.identities[g], b.ys[g]
                owner.setdefault(g, []).append(b)
        predicate, folded = None, {}
        guards = [el for el in elems if el.guard is not None]
        if guards:
            predicate, refusal = self._apply_guards(blocks, elems, ys, ids, folded)
            if refusal:
                return self.fail(refusal)
        sides = {b.identity_side for b in blocks} or {"both"}
        side = "both" if sides == {"both"} else \
            ("left" if sides <= {"left", "both"} else
             ("right" if sides <= {"right", "both"} else "none"))
        ids = signed_zero_identities(ops, ids, self.types, side)
        return MatchResult(True, "", tuple(ops), tuple(ids), tuple(ys),
                           all(b.commutative for b in blocks), side, blocks,
                           frozenset(el.index for el in elems if el.unchanged),
                           frozenset(el.index for el in elems if el.negated), predicate,
                           self.tried, synth_hook.source(blocks), self.synth_seconds, folded,
                           frozenset(el.index for el in guards))

    def _apply_guards(self, blocks, elems, ys, ids, folded_ys):
        """Fold the guards into the ys (returns (predicate, refusal)); records
        each folded element's y and fill in `folded_ys`."""
        changed = [el for el in elems if not el.unchanged]
        shared = all(el.guard is not None and ir.equal(el.guard, changed[0].guard)
                     for el in changed)
        folded = []
        for b in blocks:
            gs = [elems[g].guard for g in b.elements]
            if all(g is None for g in gs):
                continue
            if any(g is None for g in gs) or not all(ir.equal(gs[0], g) for g in gs[1:]):
                return None, (f"values {', '.join(map(str, b.elements))} form one operator but "
                              f"are not all guarded by the same condition")
            fills, why = ({}, "its operator has no right identity to stand in when it is false") \
                if b.identity_side not in ("right", "both") else _fills(b, ids)
            if not why:
                folded.append((b, fills))
            elif not shared:
                return None, f"{self.name(b.elements[0])} is guarded by a condition, and {why}"
        if shared and len(folded) < len(blocks):
            return changed[0].guard, ""      # the whole update is guarded: a predicate
        for b, fills in folded:
            for g in b.elements:
                y = ys[g]
                if y is None:
                    continue
                folded_ys[g] = (y, fills[g])
                if elems[g].lazy:        # y is evaluated only where the guard holds
                    ys[g] = ir.lazy_select(elems[g].guard, y, fills[g])
                else:
                    ys[g] = ir.Select(elems[g].guard, y, fills[g])
        return None, ""


def _fills(b: Block, ids) -> tuple:
    """({element: the value y takes where the guard is false}, '') when it
    keeps f's value as it is, else ({}, why not). Integer elements take the
    tables' identity (proven in wrapping arithmetic); float operators that
    compare and copy too (pyhalide/rfactor_nan.py checks their own form, NaN
    and signed zeros included). Float arithmetic is checked here in IEEE
    arithmetic, bit for bit: `x + 0.0` turns -0.0 into +0.0, so a float sum
    takes -0.0 (`x + -0.0 == x` for every x)."""
    fills = {g: ids[g] for g in b.elements}
    floats = [g for g in b.elements if b.ops[g].type.is_float()]
    if not floats or float_theory([b.ops[g] for g in floats]) != REAL:
        return fills, ""
    from .float_domain import fill_keeps
    forms = {f"x{g}": b.ops[g] for g in b.elements}
    zeros = [g for g in floats if isinstance(ids[g], ir.Const) and ids[g].value == 0]
    flipped = {**fills, **{g: ir.Const(ids[g].type, -ids[g].value) for g in zeros}}
    why = ""
    for choice in (flipped, fills) if zeros else (fills,):
        why = fill_keeps(forms, {f"y{g}": c for g, c in choice.items()})
        if not why:
            return choice, ""
    return {}, f"no value of y in its place keeps every value: {why}"


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return ir.equal(a, b)


def match_update(values, describe=ir.expr_to_str) -> MatchResult:
    """The associative operator of an update whose values are `values` (with
    the Func's own value as SELF Variables x<i>), or a refusal with a reason.
    An update with a guard inside a mixed condition (tables/match_guards.py)
    is matched as written in the tables, then with the guard taken out, then
    as written with synthesis: an operator that holds an x-free boolean
    itself (`x && (v || k != x)`) is matched as it is."""
    values = tuple(values)
    m = _Search(values, describe, synthesize=False).run()
    if m.associative:
        return m
    split = split_guards(values)
    if split is not values:
        m = _Search(split, describe, synthesize=False).run()
        if m.associative:
            m.split = True
            return m
    m = _tree_match(values, describe)
    if m is not None:
        return m
    return _Search(values, describe).run()


def _tree_match(values, describe):
    """A one-element update written as an `if`/`elif` chain over x-free
    conditions whose branches apply one table operator to different values
    (`if c: s += a elif d: s += 2 * a`): the operator with y the same chain
    over the branches' ys, and the fill (as for a guard) where no branch
    applies. Integers only where a branch subtracts (a float `x - e` is not
    `x + (0 - e)` for signed zeros). None when it is not such an update."""
    from .match_guards import guard_tree, tree_leaves, tree_value
    if len(values) != 1 or is_self(values[0]):
        return None
    tree = guard_tree(values[0])
    if tree is None:
        return None
    t = values[0].type
    x = ir.Variable(t, "x0", SELF)
    leaves = [v for v in tree_leaves(tree) if not ir.equal(v, x)]
    matches = [_Search((v,), describe, synthesize=False).run() for v in leaves]
    if not matches or not all(m.associative and m.predicate is None and not m.guarded
                              for m in matches):
        return None
    first = matches[0]
    if any(not _same(m.ops[0], first.ops[0]) or not _same(m.identities[0], first.identities[0])
           for m in matches) or first.identity_side not in ("right", "both"):
        return None
    if t.is_float() and any(m.negated for m in matches):
        return None
    b = first.blocks[0]
    fills, why = _fills(b, first.identities)
    if why:
        return None
    ys = {id(v): (ir.Sub(ir.zero(t), m.ys[0]) if m.negated else m.ys[0])
          for v, m in zip(leaves, matches)}
    y = tree_value(tree, lambda v: fills[0] if ir.equal(v, x) else ys[id(v)])
    return MatchResult(True, "", first.ops, first.identities, (y,), first.commutative,
                       first.identity_side, first.blocks, first.unchanged, frozenset(), None,
                       sum(m.tried for m in matches), first.source, 0.0)


__all__ = ["match_update", "MatchResult", "Block", "op_vars", "SELF"]
