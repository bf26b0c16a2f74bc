"""Clamp unswitching: an innermost loop whose body clamps an index that moves
with the loop gets a clamp-free copy for the iterations where every such clamp
is the identity.

A NumPy operation on arrays whose shapes broadcast only at call time (`u[1:-1,
1:-1] * v[1:-1, 1:-1]` of two arguments: either slice may have length 1)
reads each operand at `max(min(x, n - 1), 0)` (frontend_ast/arrayexpr.py
broadcast_index): x itself unless the operand's length n is 1. In the loop
over x the clamp makes every load a gather. This pass rewrites an innermost
loop (serial or vectorized)

    for (x, lo, extent) { body }

where body holds integer clamps `min(e, B)` / `max(e, A)` with e linear in x
(through the lets of the body, themselves such clamps: the chains of
broadcast_index) and A, B independent of x, into

    if (safe) { for (x, lo, extent) { body with those clamps replaced by e } }
    else { for (x, lo, extent) { body } }

with `safe` the conjunction of `e <= B` and `e >= A` at the end of x's range
where each is hardest (e is linear in x), over the names in scope outside the
loop (a let of the body that does not depend on x is substituted), computed in
int64 with e's value at both ends inside int32's range (an int32 e that wraps,
`min(x + off, 5)` with off near 2^31, keeps its clamp: the else copy). Both
copies compute the same values; the first has dense loads. The branch is
made around the whole loop nest (_Loops): only a `safe` over names bound
outside the nest (extents, parameters) is used, so the test is made once
per realization and a perfect nest stays one. Only int32 clamps are
rewritten.

PYHALIDE_DEBUG=1 reports each loop unswitched."""
from __future__ import annotations

import functools

from pyhalide import ir
from pyhalide.ir.config import debug_print

from .branch_facts import conjuncts
from .cold_copies import cold_copies
from .linear import atom_key, linear_form
from .partition_loops import coefficient
from .simplify import simplify

KINDS = ("serial", "vectorized")


def unswitch_clamps(stmt: ir.Stmt) -> ir.Stmt:
    """(the copies codegen compiles cold, cold_copies, are left as they are)"""
    return _Loops(cold_copies(stmt)).mutate(stmt)


I64 = ir.Int(64)


def _extreme(lf, ranges: dict, largest: bool, conds: list):
    """The int64 value of linear form lf (of an int32 expression) at the end
    of the loop variables' ranges (name -> (lo, hi), int64) where it is
    largest (smallest), or a bound of it on that side; None if an atom
    other than a variable of `ranges` or a min/max (below) uses one of
    them. Its int32 computation wraps to the value computed here, and equals
    it where it lies in int32's range.

    An int32 atom min(a, b) / max(a, b) of linear forms that use the loop
    variables (a vector loop's `min(xo * 8, extent - 8) + lane`, a
    ShiftInwards split) is bounded by its operands' extremes: min(a, b) lies
    in [min(lo_a, lo_b), min(hi_a, hi_b)], max(a, b) in [max(lo_a, lo_b),
    max(hi_a, hi_b)]. Those hold of the int32 min/max where the operands do
    not wrap: `conds` gets the test that each operand's extremes lie in
    int32's range."""
    out = ir.Const(I64, lf.const)
    for atom, coef in lf.terms.values():
        if coef == 0:
            continue
        if isinstance(atom, ir.Variable) and atom.name in ranges:
            lo, hi = ranges[atom.name]
            v = hi if (coef > 0) == largest else lo
        elif any(ir.uses_var(atom, n) for n in ranges):
            v = _clamp_extreme(atom, ranges, (coef > 0) == largest, conds)
            if v is None:
                return None
        else:
            v = ir.Cast(I64, atom)
        out = ir.Add(out, ir.Mul(ir.Const(I64, coef), v))
    return out


def _clamp_extreme(atom, ranges: dict, largest: bool, conds: list):
    """A bound of int32 min/max `atom` on its largest (smallest) side over
    `ranges` (see _extreme), or None."""
    if not isinstance(atom, (ir.Min, ir.Max)) or atom.type != ir.Int(32):
        return None
    ends = []
    for operand in (atom.a, atom.b):
        lf = linear_form(operand)
        top, bottom = _extreme(lf, ranges, True, conds), _extreme(lf, ranges, False, conds)
        if top is None or bottom is None:
            return None
        conds += [_in_int32(top), _in_int32(bottom)]
        ends.append(top if largest else bottom)
    return (ir.Min if isinstance(atom, ir.Min) else ir.Max)(*ends)


def _in_int32(e: ir.Expr) -> ir.Expr:
    return ir.And(ir.GE(e, ir.Const(I64, -2 ** 31)), ir.LE(e, ir.Const(I64, 2 ** 31 - 1)))


def _safe(ranges: dict, keep: ir.Expr, bound: ir.Expr, is_min: bool):
    """The condition that clamp min(keep, bound) (max if not is_min) is keep
    wherever the loops of `ranges` reach: keep (linear in their variables)
    inside int32's range at both extremes (so everywhere between, with no
    wrap-around), and its largest value <= bound (smallest >= bound); None
    if keep is not linear in them."""
    lf = linear_form(keep)
    conds = []
    top, bottom = _extreme(lf, ranges, True, conds), _extreme(lf, ranges, False, conds)
    if top is None or bottom is None:
        return None
    b = ir.Cast(I64, bound)
    return ir.conjunction(conds + [_in_int32(top), _in_int32(bottom),
                                   ir.LE(top, b) if is_min else ir.GE(bottom, b)])


class _Replace(ir.Mutator):
    """Loops (by identity) replaced by their clamp-free copies, and the ifs
    of `taken` (by identity) by their then-case: their conditions are part
    of the test made before the copy."""

    stmts_only = True

    def __init__(self, fast: dict, taken: set):
        super().__init__()
        self.fast = fast
        self.taken = taken

    def visit_For(self, s):
        f = self.fast.get(id(s))
        return f if f is not None else self.mutate_children(s)

    def visit_IfThenElse(self, s):
        if id(s) in self.taken:
            return self.mutate(s.then_case)
        return self.mutate_children(s)


class _Loops(ir.Mutator):
    """Innermost loops with a safe test over names bound outside every loop
    around them: the outermost of those loops (the whole nest) gets the
    clamp-free copy, so that a perfect nest stays one in both copies
    (collapse_loops). A test reading an enclosing loop's variable or a name
    bound inside the nest leaves the loop alone."""

    memoize = False
    stmts_only = True       # Exprs are not walked: a let's value may be a DAG whose
                            # walk without a memo takes exponential time

    def __init__(self, cold: dict):
        super().__init__()
        self.cold = cold        # cold_copies: else branches left as they are
        self.bound = []         # names bound inside the current nest (loop variables, lets)
        self.loops = []         # the loops around, outermost first
        self.pending = []       # (safe, id(inner loop), clamp-free inner loop, ids of ifs taken)
        self.inner_loop = False  # whether the statement just walked holds a loop
        self.ifs = []           # (id(if), its condition) of the then-cases around, in the nest

    def _ranges(self, inner: ir.For):
        """name -> int64 (lo, hi) of inner's variable and the loops around
        it, or None where a loop's bounds use a name bound in the nest (a
        split's tail: not a box)."""
        out = {}
        for f in self.loops + [inner]:
            if any(n in self.bound for n in ir.free_vars([f.min, f.extent])):
                return None
            out[f.name] = _range(f)
        return out

    def visit_LetStmt(self, s):
        if not self.bound:
            return self.mutate_children(s)
        self.bound.append(s.name)
        try:
            return self.mutate_children(s)
        finally:
            self.bound.pop()

    def visit_IfThenElse(self, s):
        cold = id(s) in self.cold
        if not self.bound and not cold:
            return self.mutate_children(s)
        if not self.bound:
            then_case = self.mutate(s.then_case)
        else:
            self.ifs.append((id(s), s.condition))
            try:
                then_case = self.mutate(s.then_case)
            finally:
                self.ifs.pop()
        else_case = s.else_case if cold or s.else_case is None else self.mutate(s.else_case)
        if then_case is s.then_case and else_case is s.else_case:
            return s
        return ir.IfThenElse(s.condition, then_case, else_case)

    def _invariant_ifs(self) -> list:
        """(id, condition) of the ifs around whose then-case holds the loop
        walked, with conditions over names bound outside the nest (a split's
        `if (extent >= 8)`): in the clamp-free copy their conditions join
        the test and their else-cases (a short extent's loops) are dropped."""
        return [(k, c) for k, c in self.ifs
                if not ir.reads_memory(c) and not any(n in self.bound for n in ir.free_vars(c))]

    def visit_For(self, s):
        outermost = not self.bound
        if outermost:
            self.pending = []
        self.bound.append(s.name)
        self.loops.append(s)
        self.inner_loop = False
        try:
            body = self.mutate(s.body)
        finally:
            self.bound.pop()
            self.loops.pop()
        innermost, self.inner_loop = not self.inner_loop, True
        loop = s if body is s.body else ir.For(s.name, s.min, s.extent, s.kind, body)
        # (a serial loop of constant extent, a color channel's, is left alone:
        # its clamps are a boundary condition's, not a broadcast's; a
        # vectorized loop's lanes are a split of a longer loop)
        if s.kind in KINDS and innermost and \
                (s.kind == "vectorized" or not isinstance(s.extent, ir.Const)):
            found = _unswitched(loop, self._ranges(loop))
            if found is not None and not any(n in self.bound or n == s.name
                                             for n in ir.free_vars(found[0])):
                ifs = self._invariant_ifs()
                cond = _distinct([c for _, c in ifs] + [found[0]])
                self.pending.append((cond, id(loop), found[1], {k for k, _ in ifs}))
        if not outermost or not self.pending:
            return loop
        safe = _distinct([c for c, _, _, _ in self.pending])
        fast = _Replace({k: f for _, k, f, _ in self.pending},
                        set().union(*(t for _, _, _, t in self.pending))).mutate(loop)
        self.pending = []
        return fast if ir.is_const(safe, True) or ir.is_const(safe, 1) else \
            ir.IfThenElse(safe, fast, loop)


def _distinct(conds: list) -> ir.Expr:
    """The conjunction of conds, each conjunct once (the clamps of a nest's
    loops repeat the same range tests)."""
    seen, out = set(), []
    for c in conds:
        for x in conjuncts(c):
            k = atom_key(x)
            if k not in seen:
                seen.add(k)
                out.append(x)
    return ir.conjunction(out)


def _range(s: ir.For) -> tuple:
    lo = ir.Cast(I64, s.min)
    return lo, ir.Sub(ir.Add(lo, ir.Cast(I64, s.extent)), ir.Const(I64, 1))


def _unswitched(s: ir.For, ranges):
    """(safe, clamp-free copy of loop s), or None; `ranges`: the int64
    ranges of s's variable and of the loops around it (_Loops._ranges)."""
    if ranges is None:
        return None
    finder = _Clamps(s.name)
    fast = finder.mutate(s.body)
    lanes = isinstance(s.extent, ir.Const)
    if not finder.conds or finder.failed or not finder.dense or \
            (s.kind == "vectorized" and finder.moving_if) or \
            (lanes and not all(is_min or isinstance(b, ir.Const) for _, b, is_min in finder.conds)):
        # (a copy pays where it makes a load dense along x, which then
        # vectorizes without gathers; a loop over planes or rows, local
        # Laplacian's color channels, only doubles the code LLVM compiles;
        # so does a vector loop under an `if` on its lanes: the tail of a
        # split of an extent below the lanes, which stays serial; and a
        # vector loop of constant lanes whose clamps have a floor other than
        # a constant: a boundary condition's `max(x, input.min)`, as in
        # interpolate's output, whose copy added 1.4 s CPU to that app's
        # first compile; a broadcast's floor is 0)
        return None
    safe = []
    for keep, bound, is_min in finder.conds:
        c = _safe(ranges, keep, bound, is_min)
        if c is None:
            return None
        c = simplify(c)
        if ir.is_const(c, False) or ir.is_const(c, 0):
            return None
        if not ir.is_const(c):
            safe.append(c)
    if any(n in finder.inner for n in ir.free_vars(safe)):
        return None
    debug_print(1, f"pyhalide: unswitch clamps: loop {s.name} has a clamp-free copy "
                   f"({len(finder.conds)} clamps)")
    cond = _distinct(safe) if safe else ir.const(ir.Bool(), True)
    return cond, ir.For(s.name, s.min, s.extent, s.kind, fast)


class _Clamps(ir.Mutator):
    """The body with each int32 clamp of an x-dependent value linear in x by
    an x-independent bound replaced by the value; `conds` the (value, bound,
    is_min) of each, over x and the names outside the loop (the body's
    x-independent lets substituted, x-dependent ones expanded); `dense`
    whether some load of the new body has an index of coefficient ±1 in x;
    `moving_if` whether an `if` of the body tests a value that moves with x."""

    memoize = False         # memoized in `mutate` per let scope instead: a node's
                            # conds depend on the lets bound around it

    def __init__(self, var: str):
        super().__init__()
        self.var = var
        self.scope = 0          # bumped at each let bound: the memo's key with a node's id
        self.conds = []
        self.moving = {}        # let name -> its value (expanded), for lets using x
        self.fixed = {}         # let name -> its value (expanded), for the others
        self.inner = set()      # names bound in the body
        self.failed = False
        self.dense = False      # whether a load (clamps removed) moves by one element per x
        self.moving_if = False  # whether an `if` of the body tests a value that moves with x

    def mutate(self, n):
        if not isinstance(n, ir.Expr):
            return super().mutate(n)
        key = (id(n), self.scope)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is n:
            return hit[1]
        result = super().mutate(n)
        self.memo[key] = (n, result)
        return result

    def _expand(self, e):
        return ir.substitute(e, {**self.fixed, **self.moving}) if self.fixed or self.moving \
            else e

    def _moves(self, e) -> bool:
        return ir.uses_var(e, self.var) or any(ir.uses_var(e, n) for n in self.moving)

    def _clamp(self, e, is_min: bool):
        r = self.mutate_children(e)
        if r.type != ir.Int(32):
            return r
        for keep, bound in ((r.a, r.b), (r.b, r.a)):
            if self._moves(keep) and not self._moves(bound) and \
                    not ir.reads_memory(keep) and not ir.reads_memory(bound):
                k, b = self._expand(keep), self._expand(bound)
                if coefficient(ir.LE(k, b), self.var) is None:
                    return r            # not linear in x: kept
                self.conds.append((k, b, is_min))
                return keep
        return r

    visit_Min = functools.partialmethod(_clamp, is_min=True)
    visit_Max = functools.partialmethod(_clamp, is_min=False)

    def visit_Load(self, e):
        r = self.mutate_children(e)
        if not self.dense and r.index.type.lanes == 1:
            index = self._expand(r.index)
            coef = coefficient(ir.LE(index, ir.const(index.type, 0)), self.var)
            self.dense = coef in (1, -1)
        return r

    def visit_IfThenElse(self, s):
        self.moving_if = self.moving_if or self._moves(s.condition)
        return self.mutate_children(s)

    def visit_LetStmt(self, s):
        value = self.mutate(s.value)
        self.inner.add(s.name)
        expanded = self._expand(value)
        (self.moving if self._moves(value) else self.fixed)[s.name] = expanded
        self.scope += 1
        body = self.mutate(s.body)
        return s if value is s.value and body is s.body else ir.LetStmt(s.name, value, body)

    def visit_Let(self, e):
        self.failed = True          # an expression let: left alone
        return e
