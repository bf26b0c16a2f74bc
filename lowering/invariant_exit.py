"""A loop left by a stop flag that its body sets to `v >= L`, L the same at
every iteration: the loop runs to L at most, L's loads are read once, and
the iterations before L run without the flag's tests.

    invariant_exit(stmt) -> stmt

A serial loop

    for (v, lo, ext) { if (f[j]) exit loop v else { ...; f[j] = X; ... } }

(the `else` possibly `if (!f[j]) { ... }`), whose `else` stores X into the
flag f[j] at its top level (through lets and blocks only: every iteration
that runs it stores it), stores f nowhere else, leaves neither v nor a
loop around it, and whose X is `int64(v) >= L` (also `v >= L`, `!(v < L)`, `v > L`, selects of
such tests on conditions free of v), L reading no name bound in the loop,
calling no function but pure intrinsics (a lazy select's branches stay
lazy) and loading only buffers the loop does not store: after the first
iteration v0 with v0 >= L the flag is set and the next iteration leaves
the loop, so the iterations past max(lo, L) never run. The loop becomes

    if (0 < ext && !f[j]) {
        let v.inv0 = <a load of L> ...; let v.lim = L
        let v.end = clamp(v.lim, lo, lo + ext)
        for (v, lo, v.end - lo) { <the else, X's tests replaced by their values> }
        for (v, v.end, min(lo + ext - v.end, 1)) { <the body> }
    }

with L's loads (those not in a lazy select's branches) read as those
names in the body too (the buffers are not written in the loop and the
indices do not change: the same values; LLVM does not move a load out of
a branch of the loop). The test before the loop runs it only where its
first iteration would run the body (the flag clear, ext > 0); that
iteration evaluates X, so L's loads were read there in the loop as it was
(bounds inference's regions cover them). The iterations below v.end
(v < L) find the flag clear and store X = false: they run the `else`
alone, X and the tests it is made of (`select(t, true, false)`, `!t`)
replaced by their values and simplified; the iteration at v.end, where
the loop reaches it, runs the body as it was (it sets the flag).

A CSR row's `for k in range(A.shape[0]): if k >= length: break`
(frontend_ast/gather_dots.py: a bound that reads an array is no loop
bound) then runs over the row only, not over the whole array."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.config import debug_print
from pyhalide.ir.mutator import Mutator, Visitor
from pyhalide.ir.ops import equal, is_const, is_lazy_select, substitute, substitute_exprs

from .loop_range_facts import has_loop_exit
from .simplify import simplify

_I32, _I64 = ir.Int(32), ir.Int(64)
# intrinsics L may call (no effect, the same value at every iteration)
_PURE = frozenset({"if_then_else", "likely", "abs", "is_nan", "trunc", "floor", "ceil",
                   "round"})


def invariant_exit(stmt: ir.Stmt) -> ir.Stmt:
    return _Bound().mutate(stmt) if has_loop_exit(stmt) else stmt


class _Bound(Mutator):
    stmts_only = True

    def visit_For(self, s):
        s = self.mutate_children(s)
        out = _bounded(s)
        return s if out is None else out


def _bounded(s: ir.For):
    if s.kind != ir.ForKind.SERIAL or s.min.type != _I32 or s.extent.type != _I32:
        return None
    b = s.body
    if not (isinstance(b, ir.IfThenElse) and isinstance(b.then_case, ir.LoopExit) and
            b.then_case.loop == s.name and b.else_case is not None):
        return None
    flag = b.condition
    if not (isinstance(flag, ir.Load) and flag.type.is_bool() and
            s.name not in ir.free_vars(flag.index)):
        return None
    inner = _inner(b, flag)
    facts = _Facts(flag.name, s.name)
    facts.visit(inner)
    if facts.flag_stores != 1 or facts.exits:
        return None
    found = _flag_store(inner, flag, [])
    if found is None:
        return None
    value, lets = found
    for name, v in reversed(lets):
        value = substitute(value, {name: v})
    lim = _at_least(value, s.name)
    if lim is None or not _invariant(lim, s.name, facts):
        return None
    loads = []
    _Loads(loads).visit(lim)
    names = [f"{s.name}.inv{k}" for k in range(len(loads))]
    pairs = [(ld, ir.Variable(ld.type, n)) for ld, n in zip(loads, names)]
    lim = substitute_exprs(lim, pairs) if pairs else lim
    body = substitute_exprs(s.body, pairs) if pairs else s.body
    known = _known(value, False)
    lim_name, end_name = f"{s.name}.lim", f"{s.name}.end"
    lo = ir.Cast(_I64, s.min)
    top = ir.Add(lo, ir.Cast(_I64, s.extent))
    end = ir.Variable(_I64, end_name)
    # the iterations below `end` find the flag clear and leave it clear (v < L):
    # their body without the exit tests, X's parts replaced by their values
    main = substitute_exprs(_inner(body, flag), [
        (substitute_exprs(e, pairs) if pairs else e, ir.Const(ir.Bool(), v))
        for e, v in known])
    loops = ir.Block([
        ir.For(s.name, s.min, ir.Cast(_I32, ir.Sub(end, lo)), s.kind, simplify(main)),
        # the iteration at `end` (if the loop reaches it) sets the flag, as it was
        ir.For(s.name, ir.Cast(_I32, end), ir.Cast(_I32, ir.Min(ir.Sub(top, end),
                                                                ir.Const(_I64, 1))),
               s.kind, body)])
    out = ir.LetStmt(lim_name, lim, ir.LetStmt(end_name, ir.Min(ir.Max(
        ir.Variable(_I64, lim_name), lo), top), loops))
    for ld, n in reversed(list(zip(loads, names))):
        out = ir.LetStmt(n, ld, out)
    runs = ir.And(ir.LT(ir.Const(_I32, 0), s.extent), ir.Not(flag))
    debug_print(1, f"pyhalide: invariant exit: loop {s.name} runs to its bound")
    return ir.IfThenElse(runs, out)


def _inner(body, flag):
    """The loop body without its exit test (and the repeated `if (!f[j])`)."""
    inner = body.else_case
    if isinstance(inner, ir.IfThenElse) and inner.else_case is None and \
            equal(inner.condition, ir.Not(flag)):
        inner = inner.then_case
    return inner


def _known(x, value: bool) -> list:
    """(node, its value) for x and the tests inside it that _at_least and
    _below read, where x has `value`."""
    out = [(x, value)]
    if isinstance(x, ir.Select) and is_const(x.true_value, True) and \
            is_const(x.false_value, False):
        out += _known(x.condition, value)
    elif isinstance(x, ir.Select) and is_const(x.true_value, False) and \
            is_const(x.false_value, True):
        out += _known(x.condition, not value)
    elif isinstance(x, ir.Not):
        out += _known(x.a, not value)
    return out


def _flag_store(st, flag, lets):
    """(value, lets in scope) of the store into the flag reached through
    blocks and lets only, or None."""
    if isinstance(st, ir.Store):
        if st.name == flag.name and equal(st.index, flag.index):
            return st.value, list(lets)
        return None
    if isinstance(st, ir.LetStmt):
        lets.append((st.name, st.value))
        try:
            return _flag_store(st.body, flag, lets)
        finally:
            lets.pop()
    if isinstance(st, ir.Block):
        for x in st.stmts:
            got = _flag_store(x, flag, lets)
            if got is not None:
                return got
    return None


def _loop_var(e, v: str) -> bool:
    """e is v or int64(v)."""
    if isinstance(e, ir.Cast) and e.type == _I64:
        e = e.value
    return isinstance(e, ir.Variable) and e.name == v and e.type == _I32


def _wide(b):
    """b as int64 (b an int32 or int64 bound), or None."""
    if b.type == _I64:
        return b
    if b.type == _I32:
        return ir.Cast(_I64, b)
    return None


def _plus_one(b):
    """b + 1 for an int32 loop variable's comparison `v > b` (v > b <=> v >=
    b + 1; an int64 b is first capped at 2**32, past every int32 v)."""
    w = _wide(b)
    if w is None:
        return None
    if b.type == _I64:
        w = ir.Min(w, ir.Const(_I64, 2**32))
    return ir.Add(w, ir.Const(_I64, 1))


def _at_least(x, v: str):
    """L (int64) with x <=> int64(v) >= L, or None."""
    if isinstance(x, ir.Select):
        if is_const(x.true_value, True) and is_const(x.false_value, False):
            return _at_least(x.condition, v)
        if is_const(x.true_value, False) and is_const(x.false_value, True):
            return _below(x.condition, v)
        if v in ir.free_vars(x.condition):
            return None
        a, b = _at_least(x.true_value, v), _at_least(x.false_value, v)
        return None if a is None or b is None else ir.Select(x.condition, a, b)
    if isinstance(x, ir.Not):
        return _below(x.a, v)
    if isinstance(x, ir.GE) and _loop_var(x.a, v):
        return _wide(x.b)
    if isinstance(x, ir.LE) and _loop_var(x.b, v):
        return _wide(x.a)
    if isinstance(x, ir.GT) and _loop_var(x.a, v):
        return _plus_one(x.b)
    if isinstance(x, ir.LT) and _loop_var(x.b, v):
        return _plus_one(x.a)
    return None


def _below(x, v: str):
    """L (int64) with x <=> int64(v) < L, or None."""
    if isinstance(x, ir.Select):
        if is_const(x.true_value, True) and is_const(x.false_value, False):
            return _below(x.condition, v)
        if is_const(x.true_value, False) and is_const(x.false_value, True):
            return _at_least(x.condition, v)
        if v in ir.free_vars(x.condition):
            return None
        a, b = _below(x.true_value, v), _below(x.false_value, v)
        return None if a is None or b is None else ir.Select(x.condition, a, b)
    if isinstance(x, ir.Not):
        return _at_least(x.a, v)
    if isinstance(x, ir.LT) and _loop_var(x.a, v):
        return _wide(x.b)
    if isinstance(x, ir.GT) and _loop_var(x.b, v):
        return _wide(x.a)
    if isinstance(x, ir.LE) and _loop_var(x.a, v):
        return _plus_one(x.b)
    if isinstance(x, ir.GE) and _loop_var(x.b, v):
        return _plus_one(x.a)
    return None


def _invariant(lim, v: str, facts) -> bool:
    """Whether lim reads no name bound in the loop and loads only buffers
    the loop does not store (no calls)."""
    names = set(ir.free_vars(lim))
    if v in names or names & facts.bound:
        return False
    walk = _Reads()
    walk.visit(lim)
    return not walk.calls and not (walk.buffers & facts.stored)


class _Facts(Visitor):
    """Of a loop body: stores into the flag buffer, LoopExits of the loop or
    of loops around it, names bound, buffers stored."""

    def __init__(self, flag: str, loop: str):
        super().__init__()
        self.flag, self.loop = flag, loop
        self.flag_stores, self.exits = 0, 0
        self.bound, self.stored = set(), set()
        self.inner = set()       # the loops inside the body

    def visit_Store(self, s):
        self.stored.add(s.name)
        if s.name == self.flag:
            self.flag_stores += 1
        self.visit_children(s)

    def visit_LoopExit(self, s):
        # (an exit of the loop itself, or of a loop around it, may skip the
        # flag's store: not taken)
        if s.loop not in self.inner:
            self.exits += 1

    def visit_LetStmt(self, s):
        self.bound.add(s.name)
        self.visit_children(s)

    def visit_Let(self, e):
        self.bound.add(e.name)
        self.visit_children(e)

    def visit_For(self, s):
        self.bound.add(s.name)
        self.inner.add(s.name)
        self.visit_children(s)

    def visit_Allocate(self, s):
        self.stored.add(s.name)
        self.visit_children(s)


class _Reads(Visitor):
    """Whether an expression calls anything but a pure intrinsic; the
    buffers it loads."""

    def __init__(self):
        super().__init__()
        self.calls, self.buffers = False, set()

    def visit_Call(self, e):
        if e.call_type == ir.INTRINSIC and e.name in _PURE:
            self.visit_children(e)
        else:
            self.calls = True

    def visit_Load(self, e):
        self.buffers.add(e.name)
        self.visit_children(e)


class _Loads(Visitor):
    """The distinct loads of an expression that it always reads, in order."""

    def __init__(self, out: list):
        super().__init__()
        self.out = out

    def visit_Load(self, e):
        self.visit_children(e)
        if not any(equal(e, x) for x in self.out):
            self.out.append(e)

    def visit_Call(self, e):
        # (a lazy select's branches are read only where it picks them)
        if is_lazy_select(e):
            self.visit(e.args[0])
        else:
            self.visit_children(e)
