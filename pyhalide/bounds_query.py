"""Halide's bounds-query protocol: `Func.infer_input_bounds` /
`Pipeline.infer_input_bounds`, with constraints on input and output buffer
geometry that name other buffers' geometry (Halide 21's AddImageChecks.cpp
and Pipeline::infer_input_bounds, as docs/halide_parity.md describes them).

One query pass, from the output region asked for:
- the output's touched region: the region asked, its min and extent replaced
  by the output's own constraint where that is a constant or a Param (Halide
  writes such a constraint into the loops), and its extent rounded up to the
  factor of each split of the dimension in an update stage of the output
  (Halide's default tail for an update is RoundUp: the update writes up to
  the rounded-up end);
- each input's touched region: what the pipeline reads over the output's
  touched region (pyhalide's bounds inference: the input checks of the
  lowered pipeline, evaluated);
- each buffer's proposal: its constraints with every `buf.min.d` and
  `buf.extent.d` replaced by the touched values (a dimension without a
  constraint proposes its touched region), which must cover the touched region.
The output's proposal is written into the output Buffer (a bounds-query
Buffer changes shape; another Buffer must already have it); the passes repeat
(at most 16) until the inputs' proposals stop changing; each unbound input
ImageParam is then bound to a new Buffer of its proposed geometry."""
from __future__ import annotations

import re

import numpy as np

from . import ir
from .errors import CompileError, ConstraintError

MAX_PASSES = 16

# whether a constraint realize must check (an expression on an ImageParam, any
# on an output buffer) was ever set in this process: until then the repeated
# realize (realize_fast) needs no test
EVER_SET = [False]


# ---- constraints ----------------------------------------------------------------------------
def constraints_of(obj) -> dict:
    """(field, dimension) -> constraint (int or ir.Expr) of an ImageParam or of a
    Func's output buffer."""
    return obj.__dict__.get("_constraints", {})


def _node(v):
    from .expr import to_node
    return v if isinstance(v, ir.Expr) else to_node(v)


def _value(e, env: dict, what: str) -> int:
    """The integer value of constraint `e` with the geometry in `env` and the
    Params' values put in."""
    if isinstance(e, (int, np.integer)):
        return int(e)
    return _evaluate(_node(e), env, {}, what)


def _loop_bound(e) -> bool:
    """A constraint Halide writes into the output's loops: a constant or a
    Param (no buffer geometry)."""
    if isinstance(e, (int, np.integer)):
        return True
    n = _node(e)
    return isinstance(n, ir.Const) or (isinstance(n, ir.Variable) and
                                       not _is_geometry(n.name))


def _is_geometry(name: str) -> bool:
    parts = name.rsplit(".", 2)
    return len(parts) == 3 and parts[1] in ("min", "extent", "stride") and parts[2].isdigit()


# ---- regions ---------------------------------------------------------------------------------
def _rounded(f, d: int, extent: int) -> int:
    """extent rounded up to each split factor of dimension d in f's updates."""
    fn = f.function()
    var = fn.args[d]
    for u in fn.updates:
        for s in u.schedule.splits:
            if s.kind == "split" and s.old == var and s.tail in ("Auto", "RoundUp"):
                factor = ir.const_value(s.factor) if isinstance(s.factor, ir.Expr) else s.factor
                if isinstance(factor, int) and factor > 1:
                    extent = -(-extent // factor) * factor
    return extent


def _input_regions(outputs, mins, extents) -> dict:
    """name -> [(lo, hi)] per dimension: what the pipeline reads of each input
    when its outputs are computed over [mins, mins + extents)."""
    from .func import Func
    from .realize import Pipeline
    from .shifted_outputs import shifted_wrappers
    funcs = shifted_wrappers(outputs, mins) if any(mins) else outputs
    stmt = Pipeline(list(funcs)).lowered_stmt()
    env = {}
    for f in funcs:
        name = f.name() if isinstance(f, Func) else f
        for d, e in enumerate(extents):
            env[f"{name}.extent.{d}"] = e
            env[f"{name}.min.{d}"] = 0
    out = {}
    _reads(stmt, env, {}, out)
    gathers = _Gathers()
    gathers.visit(stmt)
    for name, d, index in gathers.found:
        lo, hi = _constant_bounds(index, env)
        dims = out.setdefault(name, {})
        if lo is None:
            dims[d] = None              # unbounded (see _unbounded)
        elif dims.get(d, ()) is not None:
            dims[d] = (min(lo, dims[d][0]), max(hi, dims[d][1])) if d in dims else (lo, hi)
    return out


_GATHER = re.compile(r"input buffer (\S+) is read at index \{\} in dimension (\d+), outside")


class _Gathers(ir.Visitor):
    """The input reads checked inside the loops (access_checks: gathers,
    reads at data-dependent positions): (input, dimension, index)."""

    def __init__(self):
        super().__init__()
        self.found = []

    def visit_AssertStmt(self, s):
        m = _GATHER.match(s.message)
        if m is not None and s.args:
            self.found.append((m.group(1), int(m.group(2)), s.args[0]))

    def visit(self, n):
        if not isinstance(n, ir.Expr):      # (no statements inside expressions)
            super().visit(n)


def _constant_bounds(index, env) -> tuple:
    """(lo, hi) of a checked index when its interval is known without the
    loops (a narrow type's range: a uint8 index reads [0, 255]), else
    (None, None)."""
    from .lowering.interval import bounds_of
    iv = bounds_of(index, {})
    if not iv.bounded():
        return None, None
    try:
        return (_evaluate(iv.lo, env, {}, "a gather's index"),
                _evaluate(iv.hi, env, {}, "a gather's index"))
    except CompileError:
        return None, None


def _unbounded(touched: dict, params) -> None:
    """ValueError (Halide: `Invalid arguments to infer_input_bounds`, after
    its error that the input is accessed at an unbounded position) when an
    input ImageParam is read at positions no bound covers."""
    for p in params:
        for d, region in touched.get(p.name(), {}).items():
            if region is None:
                raise ValueError(
                    f"infer_input_bounds: input {p.name()} is read in dimension {d} at "
                    f"positions that depend on data, with no bound: its region is "
                    f"unbounded (clamp the index, e.g. with hl.clamp)")


_READ = "is read over [{}, {}] in dimension "


def _reads(s, env, lets, out):
    """The input checks of the lowered pipeline (outside its loops), evaluated."""
    if isinstance(s, ir.LetStmt):
        lets = dict(lets)
        lets[s.name] = s.value
        _reads(s.body, env, lets, out)
    elif isinstance(s, ir.Block):
        for t in s.stmts:
            _reads(t, env, lets, out)
    elif isinstance(s, ir.AssertStmt) and _READ in s.message and \
            s.message.startswith("input buffer "):
        name = s.message[len("input buffer "):].split(" ", 1)[0]
        dim = int(s.message.split(_READ, 1)[1].split(",", 1)[0])
        lo, hi = (_evaluate(a, env, lets, f"the region of {name} read") for a in s.args[:2])
        dims = out.setdefault(name, {})
        dims[dim] = (lo, hi)


def _evaluate(e, env: dict, lets: dict, what: str) -> int:
    """e's integer value: Variables named in `env` (ints) or `lets` (Exprs,
    evaluated in turn) replaced, Params by their values."""
    from .buffer import Param
    from .lowering.simplify import simplify
    for _ in range(256):
        free = ir.free_vars(e)
        if not free:
            break
        mapping = {}
        for n, v in free.items():
            if n in env:
                mapping[n] = ir.Const(v.type, env[n])
            elif n in lets:
                mapping[n] = lets[n]
            elif isinstance(getattr(v, "param", None), Param) and v.param.get() is not None:
                mapping[n] = ir.Const(v.type, v.param.get())
        if not mapping:
            break
        e = simplify(ir.substitute(e, mapping))
    got = ir.const_value(simplify(e))
    if got is None:
        raise CompileError(f"the bounds query cannot evaluate {what} "
                           f"({ir.expr_to_str(e)}): it names values it does not know")
    return int(got)


# ---- the protocol ----------------------------------------------------------------------------
def _geometry_env(name: str, mins, extents) -> dict:
    env = {}
    for d, (m, e) in enumerate(zip(mins, extents)):
        env[f"{name}.min.{d}"], env[f"{name}.extent.{d}"] = m, e
    return env


def _propose(what: str, table: dict, mins, extents, env: dict) -> tuple:
    """(mins, extents) a buffer proposes: its constraints evaluated in `env`
    (the touched geometry of every buffer), checked to cover the touched region."""
    new_mins, new_extents = list(mins), list(extents)
    for d in range(len(mins)):
        if ("min", d) in table:
            new_mins[d] = _value(table[("min", d)], env, f"the min constraint of {what}")
        if ("extent", d) in table:
            new_extents[d] = _value(table[("extent", d)], env,
                                    f"the extent constraint of {what}")
        if extents[d] > 0 and not (new_mins[d] <= mins[d] and
                                   mins[d] + extents[d] <= new_mins[d] + new_extents[d]):
            raise ValueError(
                f"the constraints of {what} in dimension {d} give [{new_mins[d]}, "
                f"{new_mins[d] + new_extents[d] - 1}], which does not cover the region "
                f"[{mins[d]}, {mins[d] + extents[d] - 1}] the pipeline touches")
    return new_mins, new_extents


def _out_region(f, mins, extents) -> tuple:
    """Output f's touched region for a query over (mins, extents)."""
    table = constraints_of(f)
    mins, extents = list(mins), list(extents)
    env = _geometry_env(f.name(), mins, extents)
    for d in range(len(mins)):
        if ("min", d) in table and _loop_bound(table[("min", d)]):
            mins[d] = _value(table[("min", d)], env, f"the min constraint of {f.name()}")
        if ("extent", d) in table and _loop_bound(table[("extent", d)]):
            extents[d] = _value(table[("extent", d)], env,
                                f"the extent constraint of {f.name()}")
        extents[d] = _rounded(f, d, extents[d])
    return mins, extents


def _union(a: dict, b: dict) -> dict:
    """Two {name: {dim: (lo, hi)}} read regions, joined."""
    out = {n: dict(dims) for n, dims in a.items()}
    for n, dims in b.items():
        mine = out.setdefault(n, {})
        for d, (lo, hi) in dims.items():
            mine[d] = (min(lo, mine[d][0]), max(hi, mine[d][1])) if d in mine else (lo, hi)
    return out


def _touched(outputs, regions: dict) -> dict:
    """What the pipeline reads of each input with each output computed over
    its own region (one lowering when the outputs share one region)."""
    first = regions[outputs[0].name()]
    if all(regions[f.name()] == first for f in outputs):
        return _input_regions(outputs, *first)
    out = {}
    for f in outputs:
        out = _union(out, _input_regions([f], *regions[f.name()]))
    return out


def _dst_regions(outputs, dst) -> tuple:
    """(output Buffers or None, {output name: (mins, extents)}) of a query
    over `dst`: sizes (every output over them) or one Buffer per output."""
    from .buffer import Buffer
    bufs = [dst] if isinstance(dst, Buffer) else list(dst) if isinstance(dst, (list, tuple)) \
        and dst and isinstance(dst[0], Buffer) else None
    if bufs is None:
        sizes = [int(s) for s in ([dst] if isinstance(dst, (int, np.integer)) else dst)]
        return None, {f.name(): ([0] * len(sizes), sizes) for f in outputs}
    if len(bufs) != len(outputs):
        raise ValueError(f"infer_input_bounds was given {len(bufs)} Buffers for "
                         f"{len(outputs)} outputs")
    return bufs, {f.name(): (b.mins(), [b.dim(d).extent() for d in range(b.dimensions())])
                  for f, b in zip(outputs, bufs)}


def infer_input_bounds(outputs: list, dst) -> None:
    """Halide's infer_input_bounds for the output Funcs `outputs` over `dst`
    (sizes, or the output Buffers: a bounds-query Buffer takes the proposed
    geometry); binds each unbound input ImageParam to a Buffer of the
    region the pipeline needs of it (its constraints applied). Each output
    has its own region: its own constraints and splits, its own proposal."""
    from .buffer import Buffer
    from .graph import collect_graph
    bufs, asked = _dst_regions(outputs, dst)
    graph = collect_graph([f.function() for f in outputs])
    params = [graph.images[n] for n in graph.image_names()
              if hasattr(graph.images[n], "set") and graph.images[n].get() is None]
    known = {}          # bound inputs' geometry
    for n in graph.image_names():
        src = graph.images[n]
        b = src.get() if hasattr(src, "get") else src
        if b is not None:
            known.update(_geometry_env(n, b.mins(), [b.dim(d).extent()
                                                     for d in range(b.dimensions())]))
    proposals = None
    for _ in range(MAX_PASSES):
        touched_out = {f.name(): _out_region(f, *asked[f.name()]) for f in outputs}
        touched = _touched(outputs, touched_out)
        _unbounded(touched, params)
        env = dict(known)
        for f in outputs:
            env.update(_geometry_env(f.name(), *touched_out[f.name()]))
        regions = {}
        for p in params:
            dims = touched.get(p.name(), {})
            region = [dims.get(d, (0, -1)) for d in range(p.dimensions())]
            regions[p.name()] = ([lo for lo, _ in region],
                                 [max(hi - lo + 1, 0) for lo, hi in region])
            env.update(_geometry_env(p.name(), *regions[p.name()]))
        asked = {f.name(): _propose(f"the output {f.name()}", constraints_of(f),
                                    *touched_out[f.name()], env) for f in outputs}
        new = {p.name(): _propose(f"input {p.name()}", constraints_of(p), *regions[p.name()],
                                  env) for p in params}
        if new == proposals:
            break
        proposals = new
    else:
        raise ValueError(f"inferring input bounds on the pipeline of "
                         f"{', '.join(f.name() for f in outputs)} did not converge after "
                         f"{MAX_PASSES} passes (the constraints keep growing the buffers)")
    if bufs is not None:
        for f, b in zip(outputs, bufs):
            _write_output(b, *asked[f.name()])
    for p in params:
        pmins, pextents = proposals[p.name()]
        b = Buffer(p.type(), pextents, name=f"{p.name()}_bounds")
        b.set_min(pmins)
        p.set(b)


def _write_output(b, mins, extents) -> None:
    if b.is_bounds_query():
        b.set_query_geometry(mins, extents)
    elif b.mins() != list(mins) or [b.dim(d).extent() for d in range(b.dimensions())] \
            != list(extents):
        raise ValueError(f"output Buffer {b.name()} must have mins {list(mins)} and "
                         f"extents {list(extents)} (the constraints on the output)")


# ---- at realize -----------------------------------------------------------------------------
def note_constraint() -> None:
    """Called when a constraint realize checks is set."""
    EVER_SET[0] = True


def repeat_unchecked(outputs, rec) -> bool:
    """Whether the record `rec` of a Pipeline of `outputs` (realize_fast) may
    be repeated by realize_again, which checks no constraints: not when the
    pipeline has any (a Param they name may have changed since). Callers
    test EVER_SET[0] first."""
    return rec is None or not has_constraints(outputs, rec.graph)


def has_constraints(outputs, graph) -> bool:
    """Whether realize must check expression constraints (integer ones on an
    ImageParam are checked when its Buffer is set)."""
    from .expr import Expr
    if any(constraints_of(f) for f in outputs):
        return True
    return any(isinstance(v, Expr) for n in graph.image_names()
               for v in constraints_of(graph.images[n]).values())


def check_constraints(outputs, graph, mins, extents) -> None:
    """ConstraintError (a HalideError and a ValueError), as Halide's
    `Constraint violated: im.extent.0 (10) == (f.extent.0 + 1) (6)`, when a
    buffer's geometry differs from its constraint evaluated on the geometry
    of this realization."""
    from .expr import Expr
    env = {}
    for f in outputs:
        env.update(_geometry_env(f.name(), mins, extents))
    owners = []                 # inputs first, as Halide checks them
    for n in graph.image_names():
        src = graph.images[n]
        b = src.get() if hasattr(src, "get") else src
        if b is None:
            continue
        env.update(_geometry_env(n, b.mins(), [b.dim(d).extent()
                                               for d in range(b.dimensions())]))
        owners.append((n, src))
    owners += [(f.name(), f) for f in outputs]
    for name, owner in owners:
        for (field, d), want in constraints_of(owner).items():
            if hasattr(owner, "set") and not isinstance(want, Expr):
                continue            # an ImageParam's integer constraint: checked at set
            key = f"{name}.{field}.{d}"
            if key not in env:
                continue
            try:
                value = _value(want, env, f"the {field} constraint of {name}")
            except CompileError:
                continue            # names an output of another pipeline
            if value != env[key]:
                raise ConstraintError(f"Constraint violated: {key} ({env[key]}) == {want} ({value})")
