"""Build the loop nest from the Funcs and their schedules.

Each Func with storage becomes `realize f { produce f { stages } consume f {
...its consumers... } }`, at root (wrapping everything computed after it) or
inside loop `v` of a stage of its consumer g (compute_at; stage_levels
picks the stage). A stage's loops
come from `stage_loops` (splits, fuses, reorders, tail strategies with their
guards); pure Vars span the Func's required region (symbols
`f.rD.min/extent`), the realization its computed region (`f.bD.*`), both
defined later by bounds inference; RDom predicates guard the body.

A ShiftInwards guard gets a guard-free copy of its outer loop for extents of
at least the factor (a split of the pure stage: the else copy, for extents
below the factor, keeps the inner splits' copies so a short image keeps its
full vectors). The test names only extents, so it goes outside the loop: one
test per run of the loop, and the Funcs computed at the loop are inside each
copy, where bounds inference sizes them for a whole tile (a constant-size
intermediate with a constant row stride and no clamp, as Halide's, whose
tiles are never partial). GuardWithIf guards stay in the body: partition_loops
gives them guard-free copies, bounded per path (partitioning every one here
doubled the nest per split, and compute_at levels multiplied the copies: a
twice-rfactored tiled update lowered to 12,700 lines)."""
from __future__ import annotations

from pyhalide import ir

from . import atomic_updates
from .context import (
    LoweringContext,
    compute_level,
    index_var,
    region_extent,
    region_min,
    required_extent,
    required_max,
    required_min,
    stage_prefix,
    store_level,
)
from .loop_exit import exit_test, outer_exit
from .simplify import simplify
from .skip_range import around, skip_ranges
from .stage_loops import StageLoops, point_guards, stage_loops


def pure_positions(d: ir.Definition) -> dict:
    """Pure Var name -> the first LHS position where it stands alone (its own
    dimension; a later occurrence is an ordinary access)."""
    out = {}
    for pos, a in enumerate(d.args):
        if isinstance(a, ir.Variable) and a.kind == "" and a.name not in out:
            out[a.name] = pos
    return out


def stage_bounds(fn: ir.Function, d: ir.Definition) -> dict:
    """Original variable -> (min, extent, max): pure Vars over the required
    region of their own dimension, RVars over their RDom."""
    bounds = {}
    for name, pos in pure_positions(d).items():
        bounds[name] = (index_var(required_min(fn.name, pos)),
                        index_var(required_extent(fn.name, pos)),
                        index_var(required_max(fn.name, pos)))
    for rv in d.schedule.rvars:
        hi = simplify(ir.Sub(ir.Add(rv.min, rv.extent), ir.index(1)), assume_no_overflow=True)
        bounds[rv.name] = (rv.min, rv.extent, hi)
    return bounds


def loops_of_stage(ctx: LoweringContext, fn: ir.Function, index: int) -> StageLoops:
    """The loops of stage `index` of fn, built once per compile for each
    Definition (bounds inference asks for them per consumer and per level;
    lowering changes no schedule in place, and callers do not change them)."""
    d = fn.definitions()[index]
    hit = ctx.stage_loops.get((fn.name, index))
    if hit is not None and hit[0] is d:
        return hit[1]
    sl = stage_loops(stage_prefix(fn.name, index), d, stage_bounds(fn, d), index == 0,
                     ctx.is_output(fn.name))
    ctx.stage_loops[(fn.name, index)] = (d, sl)
    return sl


class _StripGuard(ir.Mutator):
    def __init__(self, condition):
        super().__init__()
        self.condition = condition

    def visit_IfThenElse(self, s):
        if s.condition is self.condition and s.else_case is None:
            return self.mutate(s.then_case)
        return self.mutate_children(s)


def build_stage(ctx: LoweringContext, fn: ir.Function, index: int) -> ir.Stmt:
    d = fn.definitions()[index]
    sl = loops_of_stage(ctx, fn, index)
    prefix = stage_prefix(fn.name, index)
    rename = {v: index_var(prefix + v) for v in stage_bounds(fn, d)}
    args = tuple(ir.substitute(a, rename) for a in d.args)
    values = tuple(ir.substitute(v, rename) for v in d.values)
    if d.schedule.atomic:                # one atomic read-modify-write (Stage.atomic)
        values = tuple(atomic_updates.mark(v) for v in values)
    body: ir.Stmt = ir.Provide(fn.name, values, args)
    preds = [ir.substitute(p, rename) for p in d.predicates]
    skips = {}
    if index == 0:      # (a pure definition skipping a range: lowering/skip_range.py)
        skips, preds = skip_ranges(preds, {lp.var for lp in sl.loops})
    if preds:
        body = ir.IfThenElse(ir.conjunction(preds), body)
    body = exit_test(d, sl, rename, body)
    for g in sl.guards:
        body = ir.IfThenElse(g.condition, body)
    for name, value in reversed(sl.lets):
        body = ir.LetStmt(name, value, body)
    stage_vars = _stage_vars(sl)
    for k in reversed(range(len(sl.loops))):   # innermost first
        lp = sl.loops[k]
        partitions = [g for g in sl.guards if g.outer_var == lp.var and g.fast is not None]
        hoisted = [g for g in partitions if _hoistable(g, stage_vars)]
        for g in partitions:
            if g not in hoisted:
                body = ir.IfThenElse(g.fast, _StripGuard(g.condition).mutate(body), body)
        body = outer_exit(d, rename, lp.var, body)
        body = ir.For(lp.var, lp.min, lp.extent, lp.kind, body)
        if lp.var in skips:
            body = around(body, *skips[lp.var])
        for g in hoisted:
            body = ir.IfThenElse(g.fast, _StripGuard(g.condition).mutate(body), body)
    return body


def _stage_vars(sl) -> set:
    return {lp.var for lp in sl.loops} | {name for name, _ in sl.lets}


def partition_test_encloses(sl, g, loop_index: int) -> bool:
    """Whether build_stage's `if (g.fast)` test of ShiftInwards guard g
    encloses the body of loop `loop_index` of the stage (where the Funcs
    computed at that loop are placed)."""
    k = [lp.var for lp in sl.loops].index(g.outer_var)
    if _hoistable(g, _stage_vars(sl)):
        return k <= loop_index           # (the test is outside loop k)
    return k < loop_index                # (the test wraps loop k's body)


def _hoistable(g, stage_vars) -> bool:
    """A ShiftInwards partition test goes outside its loop (one test per run of
    the loop, not per iteration) when it names no variable of the stage. A
    Func computed at the loop (or inside it) is then in both copies: in the
    copy for whole tiles its region is the tile (bounds inference,
    _whole_tiles), so its size, its row stride and the shift-inward clamps
    of its loops are constants; the copy for extents below the factor keeps
    the general region."""
    return not any(v in stage_vars for v in ir.free_vars(g.fast))


def build_produce(ctx: LoweringContext, fn: ir.Function) -> ir.Stmt:
    stages = [build_stage(ctx, fn, i) for i in range(len(fn.definitions()))]
    return ir.ProducerConsumer(fn.name, True, ir.block(*stages))


class _InjectAt(ir.Mutator):
    """Wrap the body of every loop named `loop` (loop partitioning may have
    copied it) with `wrap(body)`."""

    memoize = False
    stmts_only = True

    def __init__(self, loop: str, wrap):
        super().__init__()
        self.loop, self.wrap, self.found = loop, wrap, False

    def visit_For(self, s):
        if s.name == self.loop:
            self.found = True
            return ir.For(s.name, s.min, s.extent, s.kind, self.wrap(self.mutate(s.body)))
        return self.mutate_children(s)


def _produce_consume(fn, produce, consumer):
    if consumer is None:
        return produce
    return ir.block(produce, ir.ProducerConsumer(fn.name, False, consumer))


def _realize(fn, body):
    bounds = tuple(ir.Range(index_var(region_min(fn.name, d)), index_var(region_extent(fn.name, d)))
                   for d in range(fn.dimensions()))
    return ir.Realize(fn.name, tuple(fn.output_types), bounds, body)


def _inject(ctx, stmt, name, level, wrap):
    loop = loop_var_of(ctx, level.func, level.var, level.stage)
    inject = _InjectAt(loop, wrap)
    stmt = inject.mutate(stmt)
    if not inject.found:
        raise ir.CompileError(f"Func {name} is computed or stored at {level.func}.{level.var}, "
                              f"but {level.func} is not computed before it is used")
    return stmt


def check_levels(ctx: LoweringContext, name: str, compute, store):
    """The store level must be the compute level or enclose it (a loop of the
    same Func around it, or around the level of a Func it is computed inside),
    with no parallel loop in between (iterations would share the storage)."""
    for what, level in (("computed", compute), ("stored", store)):
        if not level.is_root() and level.func not in ctx.env:
            raise ir.CompileError(
                f"Func {name} is {what} at {level.func}.{level.var}, but {level.func} is not "
                f"part of this pipeline (nothing realized here calls it): {what} at a loop "
                f"of a Func that uses {name}")
    if store == compute:
        return
    if store.is_root() and not compute.is_root():
        _check_no_parallel_between(ctx, name, compute, None)
        return
    if store.is_root():
        return
    # the compute level, or the level of a Func it is computed inside, in store's Func
    within = compute
    while not within.is_root() and within.func != store.func:
        within = compute_level(ctx, within.func)
    if within.is_root():
        raise ir.CompileError(f"Func {name} is stored at {store} but computed at {compute}: the "
                              f"store level must be a loop that contains the compute level")
    (sl, s), (_, c) = level_loops(ctx, store), level_loops(ctx, within)
    if level_stage(ctx, store) != level_stage(ctx, within) or s > c:
        raise ir.CompileError(f"Func {name} is stored at {store} but computed at {compute}, which "
                              f"is outside it: the store level must contain the compute level")
    _check_no_parallel_between(ctx, name, compute, sl.loops[s].var)


def _check_no_parallel_between(ctx, name, compute, store_loop):
    """Loops of the consumer inside the store level and around the compute
    level must run in order; otherwise two iterations share the storage."""
    g = compute.func
    while True:
        sl, c = level_loops(ctx, compute)
        names = [lp.var for lp in sl.loops]
        start = names.index(store_loop) + 1 if store_loop in names else 0
        for lp in sl.loops[start:c + 1]:
            if lp.kind in (ir.ForKind.PARALLEL, ir.ForKind.VECTORIZED):
                raise ir.CompileError(
                    f"Func {name} is stored outside the {lp.kind} loop {lp.dim} of {g} but "
                    f"computed inside it: its iterations would share the storage (a race); "
                    f"store it inside that loop (store_at) or compute it at root")
        if store_loop in names:
            return
        level = compute_level(ctx, g)
        if level.is_root():
            return
        compute, g = level, level.func


def level_stage(ctx: LoweringContext, level: ir.LoopLevel) -> int:
    """The index of the stage of level.func whose loop the level is (stage
    -1: the last)."""
    return level.stage if level.stage >= 0 else len(ctx.env[level.func].definitions()) - 1


def level_loops(ctx: LoweringContext, level: ir.LoopLevel):
    """(StageLoops of the level's stage, index of the level's loop in it)."""
    sl = loops_of_stage(ctx, ctx.env[level.func], level_stage(ctx, level))
    loop = loop_var_of(ctx, level.func, level.var, level.stage)
    return sl, [lp.var for lp in sl.loops].index(loop)


def loop_var_of(ctx: LoweringContext, g: str, var: str, stage: int = -1) -> str:
    """The Stmt name of loop `var` of stage `stage` of g (-1: the last;
    CompileError if none)."""
    gfn = ctx.env[g]
    last = len(gfn.definitions()) - 1
    sl = loops_of_stage(ctx, gfn, last if stage < 0 else stage)
    for lp in sl.loops:
        if lp.dim == var:
            return lp.var
    names = ", ".join(lp.dim for lp in sl.loops)
    which = "its last stage" if stage < 0 or stage == last else f"its stage {stage}"
    raise ir.CompileError(f"compute_at/store_at: Func {g} has no loop {var} in {which}; "
                          f"its loops are (outermost first): {names}")


def _hoist_point_guards(ctx: LoweringContext, stmt: ir.Stmt) -> ir.Stmt:
    """At each loop a Func is computed at, the guards of the consumer's
    variables that the loops down to it determine are tested at the top of
    its body: where one is false the consumer does nothing there, so neither
    do the Funcs computed for it (bounds inference then gives them the point,
    not a clamp of it: a region of constant extent)."""
    levels = {}
    for name in ctx.order:
        level = compute_level(ctx, name)
        if not level.is_root():
            levels[(level.func, level.var, level.stage)] = level
    for level in levels.values():
        sl, k = level_loops(ctx, level)
        loop = sl.loops[k].var
        conds = [c for _, c in point_guards(sl, k + 1)]
        if conds:
            cond = ir.conjunction(conds)
            stmt = _InjectAt(loop, lambda body, cond=cond: ir.IfThenElse(cond, body)).mutate(stmt)
    return stmt


def synthesize_loops(ctx: LoweringContext) -> ir.Stmt:
    """The whole pipeline as nested realizations (bounds left symbolic)."""
    stmt = None
    for name in reversed(ctx.order):          # consumers first
        fn = ctx.env[name]
        produce = build_produce(ctx, fn)
        compute, store = compute_level(ctx, name), store_level(ctx, name)
        check_levels(ctx, name, compute, store)
        if compute.is_root():
            stmt = _realize(fn, _produce_consume(fn, produce, stmt))
            continue
        if store == compute:
            stmt = _inject(ctx, stmt, name, compute, lambda body, fn=fn, produce=produce:
                           _realize(fn, _produce_consume(fn, produce, body)))
            continue
        stmt = _inject(ctx, stmt, name, compute, lambda body, fn=fn, produce=produce:
                       _produce_consume(fn, produce, body))
        if store.is_root():
            stmt = _realize(fn, stmt)
        else:
            stmt = _inject(ctx, stmt, name, store, lambda body, fn=fn: _realize(fn, body))
    return _hoist_point_guards(ctx, stmt)
