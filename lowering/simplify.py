"""The simplifier: constant folding, linear canonicalization of integer
arithmetic, and local identities.

Every rewrite is exact under the compiler's semantics (wrapping integers, IEEE
floats) unless `assume_no_overflow` is set, which bounds inference uses for its
index arithmetic: it then also folds min/max and comparisons of expressions
that differ by a constant."""
from __future__ import annotations

from pyhalide import ir

from .constant_fold import cast_value, fold_binary
from .linear import clear_caches as clear_linear_caches
from .linear import (
    constant_difference,
    is_canonical,
    is_linear_candidate,
    linear_form,
    mark_canonical,
)

# Results by node identity, shared by every call: simplifying a node does not
# depend on where it occurs, and lowering simplifies the same subexpressions
# again and again (interval endpoints are built from simplified endpoints).
# One table per mode; entries hold their node, so an id is never reused while
# it is in the table. Cleared when it grows past _MEMO_MAX entries.
_MEMO = {False: {}, True: {}}
_MEMO_MAX = 50_000
# Results of whole expressions by structure, per mode: structural hash ->
# [(expression, its result)]. Lowering builds equal expressions as new nodes
# again and again (each stage's interval endpoints, overflow checks and
# region lets restate the same bounds): in interpolate, 9,500 calls on 2,500
# distinct expressions, the repeats about two thirds of the time spent in
# simplifying expressions. Simplifying depends on the structure alone (the
# mode apart), so an equal expression (ir.equal: every field, float zeros
# by sign) has an equal result; one that simplified to itself gives itself.
_SHAPES = {False: {}, True: {}}
_HASHES: dict = {}          # id(node) -> (node, structural hash)


def simplify(node, assume_no_overflow: bool = False):
    """Simplify an Expr or a Stmt."""
    cls = type(node)
    if cls is ir.Const or cls is ir.Variable:
        return node         # (a leaf outside any let is its own simplification)
    mode = bool(assume_no_overflow)
    memo = _MEMO[mode]
    hit = memo.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    if len(memo) > _MEMO_MAX:
        memo.clear()
        _SHAPES[mode].clear()
        _HASHES.clear()
    return _Simplifier(assume_no_overflow, memo).mutate(node)


def _holds(wide, t) -> bool:
    """Whether integer type `wide` represents every value of integer type t
    (a cast to it and back is the identity)."""
    if not ((wide.is_int() or wide.is_uint()) and (t.is_int() or t.is_uint())) or \
            wide.lanes() != t.lanes():
        return False
    if wide.is_int() == t.is_int():
        return wide.bits() >= t.bits()
    return wide.is_int() and wide.bits() > t.bits()


# Intrinsics with effects (a trace event or hl.print, an atomic update): two
# equal calls are two events, so an expression holding one is never shared
# with an equal one (codegen emits one object once per statement).
_EFFECTS = ("pyhalide.trace.", "pyhalide.atomic")


def structural_hash(e):
    """A hash of e's structure (equal under ir.equal: equal hashes), None
    when e calls an intrinsic with effects; memoized by node identity in
    _HASHES."""
    hit = _HASHES.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    h = None
    cls = type(e)
    if cls in ir.BINARY_NODES:
        ha, hb = structural_hash(e.a), structural_hash(e.b)
        if ha is not None and hb is not None:
            h = hash((cls, ha, hb))
    elif cls is ir.Const:
        h = hash((cls, e.type, e.value))
    elif not (cls is ir.Call and e.name.startswith(_EFFECTS)):
        parts = [type(e)]
        for name in ir.node_fields(type(e)):
            v = getattr(e, name)
            if isinstance(v, ir.IRNode):
                parts.append(structural_hash(v))
            elif isinstance(v, tuple):
                parts.append(tuple(structural_hash(x) if isinstance(x, ir.IRNode)
                                   else _plain_hash(x) for x in v))
            else:
                parts.append(_plain_hash(v))
            if parts[-1] is None or (isinstance(parts[-1], tuple) and None in parts[-1]):
                break
        else:
            h = hash(tuple(parts))
    _HASHES[id(e)] = (e, h)
    return h


def _plain_hash(v) -> int:
    try:
        return hash(v)
    except TypeError:           # (unhashable: its type only; ir.equal decides)
        return hash(type(v))


def _is_const(e) -> bool:
    return isinstance(e, ir.Const)


class _Simplifier(ir.Mutator):
    def __init__(self, assume_no_overflow: bool, memo: dict):
        super().__init__()
        self.no_overflow = assume_no_overflow
        self.memo = self.shared = memo
        # ir.mentioned_names' memo: substituting a let's value walks only the
        # parts of what follows that use it
        self.names = {}
        # let-bound names whose values simplified to a constant or a variable:
        # replaced where they are read (see mutate)
        self.renames = {}
        # names of the Variables renames map to (or more: _captured's filter)
        self.targets = frozenset()
        self.scoped = {}
        self.settled = {}
        self.rebinds = 0        # _rebound calls so far

    def mutate(self, n):
        """With renames pending, an expression that reads a renamed name and
        every statement are simplified with a memo of their own (kept while
        the renames are the same: their results depend on them; such an
        expression is also looked up in `settled`, see _renamed_expr); the
        other expressions with the shared memo."""
        if self.renames:
            if isinstance(n, ir.Expr):
                names = ir.mentioned_names(n, self.names)
                if self.renames.keys().isdisjoint(names):
                    return self._shared_expr(n)
                if isinstance(n, ir.Variable):
                    return self.renames[n.name]
                hit = self.scoped.get(id(n))
                if hit is not None and hit[0] is n:
                    return hit[1]
                return self._renamed_expr(n, names)
            memo = self.scoped
        elif isinstance(n, ir.Expr):
            return self._shared_expr(n)
        else:
            memo = self.shared
        saved, self.memo = self.memo, memo
        out = super().mutate(n)
        self.memo = saved
        return out

    def _renamed_expr(self, n, names):
        """An expression reading a pending rename, not in the current scoped
        memo. Its result depends on the renames of the names it mentions
        only (unless a binding inside it captures a rename: _rebound, which
        adds lets for renames it does not mention), so a result kept in
        `settled` (id -> (node, renames, result)) from an earlier scope
        serves while those renames are the same objects: a let renamed
        inside a nest starts a new scoped memo, and shared subexpressions
        simplified in the enclosing scope are not simplified again."""
        r = self.renames
        hit = self.settled.get(id(n))
        if hit is not None and hit[0] is n:
            r0 = hit[1]
            if r0 is r or all(r.get(k) is r0.get(k) for k in names):
                self.scoped[id(n)] = (n, hit[2])
                return hit[2]
        rebinds = self.rebinds
        saved, self.memo = self.memo, self.scoped
        out = super().mutate(n)
        self.memo = saved
        if self.rebinds == rebinds:
            self.settled[id(n)] = (n, r, out)
        return out

    def _shared_expr(self, n):
        """An expression no pending rename reaches: its result depends on its
        structure alone (and the mode), so one equal to an expression
        simplified before in this mode (_SHAPES) has that one's result."""
        hit = self.shared.get(id(n))
        if hit is not None and hit[0] is n:
            return hit[1]
        h = structural_hash(n)
        bucket = None if h is None else _SHAPES[bool(self.no_overflow)].setdefault(h, [])
        for e, r in bucket or ():
            if ir.equal(e, n):
                out = n if r is e else r
                self.shared[id(n)] = (n, out)
                return out
        saved, self.memo = self.memo, self.shared
        out = super().mutate(n)
        self.memo = saved
        if bucket is not None:
            bucket.append((n, out))
        return out

    def _under(self, renames: dict, node, targets=None):
        """node simplified with `renames` pending instead of the current ones
        (`targets`: the names of the Variables they map to, if known)."""
        if targets is None:
            targets = frozenset(v.name for v in renames.values() if isinstance(v, ir.Variable))
        saved = self.renames, self.targets, self.scoped
        self.renames, self.targets, self.scoped = renames, targets, {}
        out = self.mutate(node)
        self.renames, self.targets, self.scoped = saved
        return out

    def _captured(self, name: str) -> dict:
        """The pending renames to a variable `name` (its outer binding), which
        a new binding of `name` would capture."""
        if name not in self.targets:
            return {}
        return {k: v for k, v in self.renames.items()
                if isinstance(v, ir.Variable) and v.name == name}

    def _rebound(self, node, name: str, let):
        """A binding `node` of `name` whose scope a pending rename to `name`
        would be captured in: simplified without those renames, inside lets
        (`let`: ir.LetStmt or ir.Let) that bind them to the outer `name`."""
        captured = self._captured(name)
        self.rebinds += 1
        out = self._under({k: v for k, v in self.renames.items() if k not in captured}, node)
        for k, v in captured.items():
            out = let(k, v, out)
        return out

    def _scope(self, name: str, node):
        """node, the scope of a binding of `name` (no pending rename to
        `name`), simplified: a pending rename of `name` does not reach it."""
        if name in self.renames:
            return self._under({k: v for k, v in self.renames.items() if k != name}, node)
        return self.mutate(node)

    def _substitute(self, node, mapping: dict):
        return ir.substitute(node, mapping, self.names)

    # ---- arithmetic ----------------------------------------------------------
    def _binary(self, e):
        a, b = self.mutate(e.a), self.mutate(e.b)
        if _is_const(a) and _is_const(b):
            folded = fold_binary(type(e), a, b)
            if folded is not None:
                return folded
        if a is e.a and b is e.b:
            return e
        return type(e)(a, b)

    def _linear(self, e):
        r = self._binary(e)
        if isinstance(r, (ir.Add, ir.Sub, ir.Mul)) and is_linear_candidate(r):
            if is_canonical(r):
                return r
            out = linear_form(r).to_expr()
            # an expression already in canonical form stays the same object,
            # so that simplifying it again is a memo hit
            if ir.equal(out, r):
                mark_canonical(r)
                return r
            return out
        return r

    def visit_Add(self, e):
        r = self._linear(e)
        if isinstance(r, ir.Add) and r.type.is_float():
            if _is_const(r.a) and not _is_const(r.b):
                return ir.Add(r.b, r.a)
        return r

    visit_Sub = _linear

    def visit_Mul(self, e):
        r = self._linear(e)
        if isinstance(r, ir.Mul) and r.type.is_float():
            if _is_const(r.b) and r.b.value == 1.0:
                return r.a
        return r

    def visit_Div(self, e):
        r = self._binary(e)
        if isinstance(r, ir.Div) and r.type.is_integer() and _is_const(r.b) and r.b.value == 1:
            return r.a
        return r

    def visit_Mod(self, e):
        r = self._binary(e)
        if isinstance(r, ir.Mod) and r.type.is_integer() and _is_const(r.b) and r.b.value == 1:
            return ir.Const(r.type, 0)
        return r

    def _minmax(self, e):
        r = self._binary(e)
        if not isinstance(r, (ir.Min, ir.Max)):
            return r
        r = self._minmax_pair(r)
        if isinstance(r, (ir.Min, ir.Max)) and r.type.is_integer():
            return self._minmax_chain(r)
        return r

    def _minmax_pair(self, r):
        """The rules for one min/max of simplified operands."""
        a, b = r.a, r.b
        if ir.equal(a, b):
            return a
        is_min = isinstance(r, ir.Min)
        if self.no_overflow:
            d = constant_difference(a, b)
            if d is not None:
                return (b if d > 0 else a) if is_min else (a if d > 0 else b)
            # min(min(x, c1), c2) -> min(x, min(c1, c2)), likewise max
            if type(a) is type(r) and _is_const(a.b) and _is_const(b):
                folded = fold_binary(type(r), a.b, b)
                return type(r)(a.a, folded)
        if _is_const(a) and not _is_const(b):
            a, b = b, a
            r = type(r)(a, b)
        # min(max(x, c1), c2) with c1 >= c2 is c2; max(min(x, c1), c2) with c1 <= c2 is c2
        inner = ir.Max if is_min else ir.Min
        if isinstance(a, inner) and _is_const(a.b) and _is_const(b):
            if (a.b.value >= b.value) if is_min else (a.b.value <= b.value):
                return b
        t = r.type
        if t.is_integer() and _is_const(b):
            if b.value == (t.max_value() if is_min else t.min_value()):
                return a
            if b.value == (t.min_value() if is_min else t.max_value()):
                return b
        return r

    def _minmax_chain(self, r):
        """An integer min (max) of nested mins (maxes) of simplified operands:
        each operand once (min and max are idempotent, associative and
        commutative on integers), and without overflow also without the
        operands another one bounds (`min(x / 2, (x + 1) / 2)` is x / 2).
        Bounds inference builds such chains (the union of a Func's reads at
        x / 2 and (x + 1) / 2, over and over along a pyramid). Rebuilt in the
        operands' first order, the constant last, only where one goes."""
        cls = type(r)
        ops, stack = [], [r]
        while stack:
            x = stack.pop()
            if type(x) is cls:
                stack.append(x.b)
                stack.append(x.a)
            else:
                ops.append(x)
        kept = []
        for x in ops:
            dropped = False
            for i, k in enumerate(kept):
                rel = self._order(x, k)
                if rel is None:
                    continue
                # rel: x >= k (1), x <= k (-1), x == k (0)
                if rel == 0 or (rel > 0) == (cls is ir.Min):
                    dropped = True
                    break
                kept[i] = None
            if not dropped:
                kept = [k for k in kept if k is not None]
                kept.append(x)
            else:
                kept = [k for k in kept if k is not None]
        if len(kept) == len(ops):
            return r
        consts = [k for k in kept if _is_const(k)]
        out = None
        for k in [k for k in kept if not _is_const(k)] + consts:
            out = k if out is None else self._minmax_pair(cls(out, k))
        return out

    def _order(self, x, y):
        """1 if x >= y always, -1 if x <= y, 0 if they are equal, None if
        unknown. Without overflow assumed only equality and constants."""
        if ir.equal(x, y):
            return 0
        if _is_const(x) and _is_const(y):
            return 0 if x.value == y.value else (1 if x.value > y.value else -1)
        if not self.no_overflow:
            return None
        d = constant_difference(x, y)
        if d is None and isinstance(x, ir.Div) and isinstance(y, ir.Div) and \
                _is_const(x.b) and _is_const(y.b) and x.b.value == y.b.value and \
                x.b.value > 0:
            # floor division by the same positive constant is monotonic
            d = constant_difference(x.a, y.a)
        if d is None:
            return None
        return 0 if d == 0 else (1 if d > 0 else -1)

    visit_Min = _minmax
    visit_Max = _minmax

    def _compare(self, e):
        r = self._binary(e)
        if not isinstance(r, ir.Compare):
            return r
        if self.no_overflow:
            d = constant_difference(r.a, r.b)
            if d is not None and r.type.is_scalar():
                return fold_binary(type(r), ir.Const(ir.Int(64), d), ir.Const(ir.Int(64), 0))
        if r.a.type.is_integer() and ir.equal(r.a, r.b):
            return ir.const(r.type, isinstance(r, (ir.EQ, ir.LE, ir.GE)))
        if isinstance(r, (ir.EQ, ir.NE)) and r.type.is_scalar():
            # (a - b a nonzero constant below 2**bits: a != b, wrapping or not)
            d = constant_difference(r.a, r.b)
            if d is not None and 0 < abs(d) < 2 ** r.a.type.bits:
                return ir.const(r.type, isinstance(r, ir.NE))
        return _clamped_compare(r)

    visit_EQ = visit_NE = visit_LT = visit_LE = visit_GT = visit_GE = _compare
    visit_BitAnd = visit_BitOr = visit_BitXor = visit_Shl = visit_Shr = _binary

    # ---- logic -----------------------------------------------------------------
    def visit_And(self, e):
        a, b = self.mutate(e.a), self.mutate(e.b)
        for x, y in ((a, b), (b, a)):
            if _is_const(x):
                return y if x.value else x
        if a is e.a and b is e.b:
            return e
        return ir.And(a, b)

    def visit_Or(self, e):
        a, b = self.mutate(e.a), self.mutate(e.b)
        for x, y in ((a, b), (b, a)):
            if _is_const(x):
                return x if x.value else y
        if a is e.a and b is e.b:
            return e
        return ir.Or(a, b)

    def visit_Not(self, e):
        a = self.mutate(e.a)
        if _is_const(a):
            return ir.Const(a.type, not a.value)
        if isinstance(a, ir.Not):
            return a.a
        return e if a is e.a else ir.Not(a)

    def visit_Select(self, e):
        c = self.mutate(e.condition)
        t, f = self.mutate(e.true_value), self.mutate(e.false_value)
        if _is_const(c):
            return t if c.value else f
        if ir.equal(t, f):
            return t
        if c is e.condition and t is e.true_value and f is e.false_value:
            return e
        return ir.Select(c, t, f)

    def visit_Call(self, e):
        """The lazy `if_then_else(c, a, b)` intrinsic: a constant condition
        (or a broadcast of one) picks its branch; otherwise each operand is
        simplified."""
        if e.call_type == ir.INTRINSIC and e.name == "if_then_else":
            c = ir.const_value(self.mutate(e.args[0]))
            if c is not None:
                return self.mutate(e.args[1] if c else e.args[2])
        return self.mutate_children(e)

    def visit_Cast(self, e):
        v = self.mutate(e.value)
        if v.type == e.type:
            return v
        if _is_const(v):
            return ir.Const(e.type, cast_value(e.type, v.type, v.value))
        # widening integer casts of casts collapse when lossless
        if type(v) is ir.Cast and v.value.type == e.type and _holds(v.type, e.type):
            return v.value      # (a round trip through a wider integer type)
        return e if v is e.value else ir.Cast(e.type, v)

    def _let(self, n, cls):
        """A let (cls: ir.Let or ir.LetStmt) whose value simplifies to a
        constant or a variable is dropped; its name is replaced where it is
        read (a pending rename, made in the one walk that simplifies what
        follows)."""
        if self.renames and self._captured(n.name):
            return self._rebound(n, n.name, cls)
        value = self.mutate(n.value)
        if isinstance(value, (ir.Const, ir.Variable)):
            targets = self.targets | {value.name} if isinstance(value, ir.Variable) \
                else self.targets
            return self._under({**self.renames, n.name: value}, n.body, targets)
        body = self._scope(n.name, n.body)
        if value is n.value and body is n.body:
            return n
        return cls(n.name, value, body)

    def visit_Let(self, e):
        return self._let(e, ir.Let)

    # ---- statements ---------------------------------------------------------------
    def visit_LetStmt(self, s):
        return self._let(s, ir.LetStmt)

    def visit_IfThenElse(self, s):
        c = self.mutate(s.condition)
        then_case = self.mutate(s.then_case)
        else_case = self.mutate(s.else_case)
        if _is_const(c):
            return then_case if c.value else (else_case if else_case is not None else _NOOP)
        if c is s.condition and then_case is s.then_case and else_case is s.else_case:
            return s
        return ir.IfThenElse(c, then_case, else_case)

    def visit_AssertStmt(self, s):
        c = self.mutate(s.condition)
        if _is_const(c) and c.value:
            return _NOOP
        args = tuple(self.mutate(a) for a in s.args)
        if c is s.condition and all(x is y for x, y in zip(args, s.args)):
            return s
        return ir.AssertStmt(c, s.error, s.message, args)

    def visit_For(self, s):
        if self.renames and self._captured(s.name):
            return self._rebound(s, s.name, ir.LetStmt)
        lo, ext = self.mutate(s.min), self.mutate(s.extent)
        body = self._scope(s.name, s.body)
        if _is_const(ext) and ext.value <= 0:
            return _NOOP
        if lo is s.min and ext is s.extent and body is s.body:
            return s
        return ir.For(s.name, lo, ext, s.kind, body)

    def visit_Block(self, s):
        stmts = [self.mutate(x) for x in s.stmts]
        kept = [x for x in stmts if not _is_noop(x)]
        if len(kept) == len(s.stmts) and all(a is b for a, b in zip(kept, s.stmts)):
            return s
        if not kept:
            return _NOOP
        return ir.block(*kept)


_NOOP = ir.Evaluate(ir.Const(ir.Int(32), 0))


def _is_noop(s) -> bool:
    return isinstance(s, ir.Evaluate) and isinstance(s.value, ir.Const)


def is_noop(s) -> bool:
    return _is_noop(s)


def clear_caches():
    """Forget every memoized result (tests, timing)."""
    for memo in _MEMO.values():
        memo.clear()
    for shapes in _SHAPES.values():
        shapes.clear()
    _HASHES.clear()
    clear_linear_caches()
    ir.clear_uses_memo()


_FLIPPED = {ir.LT: ir.GT, ir.LE: ir.GE, ir.GT: ir.LT, ir.GE: ir.LE}


def _clamped_compare(r):
    """An integer `max(x, c1) > c2` (or min, any of < <= > >=, either side)
    decided by the constants where they decide it: for an increasing test
    P (> or >=), P(max(x, c1)) = P(c1) or P(x) and P(min(x, c1)) = P(c1)
    and P(x); for a decreasing one (< or <=) the other way round. So
    `max(x, 0) > -1` is true and `max(x, 0) > 5` is `x > 5` (bounds
    inference's clamps, compared with constant bounds)."""
    while type(r) in _FLIPPED and r.type.is_scalar() and r.a.type.is_integer():
        op, y, c2 = type(r), r.a, r.b
        if _is_const(y) and not _is_const(c2):
            op, y, c2 = _FLIPPED[op], c2, y
        if not (_is_const(c2) and isinstance(y, (ir.Min, ir.Max))):
            return r
        c1, x = (y.a, y.b) if _is_const(y.a) else (y.b, y.a)
        if not _is_const(c1) or c1.type != c2.type:
            return r
        held = fold_binary(op, c1, c2)
        if held is None:
            return r
        either = isinstance(y, ir.Max) == (op in (ir.GT, ir.GE))
        if bool(held.value) == either:
            return ir.const(r.type, either)
        r = op(x, c2)
    return r
