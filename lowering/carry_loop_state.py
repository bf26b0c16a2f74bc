"""Carry a loop's state from one iteration to the next in registers.

A merged shifting `while` (frontend_ast/loop_cycles.py) keeps its stop
flags, counter and key in members of a tuple Func that every iteration
stores at the position it writes and the next iteration loads back from
there: `if_then_else(x == min, initial, m.k[prev(x)])` where prev(x) is
the store index of iteration x - 1. Each such load is a store-to-load
chain through memory. In a serial loop whose body ends, on every path
that does not leave the loop, with the store `m.k[idx(x)] = v` (idx
depending on x: an element stored for the whole loop is
promote_accumulators'), a load of
m.k guarded by `x != min` at the index idx(x - 1) reads the value the
previous iteration stored: it becomes a load of a one-element scratch
(which LLVM promotes to a register) that the store also writes. A buffer
left with no loads at all (the state members: only the loop read them)
loses its stores and its allocation.
"""
from __future__ import annotations

from pyhalide import ir

from .parallel_loops import has_parallel
from .simplify import simplify


def _tail_stores(s: ir.Stmt, loop: str) -> list:
    """The stores a loop body `s` ends with on every path that stays in the
    loop (an `if (c) exit loop else rest` leaves on one side), in order;
    nothing after them but other stores of the list."""
    while True:
        if isinstance(s, ir.LetStmt):
            s = s.body
        elif isinstance(s, ir.IfThenElse) and isinstance(s.then_case, ir.LoopExit) \
                and s.then_case.loop == loop and s.else_case is not None:
            s = s.else_case
        elif isinstance(s, ir.Block):
            stores = []
            for t in reversed(s.stmts):
                if not isinstance(t, ir.Store):
                    break
                stores.append(t)
            if stores:
                return stores[::-1]
            s = s.stmts[-1]
        elif isinstance(s, ir.Store):
            return [s]
        else:
            return []


class _Stores(ir.Visitor):
    """Per buffer: how many stores a statement makes to it."""

    def __init__(self):
        super().__init__()
        self.count = {}

    def visit_Store(self, s):
        self.count[s.name] = self.count.get(s.name, 0) + 1
        self.visit_children(s)


def _loads(n) -> set:
    """The names of the buffers an IR tree loads from."""
    names, seen, stack = set(), set(), [n]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, ir.Load):
            names.add(x.name)
        stack.extend(ir.children(x))
    return names


def _drop_lower_clamps(e: ir.Expr, var: str, lo: int) -> ir.Expr:
    """e with `max(var, c)` for constants c <= lo replaced by var (var >= lo)."""
    def fn(n):
        if isinstance(n, ir.Max):
            for a, b in ((n.a, n.b), (n.b, n.a)):
                if isinstance(a, ir.Variable) and a.name == var and isinstance(b, ir.Const) \
                        and b.value <= lo:
                    return a
        return None
    return ir.FuncMutator(fn).mutate(e)


class _Guarded(ir.Mutator):
    """Finds the selects `if_then_else(x == min, a, b)` / `select(x == min,
    a, b)` and rewrites their b with _Shifted."""

    def __init__(self, loop: ir.For, carried: ir.Mutator, later: bool = False):
        super().__init__()
        self.loop = loop
        self.carried = carried
        self.later = later          # only iterations after the first: b alone

    def _first_test(self, c) -> bool:
        if not isinstance(c, ir.EQ):
            return False
        for a, b in ((c.a, c.b), (c.b, c.a)):
            if isinstance(a, ir.Variable) and a.name == self.loop.name \
                    and ir.equal(b, self.loop.min):
                return True
        return False

    def visit_Call(self, e):
        if ir.is_lazy_select(e) and self._first_test(e.args[0]):
            if self.later:
                return self.carried.mutate(e.args[2])
            return ir.lazy_select(e.args[0], self.mutate(e.args[1]),
                                  self.carried.mutate(e.args[2]))
        return self.mutate_children(e)

    def visit_Select(self, e):
        if self._first_test(e.condition):
            if self.later:
                return self.carried.mutate(e.false_value)
            return ir.Select(e.condition, self.mutate(e.true_value),
                             self.carried.mutate(e.false_value))
        return self.mutate_children(e)


class _AddCarries(ir.Mutator):
    """After each carried buffer's tail store: the same value into its
    scratch."""

    stmts_only = True

    def __init__(self, tails: dict, scratch: dict):
        super().__init__()
        self.tails = tails          # id(Store) -> buffer
        self.scratch = scratch      # buffer -> scratch name

    def visit_Store(self, s):
        buf = self.tails.get(id(s))
        if buf is None or buf not in self.scratch:
            return s
        to = self.scratch[buf]
        if isinstance(s.value, (ir.Variable, ir.Const)):
            return ir.block(s, ir.Store(to, s.value, ir.index(0)))
        name = f"{to}.value"
        v = ir.Variable(s.value.type, name)
        return ir.LetStmt(name, s.value, ir.block(ir.Store(s.name, v, s.index),
                                                   ir.Store(to, v, ir.index(0))))


class _Carry(ir.Mutator):
    memoize = False
    stmts_only = True

    def __init__(self):
        super().__init__()
        self.count = 0
        self.carried = set()        # buffers some load of which became a scratch's
        self.scratches = set()      # the scratches' names

    def visit_For(self, s):
        body = self.mutate(s.body)
        if body is not s.body:
            s = ir.For(s.name, s.min, s.extent, s.kind, body)
        if s.kind != ir.ForKind.SERIAL or not isinstance(s.min, ir.Const):
            return s
        tails = _tail_stores(s.body, s.name)
        if not tails or has_parallel(s.body):
            return s        # (a parallel loop inside would read the scratch from other threads)
        counts = _Stores()
        counts.visit(s.body)
        previous = {}
        for i, st in enumerate(tails):
            if counts.count.get(st.name) != 1 or st.value.type.lanes != 1:
                continue
            if not ir.uses_var(st.index, s.name):
                continue      # (one element for the whole loop: promote_accumulators')
            if any(st.name in _loads(t) for t in tails[i + 1:]):
                continue      # (read after this iteration's store)
            previous[st.name] = (simplify(st.index), f"{st.name}.acc_carry{self.count}",
                                 st.value.type)
            self.count += 1
        if not previous:
            return s
        probe = _Shifted(s, previous)
        _Guarded(s, probe).mutate(s.body)
        if not probe.hits:
            return s
        scratch = {b: previous[b][1] for b in probe.hits}
        # (the carries are added first: the tail stores are found by identity)
        body = _AddCarries({id(t): t.name for t in tails}, scratch).mutate(s.body)
        shifted = _Shifted(s, {b: previous[b] for b in probe.hits})
        out = _peeled(s, body, shifted)
        for b in sorted(shifted.hits):
            name, t = previous[b][1], previous[b][2]
            out = ir.Allocate(name, t, (ir.index(1),), ir.block(
                ir.Store(name, ir.zero(t), ir.index(0)), out))
        self.carried |= shifted.hits
        self.scratches.update(previous[b][1] for b in shifted.hits)
        return out


class _Exits(ir.Visitor):
    def __init__(self, loop: str):
        super().__init__()
        self.loop = loop
        self.found = False

    def visit_LoopExit(self, s):
        self.found = self.found or s.loop == self.loop


def _peeled(loop: ir.For, body: ir.Stmt, shifted: "_Shifted") -> ir.Stmt:
    """The loop over `body` with the carried loads of `shifted`: its first
    iteration (x == min: the selects take their first arm) peeled, when it
    cannot leave the loop, then the others (x != min: the selects are their
    carried arm); else the loop with the selects kept."""
    guarded = _Guarded(loop, shifted).mutate(body)
    first = simplify(ir.substitute(guarded, {loop.name: loop.min}))
    exits = _Exits(loop.name)
    exits.visit(first)
    if exits.found:
        return ir.For(loop.name, loop.min, loop.extent, loop.kind, guarded)
    later = _Guarded(loop, _Shifted(loop, shifted.previous), later=True).mutate(body)
    later = _past_exit(later, loop.name, {name for _, name, _ in shifted.previous.values()})
    rest = ir.For(loop.name, simplify(ir.Add(loop.min, ir.index(1))),
                  simplify(ir.Sub(loop.extent, ir.index(1))), loop.kind, later)
    return ir.IfThenElse(ir.LT(ir.index(0), loop.extent), ir.block(first, rest), None)


def _disjuncts(c: ir.Expr) -> list:
    if isinstance(c, ir.Or):
        return _disjuncts(c.a) + _disjuncts(c.b)
    return [c]


class _Known(ir.Mutator):
    """Loads of the given scratches replaced by false."""

    def __init__(self, names: set):
        super().__init__()
        self.names = names

    def visit_Load(self, e):
        if e.name in self.names:
            return ir.const(e.type, False)
        return self.mutate_children(e)


def _past_exit(body: ir.Stmt, loop: str, scratches: set) -> ir.Stmt:
    """body `if (s1 || s2 ...) exit loop else rest` (under lets), the s_i
    loads of carried bool scratches: in rest they are false (the scratches
    are stored only at rest's end)."""
    if isinstance(body, ir.LetStmt):
        inner = _past_exit(body.body, loop, scratches)
        return body if inner is body.body else ir.LetStmt(body.name, body.value, inner)
    if not (isinstance(body, ir.IfThenElse) and isinstance(body.then_case, ir.LoopExit)
            and body.then_case.loop == loop and body.else_case is not None):
        return body
    names = set()
    for d in _disjuncts(body.condition):
        if not (isinstance(d, ir.Load) and d.name in scratches and d.type.is_bool()):
            return body
        names.add(d.name)
    rest = simplify(_Known(names).mutate(body.else_case))
    return ir.IfThenElse(body.condition, body.then_case, rest)


class _Shifted(ir.Mutator):
    """Inside the arm of a select that runs only where x != min: a load of a
    carried buffer whose index, with x replaced by x + 1 (so that it names
    the iteration whose store it reads) and the clamps `max(x, c)` that
    x >= min makes no-ops dropped, is the store's index becomes a load of
    the buffer's scratch."""

    def __init__(self, loop: ir.For, previous: dict):
        super().__init__()
        self.loop = loop
        self.previous = previous    # buffer -> (store index, scratch name, type)
        self.hits = set()

    def visit_Load(self, e):
        hit = self.previous.get(e.name)
        if hit is not None:
            x = ir.Variable(ir.INDEX, self.loop.name)
            idx = simplify(ir.substitute(e.index, {self.loop.name: ir.Add(x, ir.index(1))}))
            idx = simplify(_drop_lower_clamps(idx, self.loop.name, self.loop.min.value))
            if ir.equal(idx, hit[0]):
                self.hits.add(e.name)
                return ir.Load(e.type, hit[1], ir.index(0))
        return self.mutate_children(e)


class _DropStores(ir.Mutator):
    """Removes the stores to, and the allocations of, `names`."""

    stmts_only = True

    def __init__(self, names: set):
        super().__init__()
        self.names = names

    def visit_Store(self, s):
        return ir.Evaluate(ir.index(0)) if s.name in self.names else s

    def visit_Allocate(self, s):
        body = self.mutate(s.body)
        if s.name in self.names:
            return body
        return s if body is s.body else ir.Allocate(s.name, s.type, s.extents, body,
                                                    s.reuse_if, s.reuse)


class _Allocated(ir.Visitor):
    """The buffers the statement allocates itself (not in a caller's buffer),
    and the buffers an allocation may reuse."""

    def __init__(self):
        super().__init__()
        self.names = set()
        self.reused = set()

    def visit_Allocate(self, s):
        if s.reuse_if is None:
            self.names.add(s.name)
        else:
            self.reused.add(s.reuse)
        self.visit_children(s)


def carry_loop_state(stmt: ir.Stmt) -> ir.Stmt:
    c = _Carry()
    out = c.mutate(stmt)
    if not c.carried:
        return stmt
    alloc = _Allocated()
    alloc.visit(out)
    dead = {b for b in c.carried if b in alloc.names} - _loads(out) - alloc.reused
    # (names made from a buffer's name, as `b.buffer`, other than its scratches')
    used = {n for n in ir.free_vars(out)
            if not any(n == k or n.startswith(k + ".") for k in c.scratches)}
    dead = {b for b in dead if not any(n == b or n.startswith(b + ".") for n in used)}
    if dead:
        out = simplify(_DropStores(dead).mutate(out))
    return out
