"""Loop partitioning: a guarded loop body gets a guard-free copy.

A guard is an `if (c) {...}` without else whose condition reads no memory
and is a conjunction of comparisons of signed integers. Walking the loop nest from the outside
in, the first loop L (not vectorized, not inside a vectorized loop, extent
not the constant 1) for which

    safe = "c holds at every point of the loops inside L"

can be written over the names in scope at the top of L's body gets its body
replaced by

    if (safe) { body with the guard removed } else { body }

where the branch goes around the smallest statements of the body that hold
the guards (through blocks, lets, allocations and produce/consume markers,
never into an inner loop): a Func computed in L beside its guarded consumer
stays one copy.

`safe` is c with every variable bound inside L eliminated, innermost first:
a let (or a loop of extent 1) is substituted; a loop variable x in
[min, min + extent - 1] is replaced, in each comparison, by the end of its
range that makes the comparison hardest (the comparison's two sides must be
linear in x: x appears in their difference only as a term k*x). The guard
must depend on at least one loop inside L, or the copy would gain nothing.
`safe` must be linear in L's variable too, or independent of it: it
usually says which chunks of a split lie inside the extent; where it does
not depend on L's variable, it tests the extents alone (do they divide the
split factors?), once per iteration of the outermost loop. A guard whose
`safe` is not linear in L's variable (a ShiftInwards tail, `min(o*f, e - f)
+ f - 1 <= max`, which loop synthesis already partitions) is left alone.
The result is exact for every extent, empty loops included, under the
assumption that bounds inference also makes: 32-bit index arithmetic of
loop variables does not overflow.

A guard of a Func computed inside L (in a `produce` nested in L's body)
partitions L only when `safe` depends on L's variable (a chunk of L runs
guard-free). A test on extents alone is left to that Func's own loops:
hoisted to L it would copy L's whole nest, once per guarded split of each
Func computed in it, for a test the inner Func makes once per realization.
Likewise an extent test for a guard below an inner loop of L that computes
a Func is not made when it is L's only reason to partition: the copy
would hold the Funcs computed in L's nest again, to run the last chunk of
an inner loop guard-free, and an inner loop can partition the guard by
chunks itself.

No copy is made for guards tested at most CHEAP_TESTS times per iteration
of L (below loops of constant extents only, or `min` with a constant) when
the statements the branch would go around compute a Func: the copy would
hold that computation again for a few integer tests (suite 4's sum_axis1
schedule: a guard per group of 8 rows around the group's `sum_tree`).

The else copy keeps its guards, and deeper loops of it may partition them
again (a tail chunk gets a guard-free copy for its full vectors), at most
three times per guard and four times per path; a partition whose condition an
enclosing branch already found false is not made again. Several guards
that are safe at the same loop share one partition.

Inside a guard `e < B` (or `e <= B`), a clamp `min(e, B - 1)` (or
`min(e, B)`, or `min(e, max(B - 1, z))`) is the identity and is removed,
likewise `max(e, B)` inside `e >= B`: the clamps that tell bounds inference
what a guarded read touches would otherwise turn a dense vector load into a
gather. This happens before partitioning, so both copies lose the clamp.

A loop a schedule marks partition(v, Partition.Never) is not partitioned
itself (a loop inside it still may be): the product's default schedule
(frontend_ast/array_dot.py) keeps its blocks of columns and of k whole,
whose copies would repeat every register tile and the panels' production.

PYHALIDE_DEBUG=1 reports each partition; 2 also each clamp removed."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from pyhalide import ir
from pyhalide.ir.config import debug_print

from .branch_facts import as_upper, conjuncts, impossible, int_compare
from .cold_copies import cold_copies
from .linear import atom_key, constant_difference, linear_form
from .simplify import simplify

MAX_PER_GUARD = 3          # partitions of one guard on any path
MAX_PER_PATH = 4           # partitions on any path from the root
CHEAP_TESTS = 256          # guard tests per iteration not worth a copy of a Func's computation


def partition_loops(stmt: ir.Stmt, never: frozenset = frozenset()) -> ir.Stmt:
    """Remove clamps made redundant by their guards, then partition loops
    around guards (see the module docstring); the loops named in `never`
    (a schedule's partition(v, Partition.Never)) are not partitioned
    themselves."""
    stmt = _Clamps().mutate(stmt)
    return _Partitioner(cold_copies(stmt), never).walk(stmt, _Context())


# ---- comparisons (conjuncts, int_compare, as_upper: branch_facts) --------------------------
def _compare_key(c):
    """A canonical key of an integer comparison: `d <= 0` with d linear."""
    small, big, strict = as_upper(c)
    lf = linear_form(ir.Sub(small, big))
    return ("le", lf.nonconst_key(), lf.const + (1 if strict else 0))


def _key(c: ir.Expr) -> tuple:
    """Conditions with equal keys are equal (conjuncts in any order)."""
    return tuple(sorted((_compare_key(x) if int_compare(x) else ("expr", atom_key(x)))
                        for x in conjuncts(c)))


# ---- clamps under guards ----------------------------------------------------------------
@dataclass(frozen=True)
class _Fact:
    small: ir.Expr
    big: ir.Expr
    strict: bool

    def mentions(self, name: str) -> bool:
        return ir.uses_var(self.small, name) or ir.uses_var(self.big, name)


def _facts_of(cond: ir.Expr) -> tuple:
    if ir.reads_memory(cond):
        return ()
    return tuple(_Fact(*as_upper(c)) for c in conjuncts(cond) if int_compare(c))


def _same(a, b) -> bool:
    return constant_difference(a, b) == 0


def _offset_in(a, b, allowed) -> bool:
    return constant_difference(a, b) in allowed


def _bounded(y, base, allowed, outer) -> bool:
    """y is base + k (k in allowed), or `outer` (Max: at least, Min: at
    most) of such an expression and anything."""
    if isinstance(y, outer):
        return _bounded(y.a, base, allowed, outer) or _bounded(y.b, base, allowed, outer)
    return _offset_in(y, base, allowed)


class _ClampRewriter(ir.Mutator):
    """min(small, big - 1) -> small under small < big (min(small, big) also
    under <=, and min(small, max(big - 1, z)) for any z); max(big, small + 1)
    -> big likewise. Only offsets that cannot wrap are used, so the rewrite
    is exact."""

    def __init__(self, facts):
        super().__init__()
        self.facts = facts

    def _minmax(self, e, is_min: bool):
        r = self.mutate_children(e)
        if not (r.type.is_scalar() and r.type.is_integer()):
            return r
        for keep, other in ((r.a, r.b), (r.b, r.a)):
            for f in self.facts:
                if is_min:
                    ok = _same(keep, f.small) and \
                        _bounded(other, f.big, (-1, 0) if f.strict else (0,), ir.Max)
                else:
                    ok = _same(keep, f.big) and \
                        _bounded(other, f.small, (0, 1) if f.strict else (0,), ir.Min)
                if ok:
                    debug_print(2, f"pyhalide: partition loops: {ir.expr_to_str(r)} is "
                                   f"{ir.expr_to_str(keep)} under its guard")
                    return keep
        return r

    def visit_Min(self, e):
        return self._minmax(e, True)

    def visit_Max(self, e):
        return self._minmax(e, False)


class _Clamps(ir.Mutator):
    """Statements are walked with the facts of the enclosing guards; each
    expression is rewritten by a rewriter per fact set."""

    memoize = False

    def __init__(self):
        super().__init__()
        self.facts = ()
        self.rewriters = {}

    def mutate(self, n):
        if isinstance(n, ir.Expr):
            if not self.facts:
                return n
            rw = self.rewriters.get(self.facts)
            if rw is None:
                rw = self.rewriters[self.facts] = _ClampRewriter(self.facts)
            return rw.mutate(n)
        return super().mutate(n)

    def _scoped(self, name, fn):
        old = self.facts
        self.facts = tuple(f for f in old if not f.mentions(name))
        try:
            return fn()
        finally:
            self.facts = old

    def visit_IfThenElse(self, s):
        cond = self.mutate(s.condition)
        old = self.facts
        self.facts = old + _facts_of(cond)
        then_case = self.mutate(s.then_case)
        self.facts = old
        else_case = self.mutate(s.else_case)
        if cond is s.condition and then_case is s.then_case and else_case is s.else_case:
            return s
        return ir.IfThenElse(cond, then_case, else_case)

    def visit_LetStmt(self, s):
        value = self.mutate(s.value)
        body = self._scoped(s.name, lambda: self.mutate(s.body))
        return s if value is s.value and body is s.body else ir.LetStmt(s.name, value, body)

    def visit_For(self, s):
        lo, ext = self.mutate(s.min), self.mutate(s.extent)
        body = self._scoped(s.name, lambda: self.mutate(s.body))
        if lo is s.min and ext is s.extent and body is s.body:
            return s
        return ir.For(s.name, lo, ext, s.kind, body)


# ---- the safe condition of a guard at a loop --------------------------------------------
def _s(e):
    return simplify(e, assume_no_overflow=True)


def coefficient(c, var: str):
    """The coefficient of var in `small - big` of comparison c; None if c is
    not a comparison linear in var."""
    if not int_compare(c):
        return None
    small, big, _ = as_upper(c)
    coef = 0
    lf = linear_form(ir.Sub(small, big))
    for atom, k in lf.terms.values():
        if isinstance(atom, ir.Variable) and atom.name == var:
            coef += k
        elif ir.uses_var(atom, var):
            return None
    return lf.type.wrap(coef)


def _hardest(c, var: str, lo: ir.Expr, hi: ir.Expr):
    """Comparison c with loop variable var (in [lo, hi]) at the end of its
    range where c is hardest to satisfy; None if c is not linear in var."""
    coef = coefficient(c, var)
    if coef is None:
        return None
    at = {var: hi if coef > 0 else lo}
    return type(c)(ir.substitute(c.a, at), ir.substitute(c.b, at))


def _safe_condition(cond: ir.Expr, frames: list):
    """The condition, over the names in scope outside `frames` (outermost
    first: ("for", name, lo, hi) or ("let", name, value)), that cond holds
    wherever the frames reach; with whether cond depends on a loop of them.
    None where there is none."""
    conj = conjuncts(cond)
    depends = False
    bound = set()
    for frame in reversed(frames):
        kind, name = frame[0], frame[1]
        bound.add(name)
        users = [i for i, c in enumerate(conj) if ir.uses_var(c, name)]
        if not users:
            continue
        if kind == "let":
            if ir.reads_memory(frame[2]):
                return None
            for i in users:
                conj[i] = ir.substitute(conj[i], {name: frame[2]})
            continue
        depends = True
        for i in users:
            c = _hardest(conj[i], name, frame[2], frame[3])
            if c is None:
                return None
            conj[i] = c
    out = []
    for c in conj:
        c = _s(c)
        if isinstance(c, ir.Const):
            if not c.value:
                return None
            continue
        if any(n in bound for n in ir.free_vars(c)):
            return None
        out.append(c)
    return (ir.conjunction(out) if out else ir.const(ir.Bool(), True)), depends


def _found_false(known: frozenset, cond: ir.Expr) -> frozenset:
    """known, and that cond is false (by key: a partition on an equal
    condition is not worth making there)."""
    return known | {_key(cond)}


def _eligible(s) -> bool:
    return isinstance(s, ir.IfThenElse) and s.else_case is None and \
        not ir.reads_memory(s.condition)


def _loop_frame(s: ir.For):
    """A loop as a frame: a let when it runs once, else its range."""
    if ir.is_const(s.extent, 1):
        return ("let", s.name, s.min)
    return ("for", s.name, s.min, _s(ir.Sub(ir.Add(s.min, s.extent), ir.index(1))))


def _extent_bound(extent):
    """A constant upper bound of a loop extent (a constant, or `min` with
    one), or None."""
    if isinstance(extent, ir.Const):
        return extent.value
    if isinstance(extent, ir.Min):
        bounds = [b for b in (_extent_bound(extent.a), _extent_bound(extent.b))
                  if b is not None]
        return min(bounds) if bounds else None
    return None


def _tests(frames) -> float:
    """How many times a guard below `frames` is tested per iteration of the
    loop they are in (an upper bound; inf where a loop's extent has no
    constant bound)."""
    n = 1
    for frame in frames:
        if frame[0] == "for":
            b = _extent_bound(_s(ir.Add(ir.Sub(frame[3], frame[2]), ir.index(1))))
            if b is None:
                return float("inf")
            n *= max(b, 0)
    return n


def _copied_parts(fast, slow):
    """The pairs of statements `_branch` puts a branch around (the parts of
    the loop body that the partition copies)."""
    if fast is slow:
        return
    kind = type(slow)
    if kind is ir.Block and type(fast) is kind and len(fast.stmts) == len(slow.stmts):
        for f, s in zip(fast.stmts, slow.stmts):
            yield from _copied_parts(f, s)
    elif kind is ir.LetStmt and type(fast) is kind and fast.name == slow.name and \
            fast.value is slow.value:
        yield from _copied_parts(fast.body, slow.body)
    elif kind in (ir.Allocate, ir.ProducerConsumer, ir.Realize) and type(fast) is kind and \
            fast.name == slow.name:
        yield from _copied_parts(fast.body, slow.body)
    else:
        yield fast, slow


# ---- the partitioning walk ----------------------------------------------------------------
@dataclass(frozen=True)
class _Context:
    in_vector: bool = False
    known: frozenset = frozenset()     # keys of conditions enclosing branches found false
    counts: tuple = ()            # ((guard key, partitions), ...)
    partitions: int = 0
    lets: tuple = ()              # ((name, value), ...) in scope, outermost first
    ranges: tuple = ()            # ((loop var, min, max), ...) of the enclosing loops
    false_conds: tuple = ()       # ((condition, lets then in scope), ...) found false by
                                  # enclosing branches

    def else_of(self, cond) -> "_Context":
        """The context of the else branch of `if (cond)`."""
        return replace(self, known=_found_false(self.known, cond),
                       false_conds=self.false_conds + ((cond, len(self.lets)),))

    def count(self, key) -> int:
        return dict(self.counts).get(key, 0)


@dataclass
class _Found:
    keys: dict = field(default_factory=dict)      # guard key -> None, for each guard stripped
    cheap: bool = True        # every guard stripped is below loops of small constant extents
    safe: dict = field(default_factory=dict)      # safe key -> safe condition
    heavy: bool = False       # a safe condition is an extent test in a loop computing a Func
    strict: bool = False      # such extent tests are refused


class _Partitioner:
    def __init__(self, cold: dict, never: frozenset = frozenset()):
        self._produces = {}       # id(stmt) -> (stmt, whether it computes a Func)
        self.cold = cold          # cold_copies: else branches left as they are
        self.never = never        # names of loops never partitioned

    def walk(self, s, ctx: _Context):
        if isinstance(s, ir.For):
            return self._for(s, ctx)
        if isinstance(s, ir.IfThenElse):
            then_case = self.walk(s.then_case, ctx)
            else_case = s.else_case
            if s.else_case is not None and id(s) not in self.cold:
                else_case = self.walk(s.else_case, ctx.else_of(s.condition))
            if then_case is s.then_case and else_case is s.else_case:
                return s
            return ir.IfThenElse(s.condition, then_case, else_case)
        if isinstance(s, ir.Block):
            stmts = [self.walk(x, ctx) for x in s.stmts]
            return s if all(a is b for a, b in zip(stmts, s.stmts)) else ir.Block(tuple(stmts))
        if isinstance(s, ir.LetStmt):
            body = self.walk(s.body, replace(ctx, lets=ctx.lets + ((s.name, s.value),)))
            return s if body is s.body else replace(s, body=body)
        if isinstance(s, (ir.Allocate, ir.ProducerConsumer, ir.Realize)):
            body = self.walk(s.body, ctx)
            return s if body is s.body else replace(s, body=body)
        return s

    def _for(self, s: ir.For, ctx: _Context):
        vector = ctx.in_vector or s.kind == ir.ForKind.VECTORIZED
        last = _s(ir.Sub(ir.Add(s.min, s.extent), ir.index(1)))
        inner = replace(ctx, in_vector=vector, ranges=ctx.ranges + ((s.name, s.min, last),))
        body = None
        if not vector and not ir.is_const(s.extent, 1) and ctx.partitions < MAX_PER_PATH \
                and s.name not in self.never:
            body = self._partition(s, inner)
        if body is None:
            body = self.walk(s.body, inner)
        if body is s.body:
            return s
        return ir.For(s.name, s.min, s.extent, s.kind, body)

    def _partition(self, loop: ir.For, ctx: _Context):
        """The partitioned body of `loop` (walked further), or None."""
        found = _Found()
        fast = self._strip(loop.body, [], loop.name, ctx.known, ctx, found)
        if found.heavy and not any(ir.uses_var(c, loop.name) for c in found.safe.values()):
            found = _Found(strict=True)
            fast = self._strip(loop.body, [], loop.name, ctx.known, ctx, found)
        if not found.keys:
            return None
        safes = list(found.safe.values())
        if not safes:                       # the guards hold everywhere in the loop
            debug_print(1, f"pyhalide: partition loops: loop {loop.name}: "
                           f"{len(found.keys)} guard(s) always hold, removed")
            return self.walk(fast, ctx)
        cond = ir.conjunction(safes)
        if _key(cond) in ctx.known:
            return None             # an enclosing branch found this conjunction false
        if impossible(cond, ctx.lets, ctx.ranges, ctx.false_conds):
            debug_print(1, f"pyhalide: partition loops: loop {loop.name}: no copy without "
                           f"{len(found.keys)} guard(s): {ir.expr_to_str(cond)} never holds "
                           f"here")
            return None
        if found.cheap and any(self._computes(slow)
                               for _, slow in _copied_parts(fast, loop.body)):
            debug_print(1, f"pyhalide: partition loops: loop {loop.name}: no copy without "
                           f"{len(found.keys)} guard(s): tested at most {CHEAP_TESTS} times "
                           f"per iteration, the copy would compute a Func again")
            return None
        debug_print(1, f"pyhalide: partition loops: loop {loop.name}: a copy without "
                       f"{len(found.keys)} guard(s) when {ir.expr_to_str(cond)}")
        counts = dict(ctx.counts)
        for k in found.keys:
            counts[k] = counts.get(k, 0) + 1
        return self._branch(fast, loop.body, cond, ctx, tuple(sorted(counts.items())))

    def _branch(self, fast, slow, cond, ctx: _Context, counts):
        """`if (cond) fast else slow`, walked, around the smallest parts of
        the loop body where the two differ: statements the guards are not in
        (a Func computed in the loop, say) stay one copy. The branch never
        goes into an inner loop (it would be tested once per iteration)."""
        if fast is slow:
            return self.walk(slow, ctx)
        kind = type(slow)
        if kind is ir.Block and type(fast) is kind and len(fast.stmts) == len(slow.stmts):
            return ir.Block(tuple(self._branch(f, s, cond, ctx, counts)
                                  for f, s in zip(fast.stmts, slow.stmts)))
        if kind is ir.LetStmt and type(fast) is kind and fast.name == slow.name and \
                fast.value is slow.value:
            inner = replace(ctx, lets=ctx.lets + ((slow.name, slow.value),))
            return replace(slow, body=self._branch(fast.body, slow.body, cond, inner, counts))
        if kind in (ir.Allocate, ir.ProducerConsumer, ir.Realize) and type(fast) is kind and \
                fast.name == slow.name:
            return replace(slow, body=self._branch(fast.body, slow.body, cond, ctx, counts))
        n = ctx.partitions + 1
        fast_ctx = replace(ctx, partitions=n)
        slow_ctx = replace(ctx.else_of(cond), partitions=n, counts=counts)
        return ir.IfThenElse(cond, self.walk(fast, fast_ctx), self.walk(slow, slow_ctx))

    def _strip(self, s, frames: list, var: str, known: frozenset, ctx: _Context,
               found: _Found, nested: bool = False, heavy: bool = False):
        """s without the guards that are safe at the top of the body of loop
        `var` (frames: the loops and lets between that top and s, outermost
        first; known: keys of conditions found false on the way; nested:
        inside the production of a Func computed in the loop); `found`
        collects them."""
        def strip(x, frames=frames, known=known, nested=nested, heavy=heavy):
            return self._strip(x, frames, var, known, ctx, found, nested, heavy)

        if isinstance(s, ir.For):
            body = strip(s.body, frames + [_loop_frame(s)],
                         heavy=heavy or self._computes(s.body))
            return s if body is s.body else ir.For(s.name, s.min, s.extent, s.kind, body)
        if isinstance(s, ir.LetStmt):
            body = strip(s.body, frames + [("let", s.name, s.value)])
            return s if body is s.body else ir.LetStmt(s.name, s.value, body)
        if isinstance(s, ir.IfThenElse):
            if _eligible(s) and self._accept(s.condition, frames, var, known, ctx, found,
                                             nested, heavy):
                return strip(s.then_case)
            then_case = strip(s.then_case)
            else_case = None if s.else_case is None else \
                strip(s.else_case, known=_found_false(known, s.condition))
            if then_case is s.then_case and else_case is s.else_case:
                return s
            return ir.IfThenElse(s.condition, then_case, else_case)
        if isinstance(s, ir.Block):
            stmts = [strip(x) for x in s.stmts]
            return s if all(a is b for a, b in zip(stmts, s.stmts)) else ir.Block(tuple(stmts))
        if isinstance(s, (ir.Allocate, ir.ProducerConsumer, ir.Realize)):
            inner = isinstance(s, ir.ProducerConsumer) and s.is_producer
            body = strip(s.body, nested=nested or inner)
            return s if body is s.body else replace(s, body=body)
        return s

    def _computes(self, s) -> bool:
        """Whether Stmt s computes a Func (has a `produce`)."""
        hit = self._produces.get(id(s))
        if hit is not None and hit[0] is s:
            return hit[1]
        if isinstance(s, ir.ProducerConsumer) and s.is_producer:
            out = True
        elif isinstance(s, ir.Block):
            out = any(self._computes(x) for x in s.stmts)
        elif isinstance(s, ir.IfThenElse):
            out = self._computes(s.then_case) or \
                (s.else_case is not None and self._computes(s.else_case))
        elif isinstance(s, (ir.For, ir.LetStmt, ir.Allocate, ir.ProducerConsumer, ir.Realize)):
            out = self._computes(s.body)
        else:
            out = False
        self._produces[id(s)] = (s, out)
        return out

    def _accept(self, cond, frames, var: str, known: frozenset, ctx: _Context,
                found: _Found, nested: bool, heavy: bool) -> bool:
        key = _key(cond)
        if ctx.count(key) >= MAX_PER_GUARD:
            return False
        r = _safe_condition(cond, frames)
        if r is None:
            return False
        safe, depends = r
        if not depends:
            return False
        if not ir.is_const(safe):
            k = _key(safe)
            if nested and not ir.uses_var(safe, var):
                return False        # an extent test: the Func's own loops make it
            if heavy and not ir.uses_var(safe, var):
                if found.strict:
                    return False
                found.heavy = True
            if k in known or \
                    any(ir.uses_var(c, var) and coefficient(c, var) is None
                        for c in conjuncts(safe)):
                return False
            found.safe.setdefault(k, safe)
        found.keys[key] = None
        found.cheap = found.cheap and _tests(frames) <= CHEAP_TESTS
        return True
