"""`Stage.rfactor`: factor an update into an intermediate Func and a merge
(CGO 2017, Section 3).

For an update `f(L) = op(f(L), y)` over RDom r with preserved RVars P (each
renamed to a new pure Var u):

- intermediate `intm(f's pure Vars..., u...)`: pure definition = the
  operator's identity; update `intm(L, u) = op(intm(L, u), y)` over the RVars
  not preserved, with P replaced by u, the RDom predicates carried along, and
  the guards of splits that do not divide their extent; its loops are the
  stage's (order, splits of pure Vars, vector marks), parallel marks aside;
- merge: the update of f becomes `f(X) = op(f(X), intm(X, P))` over an RDom
  of the preserved loops, where X is the update's left-hand side with every
  coordinate that is not a pure Var replaced by f's pure Var of that
  dimension (so a histogram's buckets become loops of the merge).

The loops are the stage's loops after its splits and fuses (rfactor_domain);
the operator comes from `prove_associativity`, with argmin/argmax rewritten to
an exact lexicographic operator (rfactor_lex). An argmin merge whose partial
results do not come in serial order (a preserved loop inside a loop that is
not preserved) first reduces the partials in a hidden Func `<f>_merge` that
keeps the keys, then applies its total to f once.
"""
from __future__ import annotations

import weakref

from . import ir
from .associativity import AssociativeOp, prove_associativity, register
from .checks import apply as apply_checks
from .errors import CompileError
from .rfactor_domain import FusedVarError, project
from .rfactor_lex import instantiate, merge_values
from .rfactor_lex import plan as make_plan
from .rfactor_nan import exact_float_ops
from .source import at, user_location

# Function -> {element: tie rule} of the argmin keys rfactor gave it (each a
# position in the serial order of the reduction it factored)
_keys: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class _DomainTag:
    """What the RVar Variables of an RDom built by rfactor point to."""

    def __init__(self, name: str):
        self._name = name

    def name(self) -> str:
        return self._name


def _name_of(v) -> str:
    if isinstance(v, str):
        return v
    n = getattr(v, "name", None)
    if callable(n):
        return n()
    raise TypeError(f"rfactor expects RVars and Vars, got {type(v).__name__}")


class _Context:
    def __init__(self, stage):
        from .func import Stage
        if not isinstance(stage, Stage):
            raise TypeError("rfactor is a method of an update stage: f.update(i).rfactor(...)")
        self.stage = stage
        self.fn: ir.Function = stage.function()
        self.loc = user_location()
        self.where = at(self.loc)
        self.label = f"Func {stage.name()}"

    def fail(self, msg: str, d: ir.Definition = None):
        """Raises the CompileError `msg` at the schedule's line; with `d`
        (the message is about the update itself) also at the update's."""
        src = d.source if d is not None else None
        update = ""
        if src is not None and (self.loc is None or (src.file, src.line) !=
                                (self.loc.file, self.loc.line)):
            update = at(src, "the update is at")
        raise CompileError(f"{self.label}: cannot rfactor: {msg}{self.where}{update}")


def _pairs(preserved) -> list:
    """The (RVar, Var) pairs of `preserved`: a list of pairs, or one pair; a
    one-dimensional RDom stands for its RVar."""
    from .var import RDom, Var
    items = list(preserved)
    if len(items) == 2 and isinstance(items[1], Var) and not isinstance(items[0], tuple):
        items = [tuple(items)]
    out = []
    for item in items:
        try:
            rv, v = item
        except (TypeError, ValueError):
            raise TypeError(f"rfactor expects (RVar, Var) pairs, got {item!r}") from None
        if isinstance(rv, RDom) and rv.dimensions() == 1:
            rv = rv.x
        out.append((rv, v))
    return out


def _parse_preserved(ctx: _Context, d: ir.Definition, preserved) -> list:
    """[(Dim, Var name)] sorted innermost first, validated."""
    from .var import Var
    dims = d.schedule.dims
    used = {dim.var for dim in dims}
    seen_r, seen_v, out = set(), set(), []
    for rv, v in _pairs(preserved):
        rname, vname = _name_of(rv), _name_of(v)
        if not isinstance(v, (Var, str)):
            ctx.fail(f"{vname} must be a pure Var (ph.Var), not {type(v).__name__}")
        pos = next((i for i, dim in enumerate(dims) if dim.var == rname), None)
        if pos is None:
            loops = ", ".join(dim.var for dim in dims)
            ctx.fail(f"{rname} is not a loop of this stage (it is not in its RDom, or a split, "
                     f"fuse or earlier rfactor consumed it); its loops are (innermost first): "
                     f"{loops}")
        if not dims[pos].is_rvar:
            ctx.fail(f"{rname} is a pure Var of the stage, not an RVar")
        if rname in seen_r:
            ctx.fail(f"{rname} is listed twice")
        if vname in used or vname in seen_v:
            ctx.fail(f"the name {vname} is already used by a loop of this stage or listed twice; "
                     f"give the preserved RVar a new Var")
        if vname in ctx.fn.args and vname not in used:
            ctx.fail(f"the name {vname} is already a pure Var of {ctx.fn.name}")
        seen_r.add(rname)
        seen_v.add(vname)
        out.append((pos, dims[pos], vname))
    out.sort(key=lambda t: t[0])
    return [(dim, vname) for _, dim, vname in out]


def _ordered(dims: list, preserved: set) -> bool:
    """Whether every preserved RVar loop is outside every other RVar loop
    (then the slices are consecutive runs of the serial loop, in order)."""
    seen_kept = False
    for dim in dims:                     # innermost first
        if not dim.is_rvar:
            continue
        if dim.var in preserved:
            seen_kept = True
        elif seen_kept:
            return False
    return True


def _call(fn: ir.Function, args, i: int) -> ir.Call:
    return ir.Call(fn.output_types[i], fn.name, tuple(args), ir.FUNC, i, fn)


def _rdom(ranges: list, tag: str) -> tuple:
    """(ReductionVariables, name -> rvar Variable) of an RDom of `ranges`
    ([(name, min, extent)])."""
    domain = _DomainTag(tag)
    rvs = [ir.ReductionVariable(n, lo, ext) for n, lo, ext in ranges]
    return rvs, {n: ir.Variable(ir.INDEX, n, "rvar", domain) for n, _, _ in ranges}


def rfactor(stage, preserved: list):
    ctx = _Context(stage)
    if stage.index() == 0:
        ctx.fail("it is the pure definition; rfactor factors an update definition")
    d = stage.definition()
    op = prove_associativity(stage)
    if not op.associative:
        ctx.fail(f"the update is not provably associative: "
                 f"{op.reason.removeprefix(ctx.label + ': ')}", d)
    kept = _parse_preserved(ctx, d, preserved)
    try:
        proj = project(d)
    except FusedVarError as e:
        ctx.fail(f"it fused a Var into an RVar ({e})")
    p = make_plan(op.match, d.schedule.rvars, _keys.get(ctx.fn))
    why = exact_float_ops(p, d, ctx.fn, op.match)
    if why is not None:
        ctx.fail(f"the update is not provably associative: {why}", d)
    _check_operator(ctx, p, op, d, {dim.var for dim, _ in kept})
    seeding = _seeding(ctx, p, op, d, proj, kept)
    intm = _intermediate(ctx.fn, d, p, proj, kept, op.checks, seeding)
    ctx.fn.updates[stage.index() - 1] = _merge(ctx.fn, d, p, proj, kept, intm.function(),
                                               seeding)
    return intm


def _intermediate(fn: ir.Function, d: ir.Definition, p, proj, kept: list, checks: tuple,
                  seeding=None):
    """The intermediate Func: identity, then the update over the loops not
    preserved, the preserved ones turned into its last pure Vars. The
    update's run-time checks guard every value of the intermediate's update:
    it visits each point of the RDom once, as the update did, and raises
    where the update raised.

    Its writes are the update's writes, moved: `factored_from` names the
    Func they stand for, whose region rules lowering applies to them
    (LoweringContext.region_owner). A data-dependent index the serial
    schedule checks against an output's region is checked against that
    region in the intermediate, which covers it; the merge then reads every
    bin the output holds. (Allocating the intermediate over the index's full
    range and checking at the merge instead would miss an out-of-range write
    whose partial result is the identity, and cannot allocate a 32-bit
    range.)

    With a `seeding`, its seeded slots take y as it is at the first point of
    each slice (its RVars at their minimum)."""
    from .func import Func, set_pure_vars
    from .var import Var
    kept_names = {dim.var: v for dim, v in kept}
    rest = [dim for dim in d.schedule.dims if dim.is_rvar and dim.var not in kept_names]
    intm = Func(f"{fn.name}_intm")
    ifn = intm.function()
    ifn.args = tuple(fn.args) + tuple(v for _, v in kept)
    ifn.output_types = tuple(p.types)
    ifn.source = d.source
    ifn.factored_from = fn.factored_from or fn.name
    pure_vars = [Var(a) for a in ifn.args]
    ifn.pure = ir.Definition(tuple(v.node for v in pure_vars), tuple(p.identities),
                             ir.EditedList(),
                             ir.StageSchedule(dims=ir.EditedList(ir.Dim(a) for a in ifn.args)),
                             d.source)
    set_pure_vars(intm, pure_vars)
    rvs, rvar_of = _rdom([(dim.var, *proj.ranges[dim.var]) for dim in rest], f"{ifn.name}$r")
    final = dict(rvar_of)
    final.update({name: ir.Variable(ir.INDEX, v) for name, v in kept_names.items()})
    sub = proj.substitution(final)
    u_vars = tuple(ir.Variable(ir.INDEX, v) for _, v in kept)
    lhs = tuple(_not_own(ir.substitute(a, sub), u_vars) for a in d.args) + u_vars
    xs = [_call(ifn, lhs, i) for i in range(len(p.types))]
    ys = [None if y is None else ir.substitute(y, sub) for y in p.ys]
    moved = [ir.substitute(c, sub) for c in checks]
    values = [instantiate(o, xs, ys) for o in p.ops]
    if seeding is not None and seeding.seeded:
        at_first = ir.const(ir.Bool(), True)
        for dim in rest:
            at_first = ir.And(at_first, ir.EQ(rvar_of[dim.var], proj.ranges[dim.var][0]))
        values = [ir.Select(at_first, ys[s], v) if s in seeding.seeded and ys[s] is not None
                  else v for s, v in enumerate(values)]
    values = tuple(apply_checks(moved, v) for v in values)
    preds = [ir.substitute(c, sub) for c in d.predicates] + proj.guards(final)
    if p.predicate is not None:
        preds.append(ir.substitute(p.predicate, sub))
    dims = [ir.Dim(kept_names[dim.var]) if dim.var in kept_names else
            ir.Dim(dim.var, _intermediate_kind(dim.kind), dim.is_rvar) for dim in d.schedule.dims]
    sched = ir.StageSchedule(dims=ir.EditedList(dims), splits=ir.EditedList(proj.var_splits),
                             rvars=ir.EditedList(rvs))
    ifn.updates = ir.EditedList([ir.Definition(lhs, values, ir.EditedList(preds), sched, d.source,
                                               f"{ifn.name}$r")])
    _keys[ifn] = p.key_rules()
    return intm


def _merge(fn: ir.Function, d: ir.Definition, p, proj, kept: list, ifn: ir.Function,
           seeding=None):
    """The definition that replaces the update: f's values merged with the
    partial results over the preserved loops (or, for an argmin whose slices
    interleave, with the total of a `<f>_merge` Func). With a `seeding`, the
    merge's RDom excludes the empty slices."""
    kept_names = {dim.var: v for dim, v in kept}
    merge_args = _merge_args(fn, d)
    m_rvs, m_vars = _rdom([(dim.var, *proj.ranges[dim.var]) for dim, _ in kept], d.rdom_name)
    partial_args = merge_args + tuple(m_vars[dim.var] for dim, _ in kept)
    current = [_call(fn, merge_args, i) for i in range(p.n)]
    m_dims = [ir.Dim(dim.var, dim.kind, dim.is_rvar, dim.task_size) for dim in d.schedule.dims
              if not dim.is_rvar or dim.var in kept_names]
    named = {dim.var for dim in m_dims} | _consumed(proj.var_splits)
    m_dims += [ir.Dim(a.name) for a in merge_args if a.name not in named]
    if not p.merges_in_any_order() and not _ordered(d.schedule.dims, set(kept_names)):
        partial = _total(fn, ifn, p, merge_args, partial_args, m_rvs, m_dims, d)
        m_rvs, m_dims = [], [dim for dim in m_dims if not dim.is_rvar]
    else:
        partial = [_call(ifn, partial_args, i) for i in range(len(p.types))]
    merged = merge_values(p, current, partial)
    preds = seeding.merge_predicates(m_vars) if seeding is not None else []
    return ir.Definition(merge_args, tuple(merged), ir.EditedList(preds),
                         ir.StageSchedule(dims=ir.EditedList(m_dims),
                                          splits=ir.EditedList(proj.var_splits),
                                          rvars=ir.EditedList(m_rvs)),
                         d.source, d.rdom_name)


def _check_operator(ctx, p, op: AssociativeOp, d, kept: set):
    ops = ", ".join(str(o) for o in op.ops)
    if not p.commutative and not _ordered(d.schedule.dims, kept):
        ctx.fail(f"its operator ({ops}) is not commutative{p.order_note}, and a preserved RVar "
                 f"is inside an RVar that is not preserved, which would change the order in "
                 f"which values are combined; preserve the outer RVars (or reorder them first)")


class _Seeding:
    """How the slices of the intermediate start, for an operator without a
    two-sided identity (DESIGN.md: where no slice can be empty, each slice is
    seeded with its first element).

    The intermediate starts from the identities and the merge computes
    `op(f, partial)`. A right identity e (op(x, e) == x) needs nothing more:
    `op(f, op(e, z)) == op(op(f, e), z) == op(f, z)`, and an empty slice
    leaves f as it is. Without one, an empty slice must not reach the merge
    (`guarded_merge`): the merge skips the slices whose first point the split
    guards exclude (then no point of the slice is inside the RDom) and, when
    the loops left to the intermediate are empty, all of them. A left
    identity (op(e, y) == y) makes the start from e exact; the slots of an
    operator with neither (`seeded`) take the first point's y as it is."""

    def __init__(self, proj, rest: list, seeded: set):
        self.proj, self.rest = proj, rest       # rest: the intermediate's RVar loops
        self.seeded = seeded                    # slots of the intermediate

    def merge_predicates(self, m_vars: dict) -> list:
        """Over the merge's RVars (`m_vars`: loop name -> Variable): the
        slice is not empty."""
        ranges = self.proj.ranges
        return self.proj.first_point_guards(m_vars, self.rest) + \
            [ir.LT(ir.index(0), ranges[n][1]) for n in self.rest if not _positive(ranges[n][1])]


def _seeded_slots(p, match) -> set:
    """The intermediate's slots whose operator has no identity on either side."""
    if not match.blocks:
        return set(range(len(p.types))) if p.identity_side == "none" else set()
    return {p.slot_of[g] for b in match.blocks if b.identity_side == "none"
            for g in b.elements if g in p.slot_of}


def _seeding(ctx, p, op: AssociativeOp, d, proj, kept: list):
    """A _Seeding for an operator without a left-and-right or a right
    identity, or a refusal naming the slice that can be empty; else None."""
    if p.identity_side in ("both", "right"):
        return None
    ops = ", ".join(str(o) for o in op.ops)
    has = "only a left identity (op(e, y) == y)" if p.identity_side == "left" else \
        "no right identity (op(x, e) == x)"
    why = f"its operator ({ops}) has {has}, so no slice of the intermediate may be empty"
    kept_names = {dim.var for dim, _ in kept}
    rest = [dim.var for dim in d.schedule.dims if dim.is_rvar and dim.var not in kept_names]
    for pos, a in enumerate(d.args):
        if not (isinstance(a, ir.Variable) and a.kind == ""):
            ctx.fail(f"{why}, and the update writes dimension {pos} at {ir.expr_to_str(a)}: "
                     f"the slice of a coordinate no point writes is empty. Write the update at "
                     f"the Func's pure Vars, or use an operator with a two-sided identity", d)
    if d.predicates or p.predicate is not None or d.exit is not None:
        ctx.fail(f"{why}, and the update has a condition (an RDom where, a guard or a loop "
                 f"exit) that can exclude every point of a slice", d)
    seeding = _Seeding(proj, rest, _seeded_slots(p, op.match))
    if any(_folded_guard(p.ys[s], p.identities[s]) for s in seeding.seeded):
        ctx.fail(f"{why}, and a value is updated under a condition: a slice whose first point "
                 f"fails it would start from a value that is not an identity", d)
    if proj.first_point_guards({}, rest) is None:
        ctx.fail(f"{why}, and the schedule fuses loops split with a tail: whether a slice is "
                 f"empty is not decided by its first point. Split by a factor that divides "
                 f"the extent, or do not fuse these loops", d)
    return seeding


def _positive(e) -> bool:
    return isinstance(e, ir.Const) and e.value > 0


def _folded_guard(y, identity) -> bool:
    """Whether `y` is `select(P, v, identity)` (a guarded update folded into
    its y by the matcher)."""
    if isinstance(y, ir.Select):
        return ir.equal(y.false_value, identity)
    return ir.is_lazy_select(y) and ir.equal(y.args[2], identity)


def _merge_args(fn: ir.Function, d: ir.Definition) -> tuple:
    """The update's left-hand side with every coordinate that is not a pure
    Var replaced by f's pure Var of that dimension."""
    pure = {a.name for a in d.args if isinstance(a, ir.Variable) and a.kind == ""}
    out = []
    for pos, a in enumerate(d.args):
        if isinstance(a, ir.Variable) and a.kind == "":
            out.append(a)
            continue
        name = fn.args[pos]
        while name in pure:
            name += "_"
        pure.add(name)
        out.append(ir.Variable(ir.INDEX, name))
    return tuple(out)


def _intermediate_kind(kind: str) -> str:
    """The intermediate's update keeps the stage's loop order, splits and
    vector/unroll marks; parallel marks stay with the merge (an intermediate
    computed inside such a loop would otherwise open a one-iteration parallel
    loop in every iteration of it)."""
    return "serial" if kind == "parallel" else kind


def _not_own(a, u_vars):
    """A preserved RVar written at a dimension of f (`g(r.x, r.y)` factored
    on r.y writes `intm(r.x, v, v)`): lowering reads a bare pure Var on the
    left-hand side as standing at its own dimension, so there it is written
    as an expression of the Var."""
    if isinstance(a, ir.Variable) and any(a.name == u.name for u in u_vars):
        return ir.Add(a, ir.index(0))
    return a


def _consumed(splits) -> set:
    """Names of loops that splits, fuses and renames replaced."""
    out = set()
    for sp in splits:
        out |= {sp.inner, sp.outer} if sp.kind == "fuse" else {sp.old}
    return out


def _total(fn, ifn, p, merge_args, partial_args, m_rvs, m_dims, d) -> list:
    """A Func `<f>_merge` reducing the partials over the preserved loops with
    the lexicographic operator; returns the reads of its total."""
    from .func import Func, set_pure_vars
    from .var import Var
    tot = Func(f"{fn.name}_merge")
    tfn = tot.function()
    tfn.args = tuple(a.name for a in merge_args)
    tfn.output_types = tuple(p.types)
    pure_vars = [Var(a) for a in tfn.args]
    tfn.pure = ir.Definition(tuple(v.node for v in pure_vars), tuple(p.identities),
                             ir.EditedList(),
                             ir.StageSchedule(dims=ir.EditedList(ir.Dim(a) for a in tfn.args)),
                             d.source)
    set_pure_vars(tot, pure_vars)
    xs = [_call(tfn, merge_args, i) for i in range(len(p.types))]
    ys = [_call(ifn, partial_args, i) for i in range(len(p.types))]
    values = tuple(instantiate(o, xs, ys) for o in p.combining())
    dims = [dim for dim in m_dims if dim.is_rvar] + [ir.Dim(a) for a in tfn.args]
    upd = ir.Definition(merge_args, values, ir.EditedList(),
                        ir.StageSchedule(dims=ir.EditedList(dims), rvars=ir.EditedList(m_rvs)),
                        d.source, d.rdom_name)
    tfn.updates = ir.EditedList([upd])
    register(upd, _intermediate_op(p, ys))
    return [_call(tfn, merge_args, i) for i in range(len(p.types))]


def _intermediate_op(p, ys) -> AssociativeOp:
    """The record of an update that combines partial results with the
    plan's lexicographic operator and `ys`."""
    from .tables.matcher import MatchResult
    ops = p.combining()
    m = MatchResult(True, "", tuple(ops), tuple(p.identities), tuple(ys), p.commutative,
                    "both", [], p.unchanged_slots(), frozenset())
    return AssociativeOp(True, ops, p.identities, p.commutative, ys, "", "both", 0.0, m)
