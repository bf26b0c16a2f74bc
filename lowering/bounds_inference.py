"""Bounds inference by interval arithmetic.

For every Func with storage, consumers first:
- its required region (`f.rD.min/max/extent`: what its stages loop over) is
  the union of the intervals of every access that extends it (access_rules):
  its consumers' calls, evaluated over the consumers' loops inside its compute
  level (loops outside that level are fixed), its updates' writes and
  self-reads, and for an output the region asked for; an access is bounded
  under the RDom predicates and lazy-select conditions it is evaluated
  under (_StageBounds);
- its computed region (`f.bD.min/max/extent`: its allocation) adds what its
  stages' tail strategies compute beyond that (stage footprints).
The definitions become LetStmts at the top of the Func's compute level (the
pipeline's top for compute_root), consumers' before producers'. Inputs get
assertions that they cover the region read from them statically (ValueError
before any computation)."""
from __future__ import annotations

import functools

from pyhalide import ir
from pyhalide.ir.ops import substitute_exprs

from . import access_rules as rules
from .cancelling_bounds import rvar_ranges, tightened_bounds
from .clamp_chains import collapse_clamps
from .context import (
    LoweringContext,
    buffer_name,
    compute_level,
    geometry,
    index_var,
    region_extent,
    region_max,
    region_min,
    required_extent,
    required_max,
    required_min,
    store_level,
)
from .index_overflow import WholeRanges, overflow_asserts
from .interval import BoundsOf, Interval, union
from .loop_synthesis import (
    level_loops,
    level_stage,
    loop_var_of,
    loops_of_stage,
    partition_test_encloses,
    pure_positions,
)
from .monotonic import window_span
from .simplify import simplify
from .sliding_symbols import SymbolTrends
from .stage_loops import point_guards, var_intervals


def _s(e):
    return simplify(e, assume_no_overflow=True)


# A resolved bound with more nodes than this (counted as a tree) is named by a
# let at the level it is resolved for. Each nested compute level's bounds use
# the next level's bounds several times (a min, a max, an extent), so inline
# they grow exponentially with the nesting depth.
_NAME_ABOVE = 100


def _tree_size(e, memo: dict) -> int:
    hit = memo.get(id(e))
    if hit is None:
        hit = 1 + sum(_tree_size(c, memo) for c in ir.children(e))
        memo[id(e)] = hit
    return hit


def _stage_exprs(d: ir.Definition) -> list:
    """The expressions stage d evaluates: also its exit (an outer exit's
    test reads what the values no longer read, lowering/loop_exit.py)."""
    return list(d.args) + list(d.values) + list(d.predicates) + \
        ([d.exit] if d.exit is not None else [])


def _runs(d: ir.Definition, scope=None):
    """The condition under which a stage runs at all: each RVar's extent is
    positive, and (given the stage's `scope` of variable intervals) each
    pure Var's interval is not empty (None: provably always). A Python loop
    over an empty range touches nothing, so the accesses of a stage that may
    not run extend a region only under this condition."""
    conds = [ir.GT(rv.extent, ir.index(0)) for rv in d.schedule.rvars]
    for a in d.args if scope is not None else ():
        iv = scope.get(a.name) if isinstance(a, ir.Variable) else None
        if iv is not None and iv.lo is not None and iv.hi is not None:
            conds.append(ir.LE(iv.lo, iv.hi))
    conds = [c for c in map(_s, conds) if not (isinstance(c, ir.Const) and c.value)]
    return ir.conjunction(conds) if conds else None


def _oblige_where_run(obligations: list, first: int, d: ir.Definition) -> None:
    """The int32 obligations of stage d's accesses (from index `first`)
    hold only where d runs at all (its RVars' extents are positive: _runs):
    a loop nest that runs no iteration computes no index (`for i in
    range(N): for j in range(i, max(i, hi - i))` with N = 0 and hi near
    2**31 raised OverflowError). 0 where it does not."""
    cond = _runs(d)
    if cond is None:
        return
    for k in range(first, len(obligations)):
        e = obligations[k]
        obligations[k] = ir.Select(cond, e, ir.Const(e.type, 0))


class _Accumulator:
    """The union, per dimension, of the intervals that extend a region. An
    interval added under a condition (its stage may not run) counts only
    where the condition holds; `nonempty[d]` is the condition that anything
    was added to dimension d (None: surely)."""

    def __init__(self, dims: int):
        self.dims = [None] * dims
        self.nonempty = [None] * dims
        self.extended = False       # anything beyond the output box / pure Vars
        self.obligations = []       # int32 endpoints the intervals need to fit (BoundsOf)

    def add(self, d: int, iv: Interval, extends_output: bool = True, when=None):
        self.extended = self.extended or extends_output
        old, had = self.dims[d], self.nonempty[d]
        if old is None:
            self.dims[d], self.nonempty[d] = iv, when
            return
        both = union(old, iv)
        if (when is None and had is None) or (when is not None and had is not None and
                                              ir.equal(when, had)):
            self.dims[d] = both         # (under the same condition: no select)
            return
        self.dims[d] = _select_interval(when, _select_interval(had, both, iv), old)
        self.nonempty[d] = None if when is None or had is None else _s(ir.Or(had, when))

    def region(self, d: int):
        """Dimension d's interval, empty (hi = lo - 1) where nothing was added."""
        iv, when = self.dims[d], self.nonempty[d]
        if iv is None or when is None or iv.hi is None or iv.lo is None:
            return iv
        return Interval(iv.lo, _s(ir.Select(when, iv.hi, ir.Sub(iv.lo, ir.index(1)))),
                        iv.lo_data, iv.hi_data)


def _select_interval(cond, a: Interval, b: Interval) -> Interval:
    """a where cond holds, else b (a when cond is None)."""
    if cond is None:
        return a

    def pick(x, y):
        return None if x is None or y is None else _s(ir.Select(cond, x, y))
    return Interval(pick(a.lo, b.lo), pick(a.hi, b.hi), a.lo_data or b.lo_data,
                    a.hi_data or b.hi_data)


class _Bounds:
    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx
        self.done = []                 # Funcs bounded so far (consumers first)
        self.defs = {}                 # symbol -> defining Expr
        self.symbols = {}              # symbol -> ("let", Expr, level key) or ("loop", ...)
        self.level_of = {}             # Func -> its compute level
        self.lets = {}                 # level key -> [(name, Expr)]
        self.named = {}                # (level key, base name) -> [(Variable, Expr)]
        self.calls = {}                # id(Definition) -> (Definition, its Calls in order)
        # (level key, symbol) -> (Interval, names it found unregistered): symbols
        # resolved at a level, for every later _Resolver at that level (_Resolver.get)
        self.resolved = {}
        self.trends = SymbolTrends(self._symbol_value)   # (sliding windows)
        self.ranges = WholeRanges()    # overflow_asserts' work, shared by every check

    def _symbol_value(self, name: str):
        """The value of a let symbol where it is defined (None: not a let)."""
        if name in self.defs:
            return self.defs[name]
        kind = self.symbols.get(name)
        return kind[1] if kind is not None and kind[0] == "let" else None

    def _calls(self, d: ir.Definition) -> list:
        """The Calls in stage `d`'s expressions (find_calls order), found
        once per stage: every Func's bounds look through every consumer's."""
        hit = self.calls.get(id(d))
        if hit is None or hit[0] is not d:
            hit = self.calls[id(d)] = (d, ir.find_calls(_stage_exprs(d)))
        return hit[1]

    # -- scopes -------------------------------------------------------------------------
    def _level_key(self, level: ir.LoopLevel):
        if level.is_root():
            return "root"
        return (level.func, level.var, level_stage(self.ctx, level))

    def _stage_scope(self, cname: str, index: int, level: ir.LoopLevel,
                     clamped: bool = False) -> dict:
        """Intervals of consumer stage variables (by their user names), seen
        from `level`: loops of that stage outside the level are fixed. A
        variable the fixed loops determine, whose guard loop synthesis tests
        at the level, is the point itself (unless `clamped`)."""
        cfn = self.ctx.env[cname]
        d = cfn.definitions()[index]
        sl = loops_of_stage(self.ctx, cfn, index)
        outside = 0
        unclamped = frozenset()
        if not level.is_root() and level.func == cname and \
                level_stage(self.ctx, level) == index:
            outside = 1 + level_loops(self.ctx, level)[1]
            if not clamped:
                unclamped = frozenset(v for v, _ in point_guards(sl, outside))
        symbols = self._symbols_at(level, cname)
        scope = var_intervals(sl, outside, symbols, unclamped)
        if outside and not clamped:
            _whole_tiles(sl, outside, symbols, unclamped, scope)
        prefix = f"{cname}.s{index}."
        named = scope
        for name in list(scope):
            if name.startswith(prefix):
                user = name[len(prefix):]
                if user in {rv.name for rv in d.schedule.rvars} or any(
                        isinstance(a, ir.Variable) and a.name == user for a in d.args):
                    named[user] = scope[name]
        rules.bind_expression_lets(_stage_exprs(d), named)
        return named

    def _symbols_at(self, level: ir.LoopLevel, consumer: str = "") -> "_Resolver":
        """A scope giving intervals, over the loops that run inside `level`,
        for every symbol defined deeper than `level` (region lets of Funcs
        computed inside loops, and those loops' variables); symbols visible
        at `level` stay symbolic."""
        return _Resolver(self, level)

    def chain(self, level: ir.LoopLevel) -> list:
        """The loop levels enclosing `level`, innermost first (root excluded)."""
        out = []
        while not level.is_root():
            out.append(level)
            level = self.level_of.get(level.func, ir.LoopLevel.root())
        return out

    def visible(self, name: str, level: ir.LoopLevel) -> bool:
        kind = self.symbols.get(name)
        if kind is None:
            return True
        if kind[0] == "let":
            key = kind[2]
            return key == "root" or key in [self._level_key(x) for x in self.chain(level)]
        _, _, _, g, stage, index = kind
        for x in self.chain(level):
            if x.func == g:
                sl, k = self._compute_loop(x)
                return level_stage(self.ctx, x) == stage and index <= k
        return False

    def register_loops(self, name: str):
        """Record the loop variables of Func `name`'s stages, which Funcs
        computed inside them may refer to."""
        fn = self.ctx.env[name]
        for stage in range(len(fn.definitions())):
            sl = loops_of_stage(self.ctx, fn, stage)
            for k, lp in enumerate(sl.loops):
                self.symbols[lp.var] = ("loop", lp.min, lp.max, name, stage, k)
            for lname, value in sl.lets:
                self.symbols.setdefault(lname, ("let", value, ("lets", name)))

    # -- one Func ---------------------------------------------------------------------
    def _consumer_accesses(self, name: str, acc: _Accumulator, level: ir.LoopLevel,
                           clamped: bool = False):
        kind = rules.kind_of(self.ctx, name)
        for cname in self.done:
            cfn = self.ctx.env[cname]
            for index, d in enumerate(cfn.definitions()):
                calls = [c for c in self._calls(d)
                         if c.call_type == ir.FUNC and c.name == name]
                if not calls:
                    continue
                self._check_visibility(name, level, cname, index)
                scope = self._stage_scope(cname, index, level, clamped)
                first = len(acc.obligations)
                bounds = _StageBounds(d, scope, acc.obligations, self._calls(d))
                runs = _both(_runs(d), bounds.nonempty())
                # (a consumer over an empty box reads nothing, however the
                # clamps of its reads turn the empty interval into a point:
                # such a read counts only where the box has a point; an
                # affine one maps an empty box to an empty interval. Only
                # for a producer computed at the root: inside a loop the
                # condition would hide the region's monotone form from
                # sliding_window)
                boxed = _both(_runs(d, scope), bounds.nonempty()) if level.is_root() else None
                for c in calls:
                    for i, a in enumerate(c.args):
                        _add_access(acc, kind, bounds, c, i, a, runs, boxed)
                _oblige_where_run(acc.obligations, first, d)

    def _check_visibility(self, name, level, cname, index):
        if level.is_root():
            return
        clevel = self.level_of[cname]
        cfn = self.ctx.env[cname]
        if cname == level.func:
            stage = level_stage(self.ctx, level)
            if index != stage:
                which = "the last stage" if stage == len(cfn.definitions()) - 1 \
                    else f"stage {stage}"
                raise ir.CompileError(
                    f"Func {name} is computed at {level.func}.{level.var} ({which} of "
                    f"{level.func}), but stage {index} of {cname} also uses it; compute it at "
                    f"root or at a loop that contains every use")
            return
        if not self._inside(clevel, level):
            raise ir.CompileError(
                f"Func {name} is computed at {level.func}.{level.var}, but {cname} (computed "
                f"at {clevel}) uses it outside that loop; compute {name} at root or at a "
                f"loop that contains every use")

    def _inside(self, clevel: ir.LoopLevel, level: ir.LoopLevel) -> bool:
        """Whether compute level `clevel` runs inside loop `level`: it, or a
        level enclosing it, is `level`'s loop or a loop of the same Func
        nested in it (the region at `level` then spans those inner loops)."""
        for x in self.chain(clevel):
            if x.func == level.func:
                if level_stage(self.ctx, x) != level_stage(self.ctx, level):
                    return False
                _, k = self._compute_loop(level)
                return self._compute_loop(x)[1] >= k
        return False

    def _own_accesses(self, fn: ir.Function, acc: _Accumulator, level: ir.LoopLevel):
        kind = rules.kind_of(self.ctx, fn.name)
        owner = self.ctx.region_owner(fn.name)
        if owner != fn.name:
            # an rfactor intermediate holds its Func's region (over every iteration
            # of the loops inside `level`) in that Func's dimensions: every write the
            # Func would take lands in it, wherever the intermediate is computed
            # (only dimensions some update writes at a computed position: where
            # every write is at the stage's own pure variable, the region the
            # consumers need holds them all)
            scattered = {i for u in fn.updates for i, a in enumerate(u.args)
                         if not isinstance(a, ir.Variable)}
            bounds = BoundsOf(self._symbols_at(level), acc.obligations)
            for i in range(len(self.ctx.env[owner].args)):
                if i not in scattered:
                    continue
                lo = bounds(index_var(region_min(owner, i))).lo
                hi = bounds(index_var(region_max(owner, i))).hi
                if lo is not None and hi is not None:
                    acc.add(i, Interval(lo, hi))
        for index, d in enumerate(fn.definitions()):
            if index == 0:
                continue
            scope = {}
            own = pure_positions(d)
            for name, pos in own.items():
                if acc.dims[pos] is not None:
                    scope[name] = acc.dims[pos]
            for rv in d.schedule.rvars:
                scope[rv.name] = Interval(rv.min, _s(ir.Sub(ir.Add(rv.min, rv.extent), ir.index(1))))
            first = len(acc.obligations)
            bounds = _StageBounds(d, scope, acc.obligations, self._calls(d))
            accesses = [(None, d.args)] + [
                (c, c.args) for c in ir.find_calls(list(d.values) + list(d.predicates))
                if c.call_type == ir.FUNC and c.name == fn.name]
            runs = _both(_runs(d), bounds.nonempty())
            for c, args in accesses:
                for i, (a, lhs) in enumerate(zip(args, d.args)):
                    if isinstance(lhs, ir.Variable) and own.get(lhs.name) == i and \
                            ir.equal(a, lhs):
                        continue
                    _add_access(acc, kind, bounds, c, i, a, runs)
            _oblige_where_run(acc.obligations, first, d)

    def _footprints(self, fn: ir.Function, dims: int) -> list:
        """Per dimension, the widest interval any stage computes."""
        out = [None] * dims
        for index, d in enumerate(fn.definitions()):
            sl = loops_of_stage(self.ctx, fn, index)
            for name, pos in pure_positions(d).items():
                if name in sl.footprint:
                    lo, hi = sl.footprint[name]
                    iv = Interval(lo, hi)
                    out[pos] = iv if out[pos] is None else union(out[pos], iv)
        return out

    def _required(self, fn: ir.Function, level: ir.LoopLevel, clamped: bool) -> _Accumulator:
        dims = fn.dimensions()
        acc = _Accumulator(dims)
        if self.ctx.is_output(fn.name):
            buf = buffer_name(fn.name, 0, len(fn.output_types))
            for i in range(dims):
                lo = geometry(buf, "min", i)
                hi = _s(ir.Sub(ir.Add(lo, geometry(buf, "extent", i)), ir.index(1)))
                acc.add(i, Interval(lo, hi), extends_output=False)
        self._consumer_accesses(fn.name, acc, level, clamped)
        self._own_accesses(fn, acc, level)
        return acc

    def _intervals(self, name: str, acc: _Accumulator) -> list:
        out = []
        for i in range(len(acc.dims)):
            iv = acc.region(i)
            if iv is None:
                raise ir.CompileError(
                    f"cannot bound the region of Func {name} in dimension {i}: it is only "
                    f"accessed at data-dependent positions of a type wider than 16 bits; "
                    f"clamp the index (ph.clamp) or cast it to a narrow type")
            out.append(Interval(_s(iv.lo), _s(iv.hi)))
        return out

    def bound(self, name: str):
        fn = self.ctx.env[name]
        dims = fn.dimensions()
        level = compute_level(self.ctx, name)
        self.level_of[name] = level
        self.register_loops(name)
        store = store_level(self.ctx, name)
        # computed and stored at a loop: the consumer's guards of points are
        # tested there (loop synthesis), so the region has the points
        # themselves; outer levels resolve its symbols through the clamped
        # region, which holds wherever the Func is computed
        points = not level.is_root() and store == level
        acc, acc_acc = self._required(fn, level, clamped=not points), None
        if points:
            acc_acc = self._required(fn, level, clamped=True)
        lets = self.lets.setdefault(self._level_key(level), [])
        required = self._intervals(name, acc)
        resolve = required if acc_acc is None else self._intervals(name, acc_acc)
        if fn.schedule.bounds:
            given = self._given_bounds(fn, required, lets)
            resolve = self._given_bounds(fn, resolve, None) if resolve is not required else given
            required = given
            if self.ctx.is_output(name):
                acc.extended = True      # the region may exceed the output's box
        foot = self._footprints(fn, dims)
        slid = self._slide(fn, level, store, required, fold=not any(foot))
        for i, (iv, lo, r) in enumerate(zip(required, slid, resolve)):
            self._let(lets, required_min(name, i), lo, r.lo)
            self._let(lets, required_max(name, i), iv.hi, r.hi)
            self._let(lets, required_extent(name, i), self._extent(lo, iv.hi),
                      self._extent(r.lo, r.hi))
        ends = [x for iv, lo in zip(required, slid) for x in (lo, iv.hi, _exact_extent(lo, iv.hi))]
        self._check(lets, acc.obligations + ([] if acc_acc is None else acc_acc.obligations)
                    + ends, name)
        grown = any(f is not None for f in foot)
        if store != level:
            # the storage covers every iteration between the store and compute levels
            scope = self._between(store, level)
            regions = [self._over(scope, name, i, iv, foot[i], slid[i])
                       for i, iv in enumerate(required)]
            store_lets = self.lets.setdefault(self._level_key(store), [])
        else:
            regions = []
            for i in range(dims):
                lo, hi = index_var(required_min(name, i)), index_var(required_max(name, i))
                if foot[i] is not None:
                    u = union(Interval(lo, hi), foot[i])
                    lo, hi = _s(u.lo), _s(u.hi)
                regions.append(Interval(lo, hi))
            store_lets = lets
        for i, iv in enumerate(regions):
            self._let(store_lets, region_min(name, i), iv.lo)
            self._let(store_lets, region_max(name, i), iv.hi)
            self._let(store_lets, region_extent(name, i), self._extent(iv.lo, iv.hi))
        # a region that is the required one (stored where computed, no footprint
        # beyond it) has the ends and extent checked above
        grown_regions = [iv for iv, f in zip(regions, foot) if store != level or f is not None]
        self._check(store_lets, [x for iv in grown_regions
                                 for x in (iv.lo, iv.hi, _exact_extent(iv.lo, iv.hi))], name)
        if self.ctx.is_output(name):
            self.ctx.in_place[name] = not (acc.extended or grown)
        self.done.append(name)

    def _given_bounds(self, fn: ir.Function, required: list, lets) -> list:
        """The region after Func.bound, bound_extent, align_bounds and
        align_extent (fn.schedule.bounds, in order, as Halide applies them).
        A bound's region must hold the one needed: a ValueError at run time
        with Halide's message (asserts appended to `lets`, if given)."""
        out = list(required)
        for b in fn.schedule.bounds:
            i = fn.args.index(b.var)
            lo, hi = out[i].lo, out[i].hi
            if b.extent is not None:
                lo = lo if b.min is None else b.min
                hi = _s(ir.Sub(ir.Add(lo, b.extent), ir.index(1)))
                need = required[i]
                ok = ir.Or(ir.LT(need.hi, need.lo), ir.And(ir.LE(lo, need.lo), ir.LE(need.hi, hi)))
                self._assert(lets, ok, f"Bounds given for {fn.name} in {b.var} (from {{}} to {{}}) "
                             f"do not cover required region (from {{}} to {{}})",
                             (lo, hi, need.lo, need.hi))
            if b.modulus is not None:
                m, one = b.modulus, ir.index(1)
                self._assert(lets, ir.GT(m, ir.index(0)), f"the alignment modulus of {fn.name} "
                             f"in {b.var} must be positive, not {{}}", (m,))
                if b.remainder is not None:      # (integer division rounds down, as Halide's)
                    lo = ir.Add(ir.Mul(ir.Div(ir.Sub(lo, b.remainder), m), m), b.remainder)
                    end = ir.Sub(ir.Add(hi, one), b.remainder)
                    end = ir.Mul(ir.Div(ir.Add(end, ir.Sub(m, one)), m), m)
                    hi = ir.Sub(ir.Add(end, b.remainder), one)
                else:
                    ext = ir.Add(ir.Sub(hi, lo), one)
                    ext = ir.Mul(ir.Div(ir.Add(ext, ir.Sub(m, one)), m), m)
                    hi = ir.Sub(ir.Add(lo, ext), one)
            out[i] = Interval(_s(lo), _s(hi))
        return out

    @staticmethod
    def _assert(lets, ok, message: str, args) -> None:
        ok = _s(ok)
        if lets is not None and not (isinstance(ok, ir.Const) and ok.value):
            lets.append((None, ir.AssertStmt(ok, "ValueError", message, args)))

    # -- store levels and sliding windows ---------------------------------------------------
    def _compute_loop(self, level: ir.LoopLevel):
        """(StageLoops of the level's stage of the consumer, index of the level's loop)."""
        return level_loops(self.ctx, level)

    def _between(self, store: ir.LoopLevel, compute: ir.LoopLevel) -> dict:
        """Intervals of the consumer's loop variables that vary between the
        store and the compute level (loops outside the store level fixed)."""
        sl, _ = self._compute_loop(compute)
        outside = 0
        if not store.is_root() and store.func == compute.func:
            outside = self._compute_loop(store)[1] + 1
        # stored at a loop of a Func the consumer is computed inside: all the
        # consumer's loops vary; its region symbols resolve at the store level
        return var_intervals(sl, outside, self._symbols_at(store))

    def _over(self, scope, name, d: int, iv: Interval, foot, start) -> Interval:
        """The union over the varying loops of a required interval and the
        stage footprint (expressed in the required symbols, whose min is
        `start`: the slid min where a sliding window moved it, from which a
        RoundUp split computes its whole last split)."""
        bounds = BoundsOf(scope)
        lo, hi = bounds(iv.lo).lo, bounds(iv.hi).hi
        if foot is not None:
            sub = {required_min(name, d): start, required_max(name, d): iv.hi,
                   required_extent(name, d): self._extent(start, iv.hi)}
            flo = bounds(_s(ir.substitute(foot.lo, sub))).lo
            fhi = bounds(_s(ir.substitute(foot.hi, sub))).hi
            lo, hi = _s(ir.Min(lo, flo)), _s(ir.Max(hi, fhi))
        return Interval(lo, hi)

    def _slide(self, fn: ir.Function, compute, store, required: list, fold: bool) -> list:
        """The min of each required interval, moved past what earlier
        iterations computed when the Func is stored outside serial loops of
        its consumer and computed inside them (sliding window, as Halide's):
        the compute loop slides a dimension its interval grows with; each
        loop further out, up to the store level, slides a dimension whose
        interval grows with that loop alone (no other of these loops), so
        every point is computed at the first iteration that needs it (the
        region computed is the box of the slid intervals). The storage then
        folds to the window of the dimension slid by the outermost such loop,
        unless a stage computes beyond its region (RoundUp), whose extra
        points would overwrite live ones."""
        mins = [iv.lo for iv in required]
        if compute == store or compute.is_root() or fn.updates:
            return mins
        sl, k = self._compute_loop(compute)
        first = 0
        if not store.is_root() and store.func == compute.func:
            first = self._compute_loop(store)[1] + 1
        between = [lp.var for lp in sl.loops[first:k + 1]]
        trends = self.trends
        lets = self.lets.setdefault(self._level_key(compute), [])

        def add_let(name, value):
            self._let(lets, name, _s(value))
        window = None
        for j in range(k, first - 1, -1):
            loop = sl.loops[j]
            if loop.kind != "serial":
                break                     # (iterations outside it are not ordered)
            others = set(between) - {loop.var}
            var = ir.Variable(ir.INDEX, loop.var)
            for i, iv in enumerate(required):
                ends = ir.Add(iv.lo, iv.hi)
                if mins[i] is not iv.lo or not trends.depends(ends, loop.var) or \
                        (j < k and any(trends.depends(ends, o) for o in others)):
                    continue
                if not (trends.non_decreasing(iv.lo, loop.var) and
                        trends.non_decreasing(iv.hi, loop.var)):
                    continue
                prev_hi = _s(trends.previous(iv.hi, loop.var, add_let))
                slid = ir.Max(iv.lo, ir.Add(prev_hi, ir.index(1)))
                mins[i] = ir.Select(ir.GT(var, loop.min), _s(slid), iv.lo)
                trends.rising(required_min(fn.name, i), loop.var)
                window = (i, window_span(iv.lo, iv.hi, loop.var))
                break
        if fold and window is not None and window[1] is not None and \
                not self.ctx.is_output(fn.name):
            factor = 1
            while factor < window[1]:
                factor *= 2
            self.ctx.folds[fn.name] = (window[0], factor)
        return mins

    def _extent(self, lo, hi):
        ext = _s(ir.Add(ir.Sub(hi, lo), ir.index(1)))
        return ext if isinstance(ext, ir.Const) else ir.Max(ext, ir.index(0))

    def named_bounds(self, name: str, iv: Interval, level: ir.LoopLevel) -> Interval:
        """iv, the interval of symbol `name` resolved at `level`, with each
        endpoint bigger than _NAME_ABOVE nodes replaced by a let at `level`."""
        memo = {}
        lo = self._name_if_big(f"{name}.lo", iv.lo, level, memo)
        hi = self._name_if_big(f"{name}.hi", iv.hi, level, memo)
        if lo is iv.lo and hi is iv.hi:
            return iv
        return Interval(lo, hi, iv.lo_data, iv.hi_data)

    def _name_if_big(self, base: str, e, level: ir.LoopLevel, memo: dict):
        if e is None or _tree_size(e, memo) <= _NAME_ABOVE:
            return e
        key = self._level_key(level)
        named = self.named.setdefault((key, base), [])
        for var, value in named:
            if ir.equal(value, e):
                return var
        count = sum(len(v) for (_, b), v in self.named.items() if b == base)
        var = index_var(base if count == 0 else f"{base}.{count}")
        named.append((var, e))
        self._let(self.lets.setdefault(key, []), var.name, e)
        return var

    def _check(self, lets, exprs, name: str):
        """After `lets`' entries so far: an OverflowError unless each of
        `exprs` (interval endpoints, region bounds) fits int32 exactly."""
        lets.extend((None, check)
                    for check in overflow_asserts(exprs, f"Func {name}", self.ranges))

    def _let(self, lets, name, value, resolve=None):
        """A let of `value`; outer levels resolve the symbol through `resolve`
        (default: value)."""
        self.defs[name] = value
        key = next(k for k, v in self.lets.items() if v is lets)
        self.symbols[name] = ("let", value if resolve is None else resolve, key)
        lets.append((name, value))

    # -- inputs --------------------------------------------------------------------------
    def image_requirements(self) -> list:
        """AssertStmts: each input covers what is read from it statically
        (evaluated at the top, over every loop of every stage)."""
        needed = {}
        readers = {}            # (image, dimension) -> (Func, SourceLoc) of a reader
        obligations = []
        root = ir.LoopLevel.root()
        for name in self.ctx.order:
            fn = self.ctx.env[name]
            for index, d in enumerate(fn.definitions()):
                calls = [c for c in self._calls(d) if c.call_type == ir.IMAGE]
                if not calls:
                    continue
                scope = self._stage_scope(name, index, root)
                first = len(obligations)
                bounds = _StageBounds(d, scope, obligations, self._calls(d))
                runs = _both(_runs(d, scope), bounds.nonempty())
                # the stage's reads of each input dimension, united first and
                # added under the stage's condition once (adding each read
                # under the condition would nest selects exponentially); a
                # read under lazy conditions fixed for the call (naming only
                # parameters and geometry) is needed only where they hold
                # (`a[0] if a.size else 0` of an empty `a`): reads under the
                # same such conditions are united, each union added under them
                stage = {}
                for c in calls:
                    for i, a in enumerate(c.args):
                        iv = bounds(c, a)
                        if not rules.extends_region(rules.IMAGE, iv):
                            continue
                        parts = bounds.parts(c, a, iv)
                        if not all(rules.extends_region(rules.IMAGE, p) for p, _ in parts):
                            parts = [(iv, None)]
                        for piv, when in parts:
                            key = (c.name, i, None if when is None else ir.expr_to_str(when))
                            acc, _ = stage.setdefault(key, (_Accumulator(1), when))
                            acc.add(0, piv)
                        if d.source is not None:
                            readers.setdefault((c.name, i), (name, d.source))
                for (img, i, _), (acc, when) in stage.items():
                    needed.setdefault((img, i), []).append((acc.dims[0], _both(runs, when)))
                _oblige_where_run(obligations, first, d)
        needed = {key: _conditional_hull(parts) for key, parts in needed.items()}
        asserts = overflow_asserts(obligations, "the reads of input buffers", self.ranges)
        for (img, i), iv in sorted(needed.items(), key=lambda kv: kv[0]):
            lo = collapse_clamps(iv.lo, assume_no_overflow=True)
            hi = collapse_clamps(iv.hi, assume_no_overflow=True)
            bmin = geometry(img, "min", i)
            bmax = ir.Sub(ir.Add(bmin, geometry(img, "extent", i)), ir.index(1))
            ok = ir.Or(ir.LT(hi, lo), ir.And(ir.LE(bmin, lo), ir.LE(hi, bmax)))
            reader = readers.get((img, i))
            where = "" if reader is None else \
                f" (read by Func {reader[0]} at {_braced(reader[1].file)}:{reader[1].line})"
            asserts.append(ir.AssertStmt(
                simplify(ok), "ValueError",
                f"input buffer {img} is read over [{{}}, {{}}] in dimension {i}, "
                f"but it covers only [{{}}, {{}}]{where}", (lo, hi, bmin, bmax)))
        return asserts


class _StageBounds:
    """Intervals of the accesses of stage `d` under what is known where they
    are evaluated: an access in the arguments or values of `d` runs only
    where its RDom predicates hold (Halide's bounds inference uses them
    too), one in a branch of a lazy `if_then_else` only where its condition
    picks that branch. A Call reached in several such places is bounded by
    the union over them."""

    def __init__(self, d: ir.Definition, scope: dict, obligations: list, calls: list):
        self.plain = BoundsOf(scope, obligations)
        self.write = self.plain.under(ir.conjunction(d.predicates)) if d.predicates \
            else self.plain
        self.predicates, self.rvars = d.predicates, d.schedule.rvars
        self.where = {}                 # id(Call) -> [BoundsOf of each place]
        # the RVars' bounds the predicates state, known in the places under
        # them (ids of those BoundsOf: self.write and its lazy branches)
        self.ranges = rvar_ranges(d.predicates, d.schedule.rvars) if d.predicates else {}
        self.guarded = {id(self.write)} if self.ranges and self.write is not self.plain \
            else set()
        # id(Call) -> [conditions fixed for a call (_call_time) that hold at
        # each place, a tuple of (condition, truth)]
        self.fixed = {}
        if not d.predicates and not any(ir.is_lazy_select(c) for c in calls):
            return                      # (every access: plain)
        preds = tuple((p, True) for p in d.predicates if _call_time(p))
        seen = set()
        stack = [(e, self.write, preds) for e in list(d.args) + list(d.values)] + \
            [(p, self.plain, ()) for p in d.predicates]
        while stack:
            e, ctx, known = stack.pop()
            key = (id(e), id(ctx), tuple((id(c), t) for c, t in known))
            if not isinstance(e, ir.IRNode) or key in seen:
                continue
            seen.add(key)
            if isinstance(e, ir.Call):
                places = self.where.setdefault(id(e), [])
                if not any(x is ctx for x in places):
                    places.append(ctx)
                fixed = self.fixed.setdefault(id(e), [])
                if known not in fixed:
                    fixed.append(known)
                if ir.is_lazy_select(e):
                    c, a, b = e.args
                    if len(known) < _MAX_KNOWN and _call_time(c):
                        ka, kb = known + ((c, True),), known + ((c, False),)
                    else:
                        ka = kb = known
                    ca, cb = ctx.under(c, True), ctx.under(c, False)
                    if id(ctx) in self.guarded:
                        self.guarded.update((id(ca), id(cb)))
                    stack += [(c, ctx, known), (a, ca, ka), (b, cb, kb)]
                    continue
            stack.extend((x, ctx, known) for x in ir.children(e))

    def nonempty(self):
        """The condition that every RVar the RDom predicates narrow keeps a
        point (lo <= hi of its interval under them), where that condition is
        fixed for a call (_call_time); None: none such. A stage whose
        predicates hold nowhere accesses nothing (`sum_rest < n % 8` of an
        empty array), however its accesses' clamps widen the empty interval.
        Not for predicates that read (their reads run at every point)."""
        if not self.predicates or any(ir.reads_memory(p) for p in self.predicates):
            return None
        names = ir.free_vars(list(self.predicates))
        conds = []
        for rv in self.rvars:
            v = names.get(rv.name)
            if v is None:
                continue
            iv = self.write(v)
            if iv.lo is None or iv.hi is None:
                continue
            c = _s(ir.LE(iv.lo, iv.hi))
            if not (isinstance(c, ir.Const) and c.value) and _call_time(c):
                conds.append(c)
        return ir.conjunction(conds) if conds else None

    def parts(self, call, e: ir.Expr, iv: Interval) -> list:
        """[(interval, condition)]: iv, the interval of argument e of `call`
        (__call__'s answer, which the caller has), each part counted only
        where its condition holds (None: always): one part per distinct set
        of the conditions fixed for a call (_call_time: lazy-select
        conditions and RDom predicates naming only parameters and buffer
        geometry) under which the call is evaluated.
        The access runs nowhere else."""
        out = []
        for known in self.fixed.get(id(call)) or [()]:
            conds = [c if truth else ir.Not(c) for c, truth in known]
            out.append((iv, _s(ir.conjunction(conds)) if conds else None))
        return out

    def __call__(self, call, e: ir.Expr) -> Interval:
        """The interval of argument e of `call` (None: a write of the stage)."""
        if call is None:
            return self.write(e)
        out = None
        for ctx in self.where.get(id(call)) or [self.plain]:
            iv = tightened_bounds(ctx, e, ctx(e), self.ranges if id(ctx) in self.guarded else None)
            out = iv if out is None else union(out, iv)
        return out


# at most this many fixed conditions are followed along one path (_StageBounds)
_MAX_KNOWN = 8


def _add_access(acc: _Accumulator, kind, bounds: _StageBounds, call, i: int, e, runs,
                boxed=None):
    """Adds argument i (e) of access `call` (None: the stage's write) to
    dimension i of `acc`, where the stage runs (`runs`; `boxed` instead
    where given and e may map an empty interval to a point) and, for a read
    under lazy conditions fixed for a call, only where they hold (the
    lazy branch of a step over a region that may be empty reads nothing
    when it is: carried_body.write)."""
    iv = bounds(call, e)
    if not rules.extends_region(kind, iv):
        return
    if boxed is not None and not _keeps_empty(e):
        runs = boxed
    parts = bounds.parts(call, e, iv) if call is not None else [(iv, None)]
    if not all(rules.extends_region(kind, p) for p, _ in parts):
        parts = [(iv, None)]
    for piv, when in parts:
        acc.add(i, piv, when=_both(runs, when))


def _keeps_empty(e) -> bool:
    """Whether e is affine in its variables (sums, differences, products by
    a constant, casts), so that interval arithmetic maps an empty interval
    of them to an empty one (a clamp, division or select may give a point)."""
    cls = type(e)
    if cls is ir.Variable or cls is ir.Const:
        return True
    if cls is ir.Cast:
        return _keeps_empty(e.value)
    if cls is ir.Add or cls is ir.Sub:
        return _keeps_empty(e.a) and _keeps_empty(e.b)
    if cls is ir.Mul:
        return (isinstance(e.a, ir.Const) and _keeps_empty(e.b)) or \
            (isinstance(e.b, ir.Const) and _keeps_empty(e.a))
    return False


def _both(a, b):
    """The conjunction of two conditions, each None for always."""
    return a if b is None else b if a is None else _s(ir.And(a, b))


def _call_time(cond) -> bool:
    """Whether `cond` is fixed for a call: it names only scalar parameters
    and buffer geometry (no loop variable, let-bound name or read), so its
    value at the top of the pipeline is its value wherever it is tested."""
    if ir.reads_memory(cond):
        return False
    return all(v.kind == "param" for v in ir.free_vars(cond).values())


def _whole_tiles(sl, outside: int, symbols, unclamped, scope: dict) -> None:
    """In `scope`, each ShiftInwards variable's interval where its extent
    holds a whole tile (the guard-free copy loop synthesis makes): the
    shifted tile itself, unclamped, whose extent is the split factor (a
    constant, as a vectorized or unrolled producer computed per tile needs),
    else the clamped interval. The two agree wherever the tile fits; the
    select folds in each copy (_PlaceLets): only where loop synthesis puts
    the test around the level's loop body (elsewhere the clamp stays, whose
    extent is bounded by the tile)."""
    shifted = {g.condition.a.name: g.fast for g in sl.guards if g.fast is not None
               and g.outer_var in [lp.var for lp in sl.loops]
               and partition_test_encloses(sl, g, outside - 1)}
    if not shifted:
        return
    wide = var_intervals(sl, outside, symbols, unclamped | frozenset(shifted))
    for name, fast in shifted.items():
        tile, clamped = wide.get(name), scope.get(name)
        if tile is None or clamped is None or not (tile.bounded() and clamped.bounded()):
            continue
        scope[name] = Interval(_s(ir.Select(fast, tile.lo, clamped.lo)),
                               _s(ir.Select(fast, tile.hi, clamped.hi)))


def _conditional_hull(parts) -> Interval:
    """The hull of intervals each counted only where its condition holds
    (None: always): an interval whose condition fails contributes the empty
    [int32 max, int32 min], so the hull is linear in the parts (hi < lo where
    none counts)."""
    los, his = [], []
    for iv, when in parts:
        lo, hi = iv.lo, iv.hi
        if when is not None:
            lo = ir.Select(when, lo, ir.index(2**31 - 1)) if lo is not None else None
            hi = ir.Select(when, hi, ir.index(-2**31)) if hi is not None else None
        los.append(lo)
        his.append(hi)
    lo = None if any(x is None for x in los) else _s(functools.reduce(ir.Min, los))
    hi = None if any(x is None for x in his) else _s(functools.reduce(ir.Max, his))
    return Interval(lo, hi)


def _braced(text: str) -> str:
    """text inside an AssertStmt's format string."""
    return text.replace("{", "{{").replace("}", "}}")


class _Resolver(dict):
    """A scope (dict of Intervals) whose misses resolve symbols that are not
    visible at a level through their definitions, recursively.

    A resolution depends only on the definitions of the symbols it reaches
    (fixed once registered), their visibility at the level, and which names
    were not registered yet (points). So it is kept for every later
    _Resolver at the same level (`_Bounds.resolved`: bounds inference asks
    each consumer stage's scope at a level anew), and reused while none of
    those names has been registered since, unless it read an interval the
    caller put into this scope (a consumer's loop variables: var_intervals)
    or met a symbol being resolved (a cycle cut)."""

    def __init__(self, b: "_Bounds", level: ir.LoopLevel):
        super().__init__()
        self.b, self.level = b, level
        self.resolving = set()
        self.own = {}               # name this resolver put into itself -> its names
                                    # found unregistered (None: not kept)
        self.open = []              # [names found unregistered, or None: not kept]

    def _depends(self, names):
        for i, deps in enumerate(self.open):
            if deps is not None:
                if names is None:
                    self.open[i] = None
                else:
                    deps.update(names)

    def get(self, name, default=None):
        if name in self:
            if self.open:
                self._depends(self.own.get(name))
            return self[name]
        b = self.b
        if name not in b.symbols:
            if self.open:
                self._depends((name,))
            return default
        if b.visible(name, self.level):
            return default
        if name in self.resolving:
            self._depends(None)
            return default
        key = (b._level_key(self.level), name)
        hit = b.resolved.get(key)
        if hit is not None and not any(n in b.symbols for n in hit[1]):
            if self.open:
                self._depends(hit[1])
            self[name] = hit[0]
            self.own[name] = hit[1]
            return hit[0]
        self.resolving.add(name)
        self.open.append(set())
        kind = b.symbols[name]
        bounds = BoundsOf(self)
        if kind[0] == "let":
            iv = bounds(kind[1])
        else:
            iv = Interval(bounds(kind[1]).lo, bounds(kind[2]).hi)
        iv = b.named_bounds(name, iv, self.level)
        deps = self.open.pop()
        self.resolving.discard(name)
        if deps is not None:
            deps = frozenset(deps)
            b.resolved[key] = (iv, deps)
        if self.open:
            self._depends(deps)
        self[name] = iv
        self.own[name] = deps
        return iv

    def copy(self):
        out = _Resolver(self.b, self.level)
        out.update(self)
        out.own = dict(self.own)
        return out


class _PlaceLets(ir.Mutator):
    """Put each compute level's LetStmts at the top of its loop body. Inside
    a branch of a ShiftInwards test (`small`: a stage's extent holds one
    tile), the test is known (true in the then case, false in the else
    case) in the lets placed there: the regions of Funcs
    computed per tile of a ShiftInwards consumer (_whole_tiles) fold to the
    tile in the guard-free copy. In the copy for extents below one tile
    (the else case of a ShiftInwards test, `small`), such a Func's region is
    clamped to the consumer's: a vectorized or unrolled loop over it whose
    extent is then not a constant runs as a serial loop (the same values)."""

    memoize = False
    stmts_only = True

    def __init__(self, ctx, lets: dict, small=()):
        super().__init__()
        self.by_loop = {}
        self.known = []               # [(condition, Const)]: enclosing ShiftInwards tests
        self.small = list(small)      # ShiftInwards tests (their else case: small extents)
        self.values = {}              # let placed around the current node -> value
        self.names = {}               # ir.mentioned_names' memo
        self.resolved = {}            # _resolved's memo (see there)
        for key, items in lets.items():
            if key != "root":
                self.by_loop[loop_var_of(ctx, *key)] = items

    def visit_IfThenElse(self, s):
        if not any(ir.equal(s.condition, t) for t in self.small):
            return self.mutate_children(s)
        # (a ShiftInwards test names only extents, which no loop inside rebinds)
        self.known.append((s.condition, ir.const(s.condition.type, True)))
        then_case = self.mutate(s.then_case)
        self.known[-1] = (s.condition, ir.const(s.condition.type, False))
        else_case = None if s.else_case is None else self.mutate(s.else_case)
        self.known.pop()
        if then_case is s.then_case and else_case is s.else_case:
            return s
        return ir.IfThenElse(s.condition, then_case, else_case)

    def visit_For(self, s):
        items = self.by_loop.get(s.name)
        placed = self._placed(items) if items else []
        saved = dict(self.values)
        self.values.update((name, value) for name, value in placed if name is not None)
        body = self.mutate(s.body)
        self.values = saved
        kind = s.kind
        if kind in (ir.ForKind.VECTORIZED, ir.ForKind.UNROLLED) and self._in_small_copy() \
                and not isinstance(self._resolved(s.extent, self.values), ir.Const):
            kind = ir.ForKind.SERIAL
        if placed:
            body = _wrap(placed, body)
        if body is s.body and kind == s.kind:
            return s
        return ir.For(s.name, s.min, s.extent, kind, body)

    def _placed(self, items):
        """items with the enclosing branches' conditions substituted, and each
        extent that is a constant once the lets it names are (a Func whose
        consumer is computed at the same loop: its region is the consumer's
        tile) that constant."""
        out = []
        values = dict(self.values)
        for name, value in items:
            if self.known:
                new = substitute_exprs(value, self.known)
                value = value if new is value else simplify(new)
            if name is not None:
                if name.endswith(".extent") and not isinstance(value, ir.Const):
                    resolved = self._resolved(value, values)
                    if isinstance(resolved, ir.Const):
                        value = resolved
                values[name] = value
            out.append((name, value))
        return out

    def _in_small_copy(self) -> bool:
        return any(not c.value for _, c in self.known)

    def _resolved(self, e, values: dict):
        """e with the lets of `values` it names substituted (a few deep),
        simplified. The result depends only on e and the values of the names
        reachable from it through `values`: memoized on their identities
        (the hot and cold copies of a stage and the loops of one nest ask
        again with the same lets; interpolate: 183 calls, 42 distinct)."""
        reach, todo = {}, [e]
        while todo:
            for n in ir.mentioned_names(todo.pop(), self.names):
                if n in values and n not in reach:
                    reach[n] = values[n]
                    todo.append(values[n])
        key = (id(e), *sorted((n, id(v)) for n, v in reach.items()))
        hit = self.resolved.get(key)
        if hit is not None:
            return hit[2]
        out = self._substituted(e, values)
        self.resolved[key] = (e, reach, out)     # (e and reach keep the ids unique)
        return out

    def _substituted(self, e, values: dict):
        for _ in range(4):               # region lets refer to each other a few deep
            names = [n for n in ir.mentioned_names(e, self.names) if n in values]
            if not names:
                break
            e = ir.substitute(e, {n: values[n] for n in names})
        return simplify(e)


def _wrap(lets, body):
    """lets: (name, value) pairs and (None, AssertStmt) checks, in order."""
    for name, value in reversed(lets):
        body = ir.block(value, body) if name is None else ir.LetStmt(name, value, body)
    return body


def _exact_extent(lo, hi):
    """hi - lo + 1, which must fit int32 as well as its ends."""
    return ir.Add(ir.Sub(hi, lo), ir.index(1))


def infer_bounds(stmt: ir.Stmt, ctx: LoweringContext) -> ir.Stmt:
    b = _Bounds(ctx)
    for name in reversed(ctx.order):          # consumers first
        b.bound(name)
    small = [g.fast for name in ctx.order for i in range(len(ctx.env[name].definitions()))
             for g in loops_of_stage(ctx, ctx.env[name], i).guards if g.fast is not None]
    stmt = _PlaceLets(ctx, b.lets, small).mutate(stmt)
    body = ir.block(*b.image_requirements(), stmt)
    return _wrap(b.lets.get("root", []), body)
