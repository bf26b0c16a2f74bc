"""Vectorization (Halide's VectorizeLoops): every For(kind="vectorized") of
constant extent N becomes its body with the loop variable replaced by
Ramp(min, 1, N) and every expression that depends on it widened to N lanes.

    vectorize_loops(stmt) -> stmt

Runs after storage flattening, on flat Stmts (Store/Load/Allocate/...).
Inner loops are processed before the loops around them.

Widening keeps one invariant: a rewritten expression is either scalar (the
same in every lane) or has exactly N lanes and depends on them. Scalars meet
vectors as Broadcasts; integer Add/Sub/Mul of ramps and scalars fold into
ramps (exact under wrap-around: ring identities only), so affine indices
stay ramps and the backend emits dense loads and stores for stride +-1,
shuffles for short strides and gathers/scatters otherwise. A ramp whose
stride folds to 0 is a scalar again. Selects, casts, intrinsic calls, Lets
and LetStmts widen lane-wise. A Let or LetStmt whose value becomes a ramp
binds only the ramp's base, as `<name>.base`, and its uses become that ramp
(so indices built from it stay ramps); one whose value becomes another
vector is renamed `<name>.widened` (its uses become vector Variables).

Inside the vectorized body:
- a nested loop whose bounds do not depend on the lanes stays a loop (with a
  vector body); one whose min depends on the lanes but whose extent does not
  becomes a loop over the offset `<name>.offset` in [0, extent) with
  `<name>` = min + offset, a vector; one of constant extent 1 is a
  LetStmt;
- an Allocate is per-iteration storage, so it gets one copy per lane: its
  size is multiplied by N and element i of lane j lives at i*N + j;
- a lazy `if_then_else` intrinsic whose condition does not depend on the
  lanes stays lazy (with vector branches); one whose condition does becomes
  a vector Select when neither branch reads memory or calls anything but
  the total math intrinsics (evaluating both is then harmless);
- an AssertStmt whose condition or arguments depend on the lanes becomes
  `if (!all lanes hold) <the original scalar assertions, lane by lane>`,
  which raises the serial loop's error (see _Widen._assertions).

Fallbacks. A vectorized loop stays a serial loop (correct above all;
reported at PYHALIDE_DEBUG=1) when its body cannot be vectorized exactly:
an IfThenElse whose condition depends on the lanes (of kind `fallback`
when that condition reads no memory: a bounds guard, so the loop is the
guarded tail copy of a partitioned loop, which codegen keeps LLVM from
unrolling or vectorizing); lane-dependent
assertions inside a nested loop, at more than one place of the body, or
reading per-lane storage; a Store whose index does not depend on the lanes
while its value does; a nested loop or Allocate whose extent depends on
the lanes; a lazy if_then_else with a lane-dependent condition and a branch
that reads memory; the body already holding vector code; or a possible
loop-carried dependence between lanes (see _lane_hazard): a buffer the
body writes and also reads or writes again must be accessed only at ramps
of one constant non-zero stride whose bases are fixed for the iteration and
either equal or far enough apart that no element is reached by two lanes.

Nested vectorized loops: the inner one is vectorized first; the outer one
then finds vector code in its body and stays serial (reported). The inner
loop is the one whose accesses are usually stride 1, and widening to N*M
lanes would need a shuffle node the IR does not have.

A vectorized loop whose extent is not a constant after simplification is a
CompileError naming its variable: split it by a constant factor first.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.config import debug_print

from .linear import constant_difference
from .simplify import simplify

# Intrinsics defined for every argument (no trap, no side effect): a lazy
# if_then_else whose branches use only these may evaluate both branches.
_TOTAL_INTRINSICS = frozenset({
    "sqrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
    "tanh", "floor", "ceil", "round", "trunc", "pow", "atan2", "copysign", "fmod", "fma", "abs",
    "is_nan", "is_inf", "is_finite", "likely", "if_then_else", "exp2", "cbrt",
    "expm1", "log1p", "log2", "log10", "int_power",
    "int_power_checked", "int_power_fits"})

_BINARY = (ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Mod, ir.Min, ir.Max, ir.BitAnd, ir.BitOr,
           ir.BitXor, ir.Shl, ir.Shr, ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or)


def vectorize_loops(stmt: ir.Stmt, pure_storage: frozenset = frozenset(),
                    stepped: dict = None, pure_outputs: dict = None) -> ir.Stmt:
    """Rewrite every vectorized loop of `stmt` (see the module docstring).
    `pure_storage`: buffers that only pure definitions store to, each point
    once, at distinct addresses (Funcs without updates, in storage the
    pipeline allocates, unfolded: pipeline.py); a body that only stores to
    such a buffer may store it in any order (see _lane_hazard). `stepped`:
    loop name -> the buffers of the Func whose update that loop runs, when
    the schedule proved the loop's iterations free of races on them
    (stage_races.stepped_loops: a time-stepped state read at
    another slot than it is written); their accesses are not compared.
    `pure_outputs`: output buffer -> a condition evaluated when the kernel
    runs under which it is pure storage too (its layout gives each point an
    element of its own: injective_layout); a loop safe only under it is
    vectorized under it, with its serial copy for the other layouts."""
    return _VectorizeLoops(pure_storage, stepped or {}, pure_outputs or {}).mutate(stmt)


class _Fallback(Exception):
    """The loop being vectorized must stay serial; the message says why."""

    kind = ir.ForKind.SERIAL


class _GuardFallback(_Fallback):
    """An `if` whose condition reads no memory depends on the lanes: a
    bounds guard, so the loop is the guarded (tail) copy of a partitioned
    loop and stays a `fallback` loop."""

    kind = ir.ForKind.FALLBACK


class _VectorizeLoops(ir.Mutator):
    def __init__(self, pure_storage: frozenset = frozenset(), stepped: dict = None,
                 pure_outputs: dict = None):
        super().__init__()
        self.pure_storage = pure_storage
        self.stepped = stepped or {}
        self.pure_outputs = pure_outputs or {}

    def visit_For(self, s):
        body = self.mutate(s.body)        # inner loops first
        if s.kind != ir.ForKind.VECTORIZED:
            if body is s.body:
                return s
            return ir.For(s.name, s.min, s.extent, s.kind, body)
        return _vectorize_loop(s, body, self.pure_storage, self.stepped.get(s.name, ()),
                               self.pure_outputs)


def _vectorize_loop(s: ir.For, body: ir.Stmt, pure_storage: frozenset = frozenset(),
                    proven=(), pure_outputs: dict = None) -> ir.Stmt:
    extent = simplify(s.extent)
    if not isinstance(extent, ir.Const):
        raise ir.CompileError(
            f"cannot vectorize loop {s.name}: its extent {ir.expr_to_str(extent)} is not a "
            f"constant (split it by a constant factor first)")
    lanes = extent.value
    if lanes <= 0:
        return ir.Evaluate(ir.index(0))
    lo = simplify(s.min)
    if lanes == 1:
        return ir.LetStmt(s.name, lo, body)
    try:
        if _has_vectors(body):
            raise _Fallback("its body already holds vector code (an inner vectorized loop "
                            "keeps the vectors)")
        widened = _Widen(s.name, lo, lanes).mutate(body)
        hazard = _lane_hazard(widened, pure_storage, proven)
        guard = None
        if hazard:
            guard = _output_guard(widened, pure_storage, proven, pure_outputs or {})
            if guard is None:
                raise _Fallback(hazard)
    except _Fallback as why:
        debug_print(1, f"pyhalide: vectorize: loop {s.name} stays serial: {why}")
        return ir.For(s.name, s.min, s.extent, why.kind, body)
    debug_print(2, f"pyhalide: vectorize: loop {s.name} becomes {lanes} lanes")
    if guard is not None:
        debug_print(2, f"pyhalide: vectorize: loop {s.name} vectorized when the output's "
                       f"layout gives each point an element of its own (else serial)")
        return ir.IfThenElse(guard, widened, ir.For(s.name, s.min, s.extent,
                                                    ir.ForKind.SERIAL, body))
    return widened


def _output_guard(widened: ir.Stmt, pure_storage: frozenset, proven, pure_outputs: dict):
    """The condition (over the layouts of the output buffers `widened`
    stores to) under which its lanes cannot interfere because those outputs
    are pure storage too, or None when they could interfere anyway."""
    stores = _Buffers()
    stores.visit(widened)
    outs = sorted(stores.stores & set(pure_outputs))
    if not outs or _lane_hazard(widened, pure_storage | frozenset(outs), proven):
        return None
    return ir.conjunction(pure_outputs[o] for o in outs)


# --------------------------------------------------------------------------
# Vector arithmetic on the widening invariant (scalar, or N lanes)
# --------------------------------------------------------------------------
def _is_vector(e) -> bool:
    return e.type.lanes > 1


def _broadcast(e: ir.Expr, lanes: int) -> ir.Expr:
    return e if e.type.lanes == lanes else ir.Broadcast(e, lanes)


def _ramp(base: ir.Expr, stride: ir.Expr, lanes: int) -> ir.Expr:
    """Ramp(base, stride, lanes), or the scalar base when the stride is 0."""
    base, stride = simplify(base), simplify(stride)
    if isinstance(stride, ir.Const) and stride.value == 0:
        return base
    return ir.Ramp(base, stride, lanes)


def _affine(e):
    """(base, stride) of a ramp or a scalar (stride 0), else None."""
    if isinstance(e, ir.Ramp):
        return e.base, e.stride
    if not _is_vector(e):
        return e, ir.zero(e.type)
    return None


def _vector_binary(cls, a: ir.Expr, b: ir.Expr, lanes: int) -> ir.Expr:
    """cls(a, b) for operands that are scalars or `lanes`-lane vectors,
    folding integer ramp arithmetic into ramps."""
    if not _is_vector(a) and not _is_vector(b):
        return cls(a, b)
    if issubclass(cls, ir.Compare) and a.type.is_integer() and ir.equal(a, b):
        # the same in every lane (and the simplifier would fold it to a scalar)
        return ir.Const(ir.Bool(), cls in (ir.EQ, ir.LE, ir.GE))
    if a.type.is_integer() and cls in (ir.Add, ir.Sub, ir.Mul):
        fa, fb = _affine(a), _affine(b)
        if fa is not None and fb is not None:
            if cls is not ir.Mul:
                return _ramp(cls(fa[0], fb[0]), cls(fa[1], fb[1]), lanes)
            if not _is_vector(b):
                return _ramp(ir.Mul(fa[0], b), ir.Mul(fa[1], b), lanes)
            if not _is_vector(a):
                return _ramp(ir.Mul(a, fb[0]), ir.Mul(a, fb[1]), lanes)
    return cls(_broadcast(a, lanes), _broadcast(b, lanes))


# --------------------------------------------------------------------------
# Widening one vectorized loop's body
# --------------------------------------------------------------------------
class _Widen(ir.Mutator):
    """Replace loop variable `var` by Ramp(lo, 1, lanes) in a body and widen
    what depends on it. Raises _Fallback when that would not be exact.

    `subs` maps names to their replacement (the loop variable, widened
    Lets, offset loops); `private` holds the Allocates of the body (one
    copy per lane). Both are scoped; the memo is swapped whenever they
    change, since a node's rewrite depends on them."""

    def __init__(self, var: str, lo: ir.Expr, lanes: int):
        super().__init__()
        self.lanes = lanes
        self.var = var
        self.subs = {var: ir.Ramp(lo, ir.index(1), lanes)}
        self.private: dict = {}
        # (name, scalar value) of every enclosing binding that became a
        # vector, outermost first: what a lane-by-lane re-check rebinds
        # (value None: a scalar binding that shadows such a name)
        self.scalar_binders = [(var, lambda lane: simplify(ir.Add(lo, lane)))]
        self.depth = 0              # loops nested inside the vectorized body
        self.assert_groups = 0      # groups of lane-dependent assertions seen

    # ---- scopes -------------------------------------------------------------
    def _in_scope(self, table: dict, name: str, value, fn):
        """Run fn() with table[name] = value (value None: name unbound)."""
        had, old = name in table, table.get(name)
        if value is None and not had:
            return fn()
        saved_memo = self.memo
        self.memo = {}
        if value is None:
            del table[name]
        else:
            table[name] = value
        try:
            return fn()
        finally:
            self.memo = saved_memo
            if had:
                table[name] = old
            else:
                table.pop(name, None)

    def _bind(self, name: str, value: ir.Expr, original: ir.Expr, body):
        """(bound name, bound value, mutated body) for a Let/LetStmt of the
        rewritten `value` (of scalar expression `original`). A vector value
        is bound under a new name; a ramp binds only its base
        (`<name>.base`, a scalar) and its uses become that ramp, so indices
        built from it stay ramps."""
        if not _is_vector(value):
            if all(n != name for n, _ in self.scalar_binders):
                return name, value, self._in_scope(self.subs, name, None,
                                                   lambda: self.mutate(body))
            # it shadows a name that became a vector: no re-check can rebind both
            self.scalar_binders.append((name, None))
            try:
                return name, value, self._in_scope(self.subs, name, None,
                                                   lambda: self.mutate(body))
            finally:
                self.scalar_binders.pop()
        if isinstance(value, ir.Ramp) and isinstance(value.stride, ir.Const):
            bound = ir.Variable(value.base.type, name + ".base")
            use, bound_value = ir.Ramp(bound, value.stride, value.lanes), value.base
        else:
            bound = use = ir.Variable(value.type, name + ".widened")
            bound_value = value
        self.scalar_binders.append((name, lambda lane: original))
        try:
            new_body = self._in_scope(self.subs, name, use, lambda: self.mutate(body))
        finally:
            self.scalar_binders.pop()
        return bound.name, bound_value, new_body

    def mutate(self, n):
        if n is not None and getattr(self, "visit_" + type(n).__name__, None) is None:
            raise _Fallback(f"it contains a {type(n).__name__} node the vectorizer does "
                            "not know")
        return super().mutate(n)

    # ---- expressions ----------------------------------------------------------
    def visit_Const(self, e):
        return e

    def visit_Variable(self, e):
        r = self.subs.get(e.name)
        return e if r is None else r

    def _binary(self, e):
        a, b = self.mutate(e.a), self.mutate(e.b)
        if a is e.a and b is e.b:
            return e
        return _vector_binary(type(e), a, b, self.lanes)

    def _unary(self, e):
        a = self.mutate(e.a)
        return e if a is e.a else type(e)(a)

    visit_Not = visit_BitNot = _unary

    def visit_Cast(self, e):
        v = self.mutate(e.value)
        if v is e.value:
            return e
        return ir.Cast(e.type.with_lanes(v.type.lanes), v)

    def visit_Select(self, e):
        c, t, f = self.mutate(e.condition), self.mutate(e.true_value), self.mutate(e.false_value)
        if c is e.condition and t is e.true_value and f is e.false_value:
            return e
        if not (_is_vector(c) or _is_vector(t) or _is_vector(f)):
            return ir.Select(c, t, f)
        n = self.lanes
        return ir.Select(c, _broadcast(t, n), _broadcast(f, n))

    def visit_Let(self, e):
        value = self.mutate(e.value)
        name, bound, body = self._bind(e.name, value, e.value, e.body)
        if bound is e.value and body is e.body and name == e.name:
            return e
        return ir.Let(name, bound, body)

    def visit_Load(self, e):
        index = self.mutate(e.index)
        if e.name in self.private:
            return ir.Load(e.type.with_lanes(self.lanes), e.name, self._private_index(index))
        if index is e.index:
            return e
        return ir.Load(e.type.with_lanes(index.type.lanes), e.name, index)

    def visit_Call(self, e):
        if e.call_type == ir.INTRINSIC and e.name == "if_then_else":
            return self._if_then_else(e)
        args = tuple(self.mutate(a) for a in e.args)
        if all(a is b for a, b in zip(args, e.args)):
            return e
        if any(_is_vector(a) for a in args):
            if e.call_type != ir.INTRINSIC:
                raise _Fallback(f"the {e.call_type} call {e.name} (not lowered to a Load) "
                                "depends on the lanes")
            args = tuple(_broadcast(a, self.lanes) for a in args)
            return ir.Call(e.type.with_lanes(self.lanes), e.name, args, e.call_type,
                           e.value_index, e.func)
        return ir.Call(e.type, e.name, args, e.call_type, e.value_index, e.func)

    def _if_then_else(self, e):
        cond, a, b = e.args
        c = self.mutate(cond)
        if _is_vector(c):
            if not (_speculable(a) and _speculable(b)):
                raise _Fallback("a lazy if_then_else whose condition depends on the lanes "
                                "reads memory in a branch")
            n = self.lanes
            return ir.Select(c, _broadcast(self.mutate(a), n), _broadcast(self.mutate(b), n))
        ta, tb = self.mutate(a), self.mutate(b)
        if c is cond and ta is a and tb is b:
            return e
        t = e.type
        if _is_vector(ta) or _is_vector(tb):
            ta, tb, t = _broadcast(ta, self.lanes), _broadcast(tb, self.lanes), \
                t.with_lanes(self.lanes)
        return ir.Call(t, e.name, (c, ta, tb), ir.INTRINSIC)

    # ---- statements -------------------------------------------------------------
    def _private_index(self, index: ir.Expr) -> ir.Expr:
        """Element `index` of every lane's copy of a per-lane allocation."""
        n = self.lanes
        scaled = _vector_binary(ir.Mul, index, ir.index(n), n)
        return _vector_binary(ir.Add, scaled, ir.Ramp(ir.index(0), ir.index(1), n), n)

    def visit_Store(self, s):
        index, value = self.mutate(s.index), self.mutate(s.value)
        n = self.lanes
        if s.name in self.private:
            return ir.Store(s.name, _broadcast(value, n), self._private_index(index))
        if _is_vector(index):
            return ir.Store(s.name, _broadcast(value, n), index)
        if _is_vector(value):
            raise _Fallback(f"the store to {s.name} has an index that does not depend on the "
                            "lanes but a value that does")
        if index is s.index and value is s.value:
            return s
        return ir.Store(s.name, value, index)

    def visit_LetStmt(self, s):
        value = self.mutate(s.value)
        name, bound, body = self._bind(s.name, value, s.value, s.body)
        if bound is s.value and body is s.body and name == s.name:
            return s
        return ir.LetStmt(name, bound, body)

    def visit_For(self, s):
        lo, extent = self.mutate(s.min), self.mutate(s.extent)
        if _is_vector(extent):
            raise _Fallback(f"the extent of the inner loop {s.name} depends on the lanes")
        if isinstance(extent, ir.Const) and extent.value == 1:
            name, bound, body = self._bind(s.name, lo, s.min, s.body)
            return ir.LetStmt(name, bound, body)
        self.depth += 1
        try:
            if _is_vector(lo):
                # every lane runs `extent` iterations from its own min
                offset = ir.index_var(s.name + ".offset")
                value = _vector_binary(ir.Add, lo, offset, self.lanes)
                body = self._in_scope(self.subs, s.name, value, lambda: self.mutate(s.body))
                return ir.For(offset.name, ir.index(0), extent, s.kind, body)
            body = self._in_scope(self.subs, s.name, None, lambda: self.mutate(s.body))
        finally:
            self.depth -= 1
        if lo is s.min and extent is s.extent and body is s.body:
            return s
        return ir.For(s.name, lo, extent, s.kind, body)

    def visit_IfThenElse(self, s):
        c = self.mutate(s.condition)
        if _is_vector(c):
            why = (f"the condition {ir.expr_to_str(s.condition)} of an if depends on the "
                   "lanes")
            raise _Fallback(why) if ir.reads_memory(s.condition) else _GuardFallback(why)
        return self.mutate_children(s) if c is s.condition else \
            ir.IfThenElse(c, self.mutate(s.then_case), self.mutate(s.else_case))

    def visit_AssertStmt(self, s):
        return self._assertions([s])

    def _assertions(self, run):
        """A run of consecutive AssertStmts. Those that do not depend on the
        lanes stay as they are. Otherwise each becomes `if (!all lanes of
        its condition) recheck`, tested in order (a condition is evaluated
        for every lane only once the earlier ones hold in every lane), where
        `recheck` runs the original scalar run lane by lane and so raises
        the error of the first failing iteration, as the serial loop does.
        This is exact only for one such run per body, outside nested loops;
        anything else falls back."""
        widened = []
        for a in run:
            c, args = self.mutate(a.condition), tuple(self.mutate(x) for x in a.args)
            widened.append((a, c, args))
        if not any(_is_vector(c) or any(_is_vector(x) for x in args) for _, c, args in widened):
            return ir.block(*[a if c is a.condition and all(x is y for x, y in zip(args, a.args))
                              else ir.AssertStmt(c, a.error, a.message, args)
                              for a, c, args in widened])
        what = ir.expr_to_str(run[0].condition)
        if self.depth:
            raise _Fallback(f"the assertion {what} depends on the lanes inside a nested loop")
        self.assert_groups += 1
        if self.assert_groups > 1:
            raise _Fallback(f"the assertion {what} depends on the lanes, and so does another "
                            "one elsewhere in the body")
        if any(name in self.private for name in _loaded_buffers(run)):
            raise _Fallback(f"the assertion {what} reads per-lane storage")
        if any(value is None for _, value in self.scalar_binders):
            raise _Fallback(f"the assertion {what} depends on the lanes where a name that "
                            "became a vector is shadowed")
        recheck = self._lane_by_lane(ir.block(*run))
        return ir.block(*[ir.IfThenElse(ir.Not(_all_lanes(c)), recheck) for _, c, _ in widened])

    def _lane_by_lane(self, stmt):
        """A serial loop running the original scalar `stmt` for each lane,
        with every binding that became a vector rebound to its lane's value."""
        lane = ir.index_var(self.var + ".lane")
        for name, value in reversed(self.scalar_binders):
            stmt = ir.LetStmt(name, value(lane), stmt)
        return ir.For(lane.name, ir.index(0), ir.index(self.lanes), ir.ForKind.SERIAL, stmt)

    def visit_Allocate(self, s):
        extents = tuple(self.mutate(e) for e in s.extents)
        if any(_is_vector(e) for e in extents):
            raise _Fallback(f"the size of allocation {s.name} depends on the lanes")
        body = self._in_scope(self.private, s.name, True, lambda: self.mutate(s.body))
        return ir.Allocate(s.name, s.type, extents + (ir.index(self.lanes),), body,
                           s.reuse_if, s.reuse)

    def visit_Block(self, s):
        out, run = [], []
        for x in s.stmts:
            if isinstance(x, ir.AssertStmt):
                run.append(x)
                continue
            if run:
                out.append(self._assertions(run))
                run = []
            out.append(self.mutate(x))
        if run:
            out.append(self._assertions(run))
        if len(out) == len(s.stmts) and all(a is b for a, b in zip(out, s.stmts)):
            return s
        return ir.block(*out)

    def visit_Evaluate(self, s):
        return self.mutate_children(s)

    def visit_ProducerConsumer(self, s):
        return self.mutate_children(s)


for _cls in _BINARY:
    setattr(_Widen, "visit_" + _cls.__name__, _Widen._binary)


# --------------------------------------------------------------------------
# Analyses
# --------------------------------------------------------------------------
class _HasVectors(ir.Visitor):
    found = False

    def visit(self, n):
        if isinstance(n, ir.Expr) and n.type.lanes > 1:
            self.found = True
        if not self.found:
            super().visit(n)


def _has_vectors(stmt) -> bool:
    v = _HasVectors()
    v.visit(stmt)
    return v.found


def _all_lanes(c: ir.Expr) -> ir.Expr:
    """Whether a bool holds in every lane (a scalar holds in all or none)."""
    return ir.VectorReduce("and", c) if _is_vector(c) else c


class _Loads(ir.Visitor):
    def __init__(self):
        super().__init__()
        self.names = set()

    def visit_Load(self, e):
        self.names.add(e.name)
        self.visit_children(e)


def _loaded_buffers(stmts) -> set:
    v = _Loads()
    for x in stmts:
        v.visit(x)
    return v.names


class _Speculable(ir.Visitor):
    """Whether an expression may be evaluated where the serial code would
    not evaluate it: no memory reads, only total intrinsics."""

    ok = True

    def visit_Load(self, e):
        self.ok = False

    def visit_Call(self, e):
        if e.call_type != ir.INTRINSIC or e.name not in _TOTAL_INTRINSICS:
            self.ok = False
        self.visit_children(e)


def _speculable(e) -> bool:
    v = _Speculable()
    v.visit(e)
    return v.ok


class _Accesses(ir.Visitor):
    """Every Load and Store of the widened body, by buffer name, with
    whether it runs inside a nested loop; the names whose value may change
    during one iteration (`varying`: loops inside the body, and Lets of
    values that read memory or use a varying name); and the per-lane
    (private) allocations, whose accesses are left out."""

    memoize = False

    def __init__(self, written: set):
        super().__init__()
        self.written = written         # the buffers the body stores to
        self.by_buffer: dict = {}      # name -> [(is_store, index, in_loop)]
        self.varying: set = set()
        self.private: set = set()
        self.depth = 0
        self.seen_exprs: set = set()

    def visit(self, n):
        if isinstance(n, ir.Expr):       # expressions: once per object (DAGs)
            if id(n) in self.seen_exprs:
                return
            self.seen_exprs.add(id(n))
        super().visit(n)

    def _record(self, name, is_store, index):
        if name not in self.private:
            self.by_buffer.setdefault(name, []).append((is_store, index, self.depth > 0))

    def visit_Load(self, e):
        self._record(e.name, False, e.index)
        self.visit_children(e)

    def visit_Store(self, s):
        self._record(s.name, True, s.index)
        self.visit_children(s)

    def visit_For(self, s):
        self.varying.add(s.name)
        self.visit(s.min)
        self.visit(s.extent)
        self.depth += 1
        self.visit(s.body)
        self.depth -= 1

    def _let(self, name, value):
        if not _fixed(value, self.varying, self.written):
            self.varying.add(name)

    def visit_LetStmt(self, s):
        self._let(s.name, s.value)
        self.visit_children(s)

    def visit_Let(self, e):
        self._let(e.name, e.value)
        self.visit_children(e)

    def visit_Allocate(self, s):
        for e in s.extents:
            self.visit(e)
        fresh = s.name not in self.private
        self.private.add(s.name)
        self.visit(s.body)
        if fresh:
            self.private.discard(s.name)


class _Buffers(ir.Visitor):
    """The names of the buffers loaded from (`loads`) and stored to (`stores`)."""

    def __init__(self):
        super().__init__()
        self.loads, self.stores = set(), set()
        self.traces = False             # a traced value (pyhalide/tracing.py) is evaluated

    def visit_Load(self, e):
        self.loads.add(e.name)
        self.visit_children(e)

    def visit_Call(self, e):
        if e.name.startswith("pyhalide.trace"):
            self.traces = True
        self.visit_children(e)

    def visit_Store(self, s):
        self.stores.add(s.name)
        self.visit_children(s)


def _fixed(e, varying: set, written=None) -> bool:
    """Whether e has one value for the whole iteration: it uses no varying
    name and reads no memory, or (given `written`, the buffers the body
    stores to) only buffers the body does not write."""
    if set(ir.free_vars(e)) & varying:
        return False
    v = _Buffers()
    v.visit(e)
    return not v.loads if written is None else not v.loads & written


def _fixed_ramp(index, varying: set, written: set) -> bool:
    """A ramp of constant non-zero stride (distinct lanes) whose base is
    fixed for the whole iteration (it may read buffers the body does not
    write: a slot number looked up in a table)."""
    if not isinstance(index, ir.Ramp):
        return False
    stride = index.stride
    if not isinstance(stride, ir.Const) or stride.value == 0:
        return False
    if abs(stride.value) * (index.lanes - 1) >= 1 << 31:
        return False
    return _fixed(index.base, varying, written)


def _lane_hazard(body: ir.Stmt, pure_storage: frozenset = frozenset(), proven=()):
    """Why the lanes of a widened body might interfere, or None.

    Executing the body statement by statement for all lanes at once equals
    the serial loop when no lane touches what another lane writes. For each
    buffer the body writes (per-lane allocations aside): a single Store
    outside nested loops and no other access is safe (a scatter stores the
    lanes in order, so the last iteration wins, as serially); so are only
    stores to `pure_storage` (a pure definition's points, each stored once
    at an address of its own, in any order; not when the body traces
    values, whose order is observable); otherwise each element must belong
    to one lane for the whole iteration (_lanes_own_elements); buffers
    `proven` free of races between the lanes are not compared."""
    stores = _Buffers()
    stores.visit(body)
    acc = _Accesses(stores.stores)
    acc.visit(body)
    for name, uses in sorted(acc.by_buffer.items()):
        if name in proven or not any(is_store for is_store, _, _ in uses):
            continue
        if len(uses) == 1 and not uses[0][2]:
            continue
        if name in pure_storage and all(is_store for is_store, _, _ in uses) \
                and not stores.traces:
            continue
        if _lanes_own_elements([index for _, index, _ in uses], acc.varying, acc.written):
            continue
        return (f"{name} is written and accessed again at locations other lanes may touch "
                "(a possible loop-carried dependence)")
    return None


def _lanes_own_elements(indices, varying: set, written: set) -> bool:
    """Whether every element these indices reach is reached by one lane
    only, for the whole iteration: fixed ramps of one constant stride s
    whose bases differ by constants d that are 0 (the same elements, lane
    by lane), not multiples of s, or at least lanes * |s| (disjoint)."""
    if not all(_fixed_ramp(i, varying, written) for i in indices):
        return False
    first = indices[0]
    s = first.stride.value
    for i in indices[1:]:
        if not ir.equal(i.stride, first.stride):
            return False
        d = constant_difference(i.base, first.base)
        if d is None:
            return False
        if d != 0 and d % s == 0 and abs(d) < first.lanes * abs(s):
            return False
    return True
