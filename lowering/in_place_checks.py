"""The checks of an in-place variant's loop nest, hoisted before its first
store (lowering/in_place.py refuses a check that may fail after a store
into the caller's array).

    hoist_loop_checks(stmt, outputs) -> Stmt

LU's row loops check `k < a.shape[1]` for `a[i, k]` inside the nest that
stores into `a`. Such a check (an AssertStmt after a store, in program
order, whose condition reads no memory: loop variables, lets of them and
the kernel's symbols) holds at every iteration when it holds over the box
of its enclosing loops' ranges (interval.BoundsOf; each loop over
[min, min + extent - 1] of the loops outside it, a branch's condition
ignored; the symbolic int32 ends it computes must fit int32, as
index_overflow.py states it). That condition, built from the ends of the
box, is asserted once before the first store (which must not be inside a
loop or a branch: the assert then runs before every store), with the error
IN_PLACE_FALLBACK (pyhalide/ir/errors.py), and the check is dropped from
the nest. Where it holds, no dropped check could fail; where it fails (the
box is larger than the iterations that run, or the check would fail at
some iteration), the kernel has stored nothing and the caller computes the
call again on a copy (Specialization.run: the copying kernel, which keeps
the checks and Python's partial writes). A condition that is false for
every call leaves the Stmt as it was (the variant is refused).

A condition that is not a conjunction of integer comparisons, reads memory
or has an unbounded or data-dependent end is left where it is (check_in_place
then refuses the variant, as before)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.errors import IN_PLACE_FALLBACK, IN_PLACE_FALLBACK_MESSAGE

from .in_place import StoreOrder
from .index_overflow import fits_int32
from .interval import BoundsOf, Interval
from .simplify import simplify


def hoist_loop_checks(stmt: ir.Stmt, outputs) -> ir.Stmt:
    """stmt with each check after a store into `outputs` (Func and buffer
    names) that is hoistable moved before the first store (module doc)."""
    h = _Hoist(set(outputs))
    out, _ = h.take(stmt, False, [])
    if h.target is None or not h.usable or not h.conds:
        return stmt
    conds = []
    for c in h.conds:
        if not any(ir.equal(c, d) for d in conds):
            conds.append(c)
    cond = simplify(_all(conds))
    if isinstance(cond, ir.Const):
        return out if cond.value else stmt
    return _put_before(out, h.target, ir.AssertStmt(cond, IN_PLACE_FALLBACK, IN_PLACE_FALLBACK_MESSAGE))


def _all(conds):
    out = conds[0]
    for c in conds[1:]:
        out = ir.And(out, c)
    return out


_NO_OP = ir.Evaluate(ir.Const(ir.INDEX, 0))


class _Hoist(StoreOrder):
    """Walks statements in program order (as StoreOrder.walk does), with the
    stack of binders enclosing the current one: ("let", name, value with the
    lets inside the target substituted) or ("for", name, Interval)."""

    def __init__(self, outputs):
        super().__init__(outputs)
        self.target = None          # the statement of the first store
        self.at_target = frozenset()    # ids of the binders around it
        self.conds = []
        self.obligations = {}       # id(a loop's binder) -> the int32 ends its Interval needs
        self.branches = 0           # the branches of `if`s around the current statement
        self.usable = False         # whether the target runs before every store

    def take(self, s, stored: bool, stack: list):
        """(s with its hoisted checks dropped, whether an output may have
        been stored to after it); `stored`: before it."""
        if s is None:
            return s, stored
        if stored and isinstance(s, ir.AssertStmt):
            cond = self.hoisted(s.condition, stack)
            if cond is None:
                return s, stored
            self.conds.append(cond)
            return _NO_OP, stored
        if not stored and self.stores(s) and isinstance(s, (ir.For, ir.Store, ir.Provide)):
            # the check before it must run before every store: not in a loop or a branch
            self.usable = not self.branches and all(b[0] != "for" for b in stack)
            self.at_target = frozenset(id(b) for b in stack)
            self.target = s                 # (the first store: replaced by its rebuilt self)
            out = self.take_stmt(s, stored, stack)
            self.target = out[0]
            return out
        return self.take_stmt(s, stored, stack)

    def take_stmt(self, s, stored: bool, stack: list):
        if isinstance(s, ir.Block):
            out = []
            for x in s.stmts:
                x, stored = self.take(x, stored, stack)
                out.append(x)
            return ir.Block(tuple(out)), stored
        if isinstance(s, ir.IfThenElse):
            self.branches += 1
            a, sa = self.take(s.then_case, stored, stack)
            b, sb = self.take(s.else_case, stored, stack)
            self.branches -= 1
            return ir.IfThenElse(s.condition, a, b), sa or sb
        if isinstance(s, ir.For):
            inner = stored or self.stores(s.body)
            body, after = self.take(s.body, inner, stack + [self.loop(s, stack)])
            return _rebuild(s, body), after or stored
        if isinstance(s, (ir.Store, ir.Provide)):
            return s, stored or s.name in self.outputs
        if isinstance(s, ir.LetStmt):
            value = s.value if self.target is None else self.expand(s.value, stack)
            body, after = self.take(s.body, stored, stack + [("let", s.name, value)])
            return _rebuild(s, body), after
        body = getattr(s, "body", None)
        if isinstance(body, ir.Stmt):
            body, after = self.take(body, stored, stack)
            return _rebuild(s, body), after
        return s, stored

    def expand(self, e, stack):
        """e with the lets of `stack` not bound at the target substituted
        (innermost first)."""
        for b in reversed(stack):
            kind, name, v = b
            if kind == "let" and not self.fixed(b) and name in ir.free_vars(e):
                e = ir.substitute(e, {name: v})
        return e

    def scope(self, stack) -> dict:
        return {b[1]: b[2] for b in stack if b[0] == "for" and not self.fixed(b)}

    def fixed(self, b) -> bool:
        """Whether binder b encloses the target (its name is a symbol there)."""
        return id(b) in self.at_target

    def loop(self, s: ir.For, stack):
        """The binder of loop s: its variable's Interval over its range
        (unbounded where an end is not known)."""
        if self.target is None:
            return ("for", s.name, None)
        lo = self.expand(s.min, stack)
        hi = self.expand(ir.Sub(ir.Add(s.min, _unclamped(s.extent)), ir.Const(s.min.type, 1)),
                         stack)
        obligations = []
        b = BoundsOf(self.scope(stack), obligations)
        lo, hi = b(simplify(lo)), b(simplify(hi))
        binder = ("for", s.name, Interval(lo.lo, hi.hi, lo.lo_data, hi.hi_data))
        self.obligations[id(binder)] = obligations + [e for e in (lo.lo, hi.hi) if e is not None]
        return binder

    def hoisted(self, cond, stack):
        """The condition over the box of the loops of `stack` under which
        `cond` holds at every point of it, or None."""
        cond = self.expand(cond, stack)
        scope = self.scope(stack)
        if ir.reads_memory(cond) or any(iv is None for iv in scope.values()):
            return None
        parts = []
        obligations = [e for b in stack if not self.fixed(b) for e in self.obligations.get(id(b), ())]
        for c in _conjuncts(cond):
            part = _bound(c, scope, obligations)
            if part is None:
                return None
            parts.append(part)
        # every symbolic int32 end computed exactly fits int32 (index_overflow.py)
        out = _all(parts + [fits_int32(obligations)])
        if set(ir.free_vars(out)) & {b[1] for b in stack if not self.fixed(b)}:
            return None
        return out


def _unclamped(extent):
    """The extent without an outer max(e, 0): where e <= 0 the loop runs no
    iteration, so min + e - 1 bounds every iteration that runs."""
    while isinstance(extent, ir.Max):
        if isinstance(extent.b, ir.Const) and extent.b.value == 0:
            extent = extent.a
        elif isinstance(extent.a, ir.Const) and extent.a.value == 0:
            extent = extent.b
        else:
            break
    return extent


def _conjuncts(c):
    if isinstance(c, ir.And):
        return _conjuncts(c.a) + _conjuncts(c.b)
    return [c]


def _bound(c, scope, obligations):
    """The condition on the box's ends under which comparison c holds
    everywhere in it (None if c is not an integer comparison with bounded
    ends)."""
    if isinstance(c, ir.Const):
        return c if c.value else None
    if isinstance(c, (ir.GT, ir.GE)):
        c = (ir.LT if isinstance(c, ir.GT) else ir.LE)(c.b, c.a)
    if not isinstance(c, (ir.LT, ir.LE)) or not c.a.type.is_int() or c.a.type.lanes != 1:
        return None
    t = ir.Int(64)
    iv = BoundsOf(scope, obligations)(ir.Sub(ir.Cast(t, c.a), ir.Cast(t, c.b)))
    if iv.hi is None or iv.hi_data:
        return None
    return type(c)(iv.hi, ir.Const(t, 0))


def _rebuild(s, body):
    """s with body `body` (its other fields as they are)."""
    if body is s.body:
        return s
    if isinstance(body, ir.Block) and not body.stmts:
        body = _NO_OP
    fields = {k: getattr(s, k) for k in s.__dataclass_fields__}
    fields["body"] = body
    return type(s)(**fields)


class _Put(ir.Mutator):
    """Puts `check` right before the statement `target`."""
    stmts_only = True

    def __init__(self, target, check):
        super().__init__()
        self.target, self.check = target, check

    def mutate(self, n):
        if n is self.target:
            return ir.block(self.check, n)
        return super().mutate(n)


def _put_before(stmt, target, check):
    return _Put(target, check).mutate(stmt)
