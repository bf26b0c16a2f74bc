"""The loops of one stage after its splits, fuses and renames.

`stage_loops` turns a stage's schedule into concrete loops (outermost first),
the lets that rebuild each split variable from its children (innermost
loop body, in order), the guards of GuardWithIf and ShiftInwards tails (for
ShiftInwards, with the condition under which no chunk needs one), and the footprint of
each original variable (what the stage really computes, which tail
strategies may widen). `var_intervals` gives the original variables'
intervals when the loops outside a given level are fixed (compute_at).

Tail strategies (Auto: ShiftInwards on pure stages, GuardWithIf on updates
and RVars):
- GuardWithIf: x = min + o*f + i, guarded by x <= max; loop partitioning
  (partition_loops) gives the chunks whose last point is inside a guard-free
  copy.
- ShiftInwards: x = min + min(o*f, max(e - f, 0)) + i: the last chunk
  shifts inwards; extents below f (where the shift would leave the region)
  take a guarded copy of the loop, so the stage never computes, nor reads
  for, points outside its region.
- RoundUp: x = min + o*f + i unguarded (the Func grows to a multiple of f);
  on outputs and on derived loops (fused, or outer/inner of an earlier split)
  it behaves as GuardWithIf.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pyhalide import ir

from .interval import BoundsOf, Interval
from .simplify import simplify


@dataclass
class Loop:
    dim: str                 # the schedule's name of the dimension
    var: str                 # the loop variable's name in the Stmt
    min: ir.Expr
    extent: ir.Expr
    kind: str
    max: ir.Expr             # min + extent - 1, kept symbolic where it has a name


@dataclass
class Guard:
    condition: ir.Expr       # must hold for the body to run
    outer_var: str           # partition inside this loop (the split's outer), if still a loop
    fast: ir.Expr            # ShiftInwards: when true, the guard holds for the whole
                             # chunk (None: partition_loops partitions it)


@dataclass
class StageLoops:
    loops: list = field(default_factory=list)        # [Loop], outermost first
    lets: list = field(default_factory=list)         # [(name, Expr)], in order
    guards: list = field(default_factory=list)       # [Guard]
    footprint: dict = field(default_factory=dict)    # widened original var -> (lo, hi)
    names: dict = field(default_factory=dict)        # dim name -> loop/let var name
    exact: dict = field(default_factory=dict)        # var name -> (min, max) it stays within


def _iv(name: str) -> ir.Variable:
    return ir.Variable(ir.INDEX, name)


def _s(e):
    return simplify(e, assume_no_overflow=True)


def _tail(split: ir.Split, is_rvar: bool, pure_stage: bool, is_output: bool,
          is_original: bool) -> str:
    tail = split.tail
    if tail == "Auto":
        tail = "ShiftInwards" if (pure_stage and not is_rvar) else "GuardWithIf"
    if tail == "RoundUp" and (is_output or not is_original):
        # an output cannot grow; a derived loop (fused, or already split) would
        # overshoot in ways its Func's region cannot follow
        tail = "GuardWithIf"
    return tail


def stage_loops(prefix: str, d: ir.Definition, bounds: dict, pure_stage: bool,
                is_output: bool) -> StageLoops:
    """`bounds`: original variable -> (min, extent, max) Exprs. Loop
    variables are named prefix + dim name (plus a counter where a name is
    reused)."""
    out = StageLoops()
    rvars = {rv.name for rv in d.schedule.rvars}
    counter = {}

    def fresh(dim: str) -> str:
        n = counter.get(dim, 0)
        counter[dim] = n + 1
        return f"{prefix}{dim}" if n == 0 else f"{prefix}{dim}${n}"

    cur = {v: fresh(v) for v in bounds}            # dim name -> variable name now
    rng = {cur[v]: bounds[v] for v in bounds}
    origin = {cur[v]: v for v in bounds}           # variable -> original var
    lets = []                                      # (name, expr), outermost split first
    rounded = False
    fused = []
    for sp in d.schedule.splits:
        if sp.kind == "split":
            old = cur.pop(sp.old)
            lo, ext, hi = rng[old]
            f = sp.factor
            o_name, i_name = fresh(sp.outer), fresh(sp.inner)
            cur[sp.outer], cur[sp.inner] = o_name, i_name
            is_rvar = sp.old in rvars or sp.outer in rvars
            tail = _tail(sp, is_rvar, pure_stage, is_output, old in origin)
            o_ext = _s(ir.Div(ir.Add(ext, ir.Sub(f, ir.index(1))), f))
            rng[o_name] = (ir.index(0), o_ext, _s(ir.Sub(o_ext, ir.index(1))))
            rng[i_name] = (ir.index(0), f, _s(ir.Sub(f, ir.index(1))))
            o, i = _iv(o_name), _iv(i_name)
            if tail == "ShiftInwards":
                base = ir.Min(ir.Mul(o, f), ir.Max(ir.Sub(ext, f), ir.index(0)))
            else:
                base = ir.Mul(o, f)
            lets.append((old, _s(ir.Add(ir.Add(lo, base), i))))
            if tail in ("GuardWithIf", "ShiftInwards"):
                # a GuardWithIf guard is linear in the loops: partition_loops
                # gives it its guard-free copies
                fast = _s(ir.GE(ext, f)) if tail == "ShiftInwards" else None
                out.guards.append(Guard(ir.LE(_iv(old), hi), o_name, fast))
                out.exact[old] = (lo, hi)
            if tail == "RoundUp":
                rounded = True
                # overshoots its max by less than the factor: stated, so the
                # bound stays tight where min and extent vary together (a Func
                # computed per tile of its consumer)
                out.exact[old] = (lo, _s(ir.Add(hi, ir.Sub(f, ir.index(1)))))
        elif sp.kind == "fuse":
            inner, outer = cur.pop(sp.inner), cur.pop(sp.outer)
            (ilo, iext, _), (olo, oext, _) = rng[inner], rng[outer]
            fused_var = fresh(sp.old)
            cur[sp.old] = fused_var
            fext = _s(ir.Mul(iext, oext))
            rng[fused_var] = (ir.index(0), fext, _s(ir.Sub(fext, ir.index(1))))
            fv = _iv(fused_var)
            lets.append((inner, _s(ir.Add(ilo, ir.Mod(fv, iext)))))
            lets.append((outer, _s(ir.Add(olo, ir.Div(fv, iext)))))
            out.exact[inner] = (ilo, _s(ir.Add(ilo, ir.Sub(iext, ir.index(1)))))
            fused.append((outer, olo, _s(ir.Add(olo, ir.Sub(oext, ir.index(1))))))
        elif sp.kind == "rename":
            old = cur.pop(sp.old)
            new = fresh(sp.outer)
            cur[sp.outer] = new
            rng[new] = rng[old]
            lets.append((old, _iv(new)))
    for dim in reversed(d.schedule.dims):              # outermost first
        var = cur.get(dim.var)
        if var is None:
            continue
        lo, ext, hi = rng[var]
        out.loops.append(Loop(dim.var, var, lo, ext, dim.kind, hi))
    out.lets = list(reversed(lets))                    # children before parents
    out.names = dict(cur)
    # a fused loop never overshoots (RoundUp applies to original loops only), so
    # its outer variable stays in range
    for name, lo, hi in fused:
        out.exact[name] = (lo, hi)
    if rounded:
        # RoundUp runs loops past their extent: what the stage really computes
        ivs = var_intervals(out, 0, {})
        for v in bounds:
            iv = ivs.get(cur_or_let(prefix, v))
            lo, _, hi = bounds[v]
            if iv is None or not iv.bounded():
                continue
            if not (ir.equal(iv.lo, lo) and ir.equal(iv.hi, hi)):
                out.footprint[v] = (_s(ir.Min(iv.lo, lo)), _s(ir.Max(iv.hi, hi)))
    return out


def cur_or_let(prefix: str, v: str) -> str:
    """The Stmt name of original variable v of a stage."""
    return f"{prefix}{v}"


def _point_lets(sl: StageLoops, outside: int) -> set:
    """The let variables that only the first `outside` loops determine."""
    varying = {lp.var for lp in sl.loops[outside:]}
    points = set()
    for name, value in sl.lets:
        if set(ir.free_vars(value)) & varying:
            varying.add(name)
        else:
            points.add(name)
    return points


def point_guards(sl: StageLoops, outside: int) -> list:
    """[(variable, condition)]: the GuardWithIf guards of variables that only
    the first `outside` loops determine, the condition over those loops (lets
    substituted). The stage does nothing inside them where one is false:
    loop synthesis tests them at the top of that loop's body, so the
    variable is a point within its guard there (no clamp)."""
    points = _point_lets(sl, outside)
    lets = dict(sl.lets)
    out = []
    for g in sl.guards:
        var = g.condition.a.name
        if var not in points or g.fast is not None:
            continue            # (a ShiftInwards guard: only its small-extent copy has it)
        cond = g.condition
        for _ in range(len(lets)):
            names = [n for n in ir.free_vars(cond) if n in lets]
            if not names:
                break
            cond = ir.substitute(cond, {n: lets[n] for n in names})
        out.append((var, _s(cond)))
    return out


def var_intervals(sl: StageLoops, outside: int, scope: dict, unclamped=frozenset()) -> dict:
    """Intervals of every loop and let variable when the first `outside`
    loops (outermost first) are fixed at their current values and the others
    span their ranges. `scope` gives intervals of the symbols the bounds use.
    Variables in `unclamped` keep their interval where their guard would clamp
    it (a point whose guard holds wherever it is used: point_guards)."""
    sc = scope.copy()
    bounds = BoundsOf(sc)
    for k, lp in enumerate(sl.loops):
        if k < outside:
            sc[lp.var] = Interval.point(_iv(lp.var))
        else:
            sc[lp.var] = Interval(bounds(lp.min).lo, bounds(lp.max).hi)
        bounds = BoundsOf(sc)
    for name, value in sl.lets:
        iv = bounds(value)
        clamp = None if name in unclamped else sl.exact.get(name)
        if clamp is not None:
            lo, hi = bounds(clamp[0]).lo, bounds(clamp[1]).hi
            if lo is not None and hi is not None:
                iv = Interval(lo, hi) if not iv.bounded() else \
                    Interval(_s(ir.Max(iv.lo, lo)), _s(ir.Min(iv.hi, hi)))
        sc[name] = iv
        bounds = BoundsOf(sc)
    return sc
