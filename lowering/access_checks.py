"""Run-time checks for the accesses bounds inference could not place inside
their buffer (access_rules): data-dependent writes into outputs, gathers
from inputs, and accesses too wide to bound. Each becomes an AssertStmt
raising IndexError, naming the Func or input and the offending index, placed
just before the statement that performs the access. A run-time check of the
frontend (a read of a check image, pyhalide/checks.py) is asserted on its
own condition, and the statement then reads the image as 0
(check_image_reads.py).

A check inside a loop nest whose index has a loop-invariant bound (a narrow
data type's range, say) is also versioned: the nest runs without it when the
bound is inside the buffer, which one test before the nest decides."""
from __future__ import annotations

import itertools

from pyhalide import ir
from pyhalide.ir.check_images import CHECK_PREFIX, is_check_read

from . import access_rules as rules
from . import check_image_reads
from .context import LoweringContext, geometry, index_var, region_max, region_min
from .index_overflow import WholeRanges, fits_int32
from .interval import BoundsOf, Interval
from .simplify import simplify


class _AddChecks(ir.Mutator):
    memoize = False
    stmts_only = True       # checks are statements: expressions stay as they are

    def __init__(self, ctx: LoweringContext):
        super().__init__()
        self.ctx = ctx
        self.scope = {}
        self.loops = []           # enclosing loop names
        self.variant = set()      # lets defined inside those loops
        self.invariant = None     # loop-invariant sufficient conditions, or None
        self.drop_invariant = False
        # the scope's state: a new number whenever a name is bound, the
        # enclosing one again when the binding ends (the scope is then as it
        # was); _bounds_of's results are by (state, index)
        self.state = 0
        self._states = itertools.count(1)
        self.bounds_memo = {}
        self.structure = {}       # _may_need_check's answers by node, any scope
        self.ranges = WholeRanges()   # fits_int32's work, shared by every nest
        # check-image assertions: their image's creation number (checks.image_name),
        # and the read's arguments (the check images they read are asserted first)
        self.numbers = {}
        self.after = {}
        # the check-image assertions of the LetStmts (CSE's shared values)
        # around the Provide or Evaluate being reached, not yet made
        self.pending = None
        self.passed = check_image_reads.passer()

    # scope ---------------------------------------------------------------------
    def visit_For(self, s):
        if self.loops:
            return self._for(s)
        self.invariant = []
        checked = self._for(s)
        conds = list(dict.fromkeys(self.invariant))
        self.invariant = None
        if not conds:
            return checked
        self.drop_invariant = True
        unchecked = self._for(s)
        self.drop_invariant = False
        cond = ir.conjunction([c for _, c in sorted((ir.expr_to_str(c), c) for c in
                                                      _unique(conds))])
        return ir.IfThenElse(simplify(cond), unchecked, checked)

    def _for(self, s):
        self.loops.append(s.name)
        lo = s.min
        hi = simplify(ir.Sub(ir.Add(s.min, s.extent), ir.index(1)), assume_no_overflow=True)
        saved, state = self.scope.get(s.name), self.state
        # the loop's own bounds bound its variable only where bounds inference
        # can bound them too (it takes the loop's range from interval arithmetic
        # over them: a narrowing cast leaves it unbounded, and reads over it out
        # of the region it computes); else each read over it is checked
        bounds = BoundsOf(self.scope)
        exact = bounds(lo).lo is not None and bounds(hi).hi is not None
        self.scope[s.name] = Interval(lo, hi) if exact else Interval(None, None)
        self.state = next(self._states)
        body = self.mutate(s.body)
        self._restore(s.name, saved)
        self.state = state
        self.loops.pop()
        checks = _nest(self._checks_for([s.min, s.extent]))
        new = s if body is s.body else ir.For(s.name, s.min, s.extent, s.kind, body)
        return ir.block(*checks, new)

    def visit_LetStmt(self, s):
        checks, self.pending = self._let_checks(s, self._checks_for([s.value]))
        checks = _nest(checks)
        saved, state = self.scope.get(s.name), self.state
        self.scope[s.name] = _let_interval(s.name, s.value, self.scope, bool(self.loops))
        self.state = next(self._states)
        inside = bool(self.loops)
        if inside:
            self.variant.add(s.name)
        body = self.mutate(s.body)
        if inside:
            self.variant.discard(s.name)
        self._restore(s.name, saved)
        self.state = state
        value = self.passed(s.value)
        new = s if body is s.body and value is s.value else ir.LetStmt(s.name, value, body)
        return ir.block(*checks, new)

    def _restore(self, name, saved):
        if saved is None:
            self.scope.pop(name, None)
        else:
            self.scope[name] = saved

    def _let_checks(self, s, checks) -> tuple:
        """(checks made at LetStmt s, the pending checks for its body). In
        a chain of LetStmts ending in a Provide or Evaluate (lowering's
        shared subexpressions of one statement), check-image assertions wait
        for the statement (_in_order) as long as nothing else is asserted
        and s does not bind a name again (which a pending one may name);
        else everything pending is made here, in the order found."""
        pending = self.pending or []
        if not isinstance(_chain_end(s), (ir.Provide, ir.Evaluate)):
            return pending + checks, None
        if s.name in self.scope or any(id(c) not in self.numbers for _, c in checks):
            return pending + checks, []     # (a name bound again: pending checks may name it)
        return [], pending + checks

    def _in_order(self, checks) -> list:
        """The pending checks of the enclosing LetStmts, then `checks`; when
        all are check-image assertions, by their images' creation numbers:
        the frontend makes the checks of a statement in Python's order
        (operands left to right, inside out), which the LetStmts of shared
        subexpressions do not keep (`(3 // y) // (int(a[int(b[0])]) % (y +
        2))`: y's shared value put the IndexError first)."""
        out = (self.pending or []) + checks
        self.pending = None
        if len(out) < 2 or not all(id(c) in self.numbers for _, c in out):
            return out
        numbers = [self.numbers[id(c)] for _, c in out]
        if numbers == sorted(numbers):
            return out
        memo = {}
        return _by_number(out, numbers, [_numbers(list(self.after[id(c)]) + [x for x, _ in path],
                                                  memo) for path, c in out])

    # accesses --------------------------------------------------------------------
    def visit_Provide(self, s):
        kind = rules.kind_of(self.ctx, s.name)
        checks = [((), a) for a in self._access_checks(s.name, s.args, kind, "written")]
        checks += self._checks_for(list(s.args) + list(s.values))
        s = ir.Provide(s.name, tuple(map(self.passed, s.values)),
                       tuple(map(self.passed, s.args)))
        return ir.block(*_nest(_distinct(self._in_order(checks))), s)

    def visit_IfThenElse(self, s):
        checks = _nest(self._checks_for([s.condition]))
        then_case = self.mutate(s.then_case)
        else_case = self.mutate(s.else_case)
        cond = self.passed(s.condition)
        new = s if (then_case is s.then_case and else_case is s.else_case and
                    cond is s.condition) else ir.IfThenElse(cond, then_case, else_case)
        return ir.block(*checks, new)

    def visit_Evaluate(self, s):
        return ir.block(*_nest(self._in_order(self._checks_for([s.value]))), s)

    def _checks_for(self, exprs) -> list:
        """(path, check) of every read in `exprs`, inner reads first; a read
        inside lazy if_then_else branches is checked only when its path (the
        branches' conditions, see _reads_with_paths) is taken, and a read
        inside a Let's body within the path's LetStmts (the check may use
        the name)."""
        checked = _may_need_check(exprs, self.scope, self.structure)
        out, memo = [], {}
        for c, path in _reads_with_paths(exprs, checked):
            lets = tuple(item for item, taken in path if taken is _LET)
            key = (id(c), bool(path), tuple(map(id, lets)))
            if key not in memo:
                memo[key] = self._read_checks(c, lets, bool(path))
            out += [(path, a) for a in memo[key]]
        return out

    def _read_checks(self, c, lets, conditional) -> list:
        """The checks of read c inside the Let expressions `lets` (outermost
        first): their names in scope as visit_LetStmt has them."""
        saved = [(x.name, self.scope.get(x.name)) for x in lets]
        state = self.state
        for x in lets:
            self.scope[x.name] = _let_interval(x.name, x.value, self.scope, bool(self.loops))
            self.state = next(self._states)
        kind = rules.kind_of(self.ctx, c.name) if c.call_type == ir.FUNC else rules.IMAGE
        ok = check_image_reads.condition(c)
        if ok is not None:          # (its failing position is only reported)
            # the check reads inside ok come before it (post-order): 0 here
            ok = self.passed(ok)
            lo = geometry(c.name, "min", 0)
            hi = simplify(ir.Sub(ir.Add(lo, geometry(c.name, "extent", 0)), ir.index(1)))
            out = [ir.AssertStmt(ok, "IndexError", _CHECK_MESSAGE.format(c.name),
                                 (c.args[0], lo, hi))]
        else:
            out = self._access_checks(c.name, c.args, kind, "read", conditional)
        if _number(c) is not None:
            for a in out:
                self.numbers[id(a)] = _number(c)
                self.after[id(a)] = c.args
        for name, iv in reversed(saved):
            self._restore(name, iv)
        self.state = state
        return out

    def _bounds_of(self, a):
        """(interval, obligations) of index `a` in the current scope, as a
        BoundsOf of its own gives them (the same index is read at many
        places in one scope)."""
        key = (self.state, id(a))
        hit = self.bounds_memo.get(key)
        if hit is not None and hit[0] is a:
            return hit[1], hit[2]
        bounds = BoundsOf(self.scope)
        iv = bounds(a)
        self.bounds_memo[key] = (a, iv, bounds.obligations)
        return iv, bounds.obligations

    def _access_checks(self, name, args, kind, verb, conditional=False) -> list:
        # each dimension's obligations with those of the dimensions before
        # (the duplicates of earlier ones are dropped by fits_int32)
        obligations = []
        out = []
        for d, a in enumerate(args):
            if _bounded_by_construction(a, self.scope):
                continue
            iv, own = self._bounds_of(a)
            obligations = obligations + own
            if not rules.needs_check(kind, iv):
                continue
            if kind == rules.IMAGE:
                lo = geometry(name, "min", d)
                hi = simplify(ir.Sub(ir.Add(lo, geometry(name, "extent", d)), ir.index(1)))
                what = f"input buffer {name}"
                where = "its extent"
            else:
                # an rfactor intermediate's accesses are its Func's, at that Func's
                # dimensions (LoweringContext.region_owner)
                owner = self.ctx.region_owner(name)
                if d >= len(self.ctx.env[owner].args):
                    owner = name
                region = owner if self.ctx.is_output(owner) else name
                lo, hi = index_var(region_min(region, d)), index_var(region_max(region, d))
                what = f"Func {owner}"
                where = "its computed region"
            exact = self._hoistable(iv, obligations, conditional)
            if exact is not None:
                if self.drop_invariant:
                    continue
                if self.invariant is not None:
                    self.invariant.append(ir.And(exact, ir.And(ir.LE(lo, iv.lo),
                                                               ir.LE(iv.hi, hi))))
            cond = ir.And(ir.LE(lo, a), ir.LE(a, hi))
            out.append(ir.AssertStmt(
                cond, "IndexError",
                f"{what} is {verb} at index {{}} in dimension {d}, outside {where} [{{}}, {{}}]",
                (a, lo, hi)))
        return out


    def _hoistable(self, iv: Interval, obligations: list, conditional: bool):
        """For an unconditional access whose bounded interval does not depend on
        the loops here, the condition that the interval is exact (every int32
        end of it and of its parts, `obligations`, fits without wrapping), which
        must not depend on them either; else None. The nest may run unchecked
        where that condition holds and the interval is inside the buffer."""
        if conditional or not (self.loops and iv.bounded()):
            return None
        exact = fits_int32(obligations + [iv.lo, iv.hi], self.ranges)
        names = ir.free_vars([iv.lo, iv.hi, exact])
        if any(n in names for n in self.loops) or self.variant & set(names):
            return None
        return exact


_LAZY = "if_then_else"
_CHECK_MESSAGE = "input buffer {} is read at index {{}} in dimension 0, outside its extent [{{}}, {{}}]"


_AFFINE = (ir.Add, ir.Sub, ir.Min, ir.Max)


def _bounded_by_construction(e, scope, memo=None) -> bool:
    """Whether interval arithmetic surely bounds e without data: sums,
    min/max, selects, multiplication/division/modulo by constants and widening
    casts of bounded, data-free variables. Such an access never needs a
    check: bounds inference included it in its buffer's region (or the
    static input assertion covers it). `memo`: answers by node id, for a
    walk of a DAG."""
    if memo is None:
        memo = {}
    hit = memo.get(id(e))
    if hit is None:
        hit = memo[id(e)] = _bounded(e, scope, memo)
    return hit


def _bounded(e, scope, memo) -> bool:
    if isinstance(e, ir.Const):
        return True
    if isinstance(e, ir.Variable):
        iv = scope.get(e.name)
        return iv is None or (iv.bounded() and not iv.data_dependent())
    if isinstance(e, _AFFINE):
        return _bounded_by_construction(e.a, scope, memo) and _bounded_by_construction(e.b, scope, memo)
    if isinstance(e, (ir.Mul, ir.Div, ir.Mod)):
        return isinstance(e.b, ir.Const) and _bounded_by_construction(e.a, scope, memo)
    if isinstance(e, ir.Select):
        return (_bounded_by_construction(e.true_value, scope, memo)
                and _bounded_by_construction(e.false_value, scope, memo)
                and not ir.reads_memory(e.condition))
    if isinstance(e, ir.Cast):
        src, t = e.value.type, e.type
        # widening, or the same type: a narrowing cast may wrap (BoundsOf: unbounded)
        return t.is_integer() and src.is_integer() and t.bits >= 32 and \
            (src.bits < t.bits or (src.bits == t.bits and src.code == t.code)) and \
            _bounded_by_construction(e.value, scope, memo)
    return False


def _let_interval(name, value, scope, in_loop=True) -> Interval:
    """The interval a let-bound `name` of `value` has for the checks. Outside
    every loop, a value that is its own point (BoundsOf.is_own_point: bounds
    inference's region lets, whose values are large selects over the
    arguments' extents) is the point of its name, as BoundsOf would have it
    after bounding the whole value (bounded, no data) but without that work;
    inside a loop the name would be a loop-variant let for the hoisting of
    checks (_hoistable), so the value's own interval is kept there."""
    if value.type != ir.INDEX:
        return Interval(None, None)
    if _bounded_by_construction(value, scope):
        # bounded whenever its operands are, without data: keep it symbolic
        return Interval.point(ir.Variable(ir.INDEX, name))
    bounds = BoundsOf(scope)
    if not in_loop and bounds.is_own_point(value):
        return Interval.point(ir.Variable(ir.INDEX, name))
    return bounds(value)


def _may_need_check(exprs, scope, structure: dict) -> set:
    """The ids of the nodes of `exprs` below which a read may need a check:
    one with an index not bounded by construction (a name bound by a Let
    inside `exprs` counted as unbounded). `structure`: the names Lets bind
    below a node and whether a Func or image read is below it, by node id
    (kept by the caller across calls)."""
    lets = {}
    for x in exprs:
        if isinstance(x, ir.IRNode):
            for name in _below(x, structure)[0]:
                lets[name] = Interval(None, None)
    inner = {**scope, **lets}
    out, done, memo = set(), set(), {}

    def walk(e):
        if id(e) in done:
            return id(e) in out
        done.add(id(e))
        if not _below(e, structure)[1]:
            return False
        hit = False
        for child in ir.children(e):
            hit = walk(child) or hit
        if isinstance(e, ir.Call) and e.call_type in (ir.FUNC, ir.IMAGE) and \
                not all(_bounded_by_construction(a, inner, memo) for a in e.args):
            hit = True
        if hit:
            out.add(id(e))
        return hit

    for x in exprs:
        if isinstance(x, ir.IRNode):
            walk(x)
    walk = None         # (its cell referred to walk: a cycle only the collector frees)
    return out


_NO_NAMES = frozenset()


def _below(e, structure: dict) -> tuple:
    """(names Lets bind below e or at it, whether a Func or image read is
    below e or is e), memoized in `structure` by node id."""
    hit = structure.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    names, reads = _NO_NAMES, isinstance(e, ir.Call) and e.call_type in (ir.FUNC, ir.IMAGE)
    for child in ir.children(e):
        n, r = _below(child, structure)
        if n:
            names = names | n
        reads = reads or r
    if isinstance(e, ir.Let):
        names = names | {e.name}
    out = (names, reads)
    structure[id(e)] = (e, out)
    return out


_LET = "let"            # the `taken` of a path item that is a Let expression


def _reads_with_paths(exprs, wanted=None) -> list:
    """(Call, path) for each Func/image read, in post-order (a read's index
    reads come before it), each (read, path) once; the path is what must hold
    for a read inside lazy if_then_else branches to happen, and the Let
    expressions whose bodies hold it: a tuple of (condition, taken) and
    (Let, _LET) items, outermost first, () for an unconditional read outside
    any Let. With `wanted` (ids of nodes), only the reads below those nodes.

    A DAG's shared subexpression under several paths is visited once per
    distinct path (the path's items compared by identity), except under a
    path that extends one it was visited under: its reads' checks came
    earlier there and run whenever the longer path holds. (Each level of
    `if c: s -= x[...]` on a running value s holds the previous s in its
    condition and both branches: by paths alone, 3**levels visits.)"""
    out, seen = [], set()
    keys = {}           # (key of a path, id of an item, taken) -> key of the longer path

    def walk(e, path, pkeys, names):
        # pkeys: a number per distinct path, of each prefix of the path whose
        # names mean what they mean here (the whole path's last); names: the
        # names the path's Lets bind
        if not isinstance(e, ir.IRNode) or (wanted is not None and id(e) not in wanted):
            return
        if any((id(e), k) in seen for k in pkeys):
            return
        seen.add((id(e), pkeys[-1]))
        if isinstance(e, ir.Call) and e.call_type == ir.INTRINSIC and e.name == _LAZY:
            c, a, b = e.args
            walk(c, path, pkeys, names)
            for x, taken in ((a, True), (b, False)):
                sub = keys.setdefault((pkeys[-1], id(c), taken), len(keys) + 1)
                walk(x, path + ((c, taken),), pkeys + (sub,), names)
            return
        if isinstance(e, ir.Let):
            walk(e.value, path, pkeys, names)
            sub = keys.setdefault((pkeys[-1], id(e), _LET), len(keys) + 1)
            # a name bound again: what was checked outside read the outer binding
            inner = (sub,) if e.name in names else pkeys + (sub,)
            walk(e.body, path + ((e, _LET),), inner, names | {e.name})
            return
        for child in ir.children(e):
            walk(child, path, pkeys, names)
        if isinstance(e, ir.Call) and e.call_type in (ir.FUNC, ir.IMAGE):
            out.append((e, path))

    for x in exprs:
        walk(x, (), (0,), frozenset())
    walk = None         # (its cell referred to walk: a cycle only the collector frees)
    return out


def _number(c):
    """The creation number of check image read c, or None (not a check read)."""
    if not is_check_read(c):
        return None
    number = c.name[len(CHECK_PREFIX):]
    return int(number) if number.isdigit() else None


def _numbers(exprs, memo: dict) -> frozenset:
    """The creation numbers of the check images `exprs` read (a Let: its
    value); memo: id of a node -> (node, its numbers), shared by calls."""
    out = set()
    for x in exprs:
        out |= _node_numbers(x.value if isinstance(x, ir.Let) else x, memo)
    return frozenset(out)


def _node_numbers(root, memo: dict) -> frozenset:
    stack = [(root, False)]
    while stack:
        e, expanded = stack.pop()
        if not isinstance(e, ir.IRNode) or id(e) in memo:
            continue
        kids = [k for k in ir.children(e) if isinstance(k, ir.IRNode)]
        if not expanded:
            stack.append((e, True))
            stack.extend((k, False) for k in kids if id(k) not in memo)
            continue
        own = frozenset() if _number(e) is None else frozenset([_number(e)])
        memo[id(e)] = (e, own.union(*(memo[id(k)][1] for k in kids)))
    return memo[id(root)][1] if isinstance(root, ir.IRNode) else frozenset()


def _by_number(checks, numbers, after) -> list:
    """`checks` by creation number, each after the checks of the images it
    reads (`after`: numbers; the order found is one that keeps them)."""
    out, done, left = [], set(), list(range(len(checks)))
    present = set(numbers)
    while left:
        ready = [k for k in left if not ((after[k] & present) - done - {numbers[k]})]
        k = min(ready, key=lambda k: (numbers[k], k)) if ready else left[0]
        left.remove(k)
        out.append(checks[k])
        if not any(numbers[j] == numbers[k] for j in left):
            done.add(numbers[k])
    return out


def _chain_end(s):
    """The statement a chain of LetStmts from s binds its names for."""
    while isinstance(s, ir.LetStmt):
        s = s.body
    return s


def _path_key(path) -> tuple:
    """A path compared by the identity of its conditions."""
    return tuple((id(c), taken) for c, taken in path)


def _nest(checks: list) -> list:
    """Statements performing (path, check) pairs in order: a check under a
    path runs inside IfThenElse statements on the path's conditions (and
    LetStmts of its Let expressions), and
    consecutive checks share the enclosing branches of their common path
    prefix (each condition is evaluated once there, not once per check); a
    run under the condition followed by a run under its negation is one
    IfThenElse with both cases."""
    out = []
    i = 0
    while i < len(checks):
        path, check = checks[i]
        if not path:
            out.append(check)
            i += 1
            continue
        cond, taken = path[0]
        j = _run_end(checks, i, cond, taken)
        first = ir.block(*_nest([(p[1:], c) for p, c in checks[i:j]]))
        if taken is _LET:
            out.append(ir.LetStmt(cond.name, cond.value, first))
            i = j
            continue
        k = _run_end(checks, j, cond, not taken)
        second = ir.block(*_nest([(p[1:], c) for p, c in checks[j:k]])) if k > j else None
        then_case, else_case = (first, second) if taken else (second, first)
        if then_case is None:
            out.append(ir.IfThenElse(ir.Not(cond), else_case, None))
        else:
            out.append(ir.IfThenElse(cond, then_case, else_case))
        i = k
    return out


def _run_end(checks, i, cond, taken) -> int:
    """The end of the run of checks from i whose path starts with (cond, taken)."""
    while i < len(checks) and checks[i][0] and checks[i][0][0][0] is cond and \
            checks[i][0][0][1] == taken:
        i += 1
    return i


def _unique(conds: list) -> list:
    seen, out = set(), []
    for c in conds:
        key = ir.expr_to_str(c)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _distinct(checks: list) -> list:
    """Drop (path, check) pairs whose check repeats an earlier one's condition
    under the same path (a read-modify-write of one location is checked once)."""
    seen, out = set(), []
    for path, c in checks:
        key = (_path_key(path), ir.expr_to_str(c.condition))
        if key not in seen:
            seen.add(key)
            out.append((path, c))
    return out


def add_access_checks(stmt: ir.Stmt, ctx: LoweringContext) -> ir.Stmt:
    return _AddChecks(ctx).mutate(stmt)
