"""The automatic scheduler's decisions, written as a schedule in Python.

An analytic pass over the Funcs of a pipeline, given the extent of every
loop (from the call's arguments or the estimates):

- a reduction whose update has too little pure parallelism (fewer pure
  points than SPARE x threads) and at least MIN_REDUCTION points, with an
  operator the tables prove, is split and rfactored: chunks of its outermost
  loop in parallel, then, inside each chunk, a second rfactor over vector
  lanes of its innermost loop (a scalar result) or the pure dimension
  vectorized (a histogram's bins), as the hand schedules of
  examples/pipelines/paper_reductions_schedules/ do;
- a pure stage with enough points runs its outermost dimension in parallel
  and its innermost one vectorized at the target's width (not where its
  lanes would run one at a time: 64-bit integer division, exp, log, ...);
- a stencil producer read by one consumer is computed per parallel strip of
  the consumer's rows (fusion.py).

A Python-int sum, whose overflow check reads the partial result, is not
proven associative as it is; pyint.py splits it into an int64 sum and a
guard before planning (`guards`: its blocks run only under the automatic
schedule, and are printed as comments). Funcs whose
default schedule is their own (NumPy's float sum order, blocked matrix
products) are not given to the planner.

The number of chunks of a reduction is CHUNKS, whatever the thread count:
the order in which a float reduction is reassociated depends only on the
pipeline, the size class of its arguments and the target, never on the
machine's threads. The tuning mode varies only choices that cannot change a
result (params.Knobs: thresholds, strips, vectors, integer chunks). Without
float reassociation (`schedule="auto-exact"`) a reduction of floats is
rfactored only when its operator does no float arithmetic (a min, max,
argmin: selects_only), which rfactor combines exactly.

Each decision is a Block: source lines (run by apply.py against the
pipeline, and printed as the schedule's Python) and the reason for it."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import ir
from .params import Knobs

CHUNKS = 32              # parallel chunks of a reduction split by rfactor
MIN_CHUNK = 1024         # the fewest iterations of a chunk
SPARE = 8                # pure points per thread below which a reduction is rfactored
MIN_REDUCTION = 1 << 18  # points of a reduction worth running in parallel
MIN_PARALLEL = 1 << 19   # points of a pure stage worth running in parallel (a parallel
                         # loop costs a wake-up of the worker threads: on a loaded machine,
                         # up to a scheduler time slice)
MAX_LANES = 16
ORDERED_LANES = 8        # lanes of an order-keeping second rfactor (each reads its own run:
                         # 8 beat 4 and 16 on float32 and float64 max, AVX-512 host)


@dataclass(eq=False)
class Block:
    """One decision: `lines` of schedule source and why (`reason`)."""

    func: str
    reason: str
    lines: list = field(default_factory=list)
    auto_only: bool = False     # printed commented out: not a schedule of the user's code
    needs: "Block" = None       # applied only after this block was
    fallback: "Block" = None    # tried instead when this block is refused


@dataclass
class Problem:
    """What the planner sees. `funcs`: the Funcs to schedule, producers
    first; `extent(expr)`: an int or None; `pure_extents(f)`: per pure
    dimension (dimension 0 first) an int or None; `func_source(f)` and
    `var_source(f, name)`: Python expressions naming a Func and one of its
    loop variables in the schedule source (None: not nameable); `label(f)`:
    the Func's name in reasons."""

    funcs: list
    extent: object
    pure_extents: object
    func_source: object
    var_source: object
    threads: int
    vector_bits: int
    float_reassociation: bool
    label: object = None
    knobs: Knobs = field(default_factory=Knobs)
    unknown_hint: str = ""      # said where an extent is not known
    guards: dict = field(default_factory=dict)  # id(Function) of the Python-int sums split by
                                                # pyint.py and of their guards -> what it is

    def name(self, f) -> str:
        return self.label(f) if self.label is not None else f.name()

    def parallel_min(self) -> int:
        return self.knobs.parallel_min or MIN_PARALLEL

    def chunks(self, types) -> int:
        """Parallel chunks of a reduction of these types: CHUNKS for floats
        (their order is no tuning choice), the knob for integers."""
        if any(t.is_float() for t in types):
            return CHUNKS
        return self.knobs.int_chunks or CHUNKS


def plan_blocks(problem: Problem) -> list:
    """[Block] for every Func of the problem, in order."""
    from ..parallel_scan_auto import scan_blocks
    from .fusion import fusable, strip_blocks
    from .stepped import stepped_blocks
    taken, named = set(), {}
    for f in problem.funcs:
        src = problem.func_source(f)
        if src is not None:
            m = re.search(r"""\[["'](.+)["']\]$""", src)
            local = _local_name(m.group(1) if m else f.name(), taken)
            named[id(f.function())] = (local, f"{local} = {src}")
    fused = {k: c for k, c in fusable(problem, problem.funcs).items()
             if k in named and id(c.function()) in named} if problem.knobs.fuse else {}
    blocks = []
    for f in problem.funcs:
        fn = f.function()
        if id(fn) not in named or id(fn) in fused:
            continue                    # not nameable, or scheduled with its consumer
        local, head = named[id(fn)]
        mine = []
        for k in range(len(fn.updates)):
            scan = scan_blocks(problem, f, k, local)      # pyhalide/parallel_scan_auto.py
            if scan is None:
                scan = stepped_blocks(problem, f, k, local)     # stepped.py
            mine += scan if scan is not None else _reduction(problem, f, k, local)
        producers = [(p, *named[id(p.function())]) for p in problem.funcs
                     if fused.get(id(p.function())) is f]
        strips = strip_blocks(problem, f, local, producers) if producers else []
        if id(fn) in problem.guards:
            for b in mine:
                b.auto_only = True
        if strips:
            mine += strips
        else:
            mine += _pure(problem, f, local)
            for p, plocal, phead in producers:       # not fused after all: on their own
                more = _pure(problem, p, plocal)
                first = next((b for b in more if b.lines), None)
                if first is not None:
                    first.lines.insert(0, phead)
                mine += more
        first = next((b for b in mine if b.lines), None)
        if first is not None:
            first.lines.insert(0, head)
        blocks += mine
    return blocks


def _local_name(name: str, taken: set) -> str:
    base = re.sub(r"\W", "_", name).strip("_") or "f"
    if base[0].isdigit() or base in ("p", "ph"):
        base = "f_" + base
    out, k = base, 1
    while out in taken:
        k += 1
        out = f"{base}{k}"
    taken.add(out)
    return out


def lanes_for(types, vector_bits: int) -> int:
    """Vector lanes of a stage: the target's width in its narrowest
    element type, at most MAX_LANES."""
    bits = min(max(t.bits, 8) for t in types)
    return max(2, min(MAX_LANES, vector_bits // bits))


def pow2_floor(n: int) -> int:
    return 1 << (max(1, n).bit_length() - 1)


def _pow2_ceil(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


# reductions -------------------------------------------------------------------------------
def _reduction(pb: Problem, f, k: int, local: str) -> list:
    """Blocks rfactoring update k of f, or [] (with no block when it is
    better left as it is)."""
    from ..associativity import prove_associativity
    fn = f.function()
    label = pb.name(f)
    d = fn.updates[k]
    rdims = [dim.var for dim in d.schedule.dims if dim.is_rvar]
    if not rdims:
        return []
    ext = {rv.name: pb.extent(rv.extent) for rv in d.schedule.rvars}
    total = reduction_points(pb, f, k)
    if total is None:
        return [Block(label, f"{label}.update({k}): a reduction extent is not known"
                               f"{pb.unknown_hint}: kept serial")]
    pure = _update_pure_points(pb, f, d)
    if pure is None or pure >= SPARE * pb.threads:
        return []
    if total < MIN_REDUCTION:
        return [Block(label, f"{label}.update({k}): {total} reduction points < "
                               f"{MIN_REDUCTION}: kept serial")]
    op = prove_associativity(f.update(k))
    if not op.associative:
        return [Block(label, f"{label}.update({k}): operator not proven associative "
                               f"({op.reason}): kept serial")]
    types = list(fn.output_types)
    if not pb.float_reassociation and any(t.is_float() for t in types) \
            and pb.guards.get(id(fn)) != "guard" \
            and not selects_only(op):       # a guard's float order reaches no result
        return [Block(label, f"{label}.update({k}): a float reduction, and float "
                               f"reassociation is off: kept serial")]
    if not pb.knobs.rfactor_ints and not any(t.is_float() for t in types):
        return [Block(label, f"{label}.update({k}): a tuning candidate that keeps integer "
                               f"reductions serial")]
    chunks = pb.chunks(types)
    s = f"{local}.update({k})"
    outer = rdims[-1]
    eo = ext[outer]
    intm, u = f"{local}_intm", f"{local}_u"
    why = (f"{label}: {pure} pure point{'s' if pure != 1 else ''} < {SPARE}x"
           f"{pb.threads} threads, {total} reduction points")
    lines = []
    if len(rdims) == 1:
        chunk = max(_pow2_ceil(-(-eo // chunks)), MIN_CHUNK)
        if chunk >= eo:
            return []
        ro, ri = f"{local}_ro", f"{local}_ri"
        lines += [f"{ro}, {ri}, {u} = ph.RVar({ro!r}), ph.RVar({ri!r}), ph.Var({u!r})",
                  f"{s}.split({pb.var_source(f, outer)}, {ro}, {ri}, {chunk})",
                  f"{intm} = {s}.rfactor({ro}, {u})"]
        why += f": rfactor over {_user(pb, f, outer)} in chunks of {chunk}"
        inner, inner_ext, inner_src = None, chunk, ri
        run_src, run_ext = ri, chunk         # the intermediate's outermost reduction loop
    else:
        if eo >= 8 * chunks:         # else the guard of a split would sit in every iteration
            chunk = pow2_floor(eo // chunks)
            ro, ri = f"{local}_ro", f"{local}_ri"
            lines += [f"{ro}, {ri}, {u} = ph.RVar({ro!r}), ph.RVar({ri!r}), ph.Var({u!r})",
                      f"{s}.split({pb.var_source(f, outer)}, {ro}, {ri}, {chunk})",
                      f"{intm} = {s}.rfactor({ro}, {u})"]
            why += f": rfactor over {_user(pb, f, outer)} in chunks of {chunk}"
            run_src, run_ext = ri, chunk
        elif eo >= 4:
            lines += [f"{u} = ph.Var({u!r})",
                      f"{intm} = {s}.rfactor({pb.var_source(f, outer)}, {u})"]
            why += f": rfactor over {_user(pb, f, outer)} ({eo} partial results)"
            run_src, run_ext = pb.var_source(f, rdims[-2]), ext[rdims[-2]]
        else:
            return [Block(label, f"{why}, but its outermost loop has only {eo} "
                                   f"iterations: kept serial")]
        inner, inner_ext = rdims[0], ext[rdims[0]]
        inner_src = pb.var_source(f, inner)
    lines += [f"{intm}.compute_root()", f"{intm}.update(0).parallel({u})"]
    blocks = [Block(label, why, lines)]
    lanes = lanes_for(types, pb.vector_bits)
    px = pb.pure_extents(f)
    if fn.args and px and px[0] is not None and px[0] >= lanes:
        x = f"{local}.args()[0]"
        blocks.append(Block(label, f"{label}: partial results vectorized {lanes} wide over "
                                     f"{fn.args[0]} ({px[0]} points)",
                            [f"{intm}.vectorize({x}, {lanes})",
                             f"{s}.vectorize({x}, {lanes})"], needs=blocks[0]))
    elif inner_ext is not None and inner_ext >= 2 * lanes:
        over = 'its chunk' if inner is None else _user(pb, f, inner)
        rio, rii, v = f"{local}_rio", f"{local}_rii", f"{local}_v"
        head = f"{rio}, {rii}, {v} = ph.RVar({rio!r}), ph.RVar({rii!r}), ph.Var({v!r})"
        tail = f".compute_at({intm}, {u}).vectorize({v}).update(0).vectorize({v})"
        lane = Block(label, f"{label}: each partial result reduced {lanes} lanes wide over "
                            f"{over} (a second rfactor), the lanes merged per partial result",
                     [head, f"{intm}.update(0).split({inner_src}, {rio}, {rii}, {lanes})"
                            f".rfactor({rii}, {v})" + tail], needs=blocks[0])
        # an operator that is not commutative (a float max keeps the first of
        # -0.0 and +0.0) cannot take every lanes-th value per lane; each lane
        # then reduces a consecutive run of the intermediate's outermost
        # reduction loop, the runs merged in order
        ordered = min(lanes, ORDERED_LANES)
        if run_ext is not None and run_ext >= 2 * ordered:
            run = -(-run_ext // ordered)
            lane.fallback = Block(
                label, f"{label}: each partial result reduced {ordered} lanes wide, a run of "
                       f"{run} consecutive iterations of its outermost loop per lane (a second "
                       f"rfactor that keeps the order of a non-commutative operator), the "
                       f"runs merged in order",
                [head, f"{intm}.update(0).split({run_src}, {rio}, {rii}, {run})"
                       f".rfactor({rio}, {v})" + tail], needs=blocks[0])
        blocks.append(lane)
    return blocks


def selects_only(op) -> bool:
    """Whether the operator's float values are chosen among its operands
    (min, max, select, comparisons; no float arithmetic or conversion): its
    partial results, combined in an order rfactor accepts for it, are the
    serial result bit for bit, so no float reassociation is needed."""
    stack, seen = [getattr(o, "node", o) for o in op.ops], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, (ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Mod, ir.Cast, ir.Call)) \
                and n.type.is_float():
            return False
        stack.extend(ir.children(n))
    return True


def reduction_points(pb: Problem, f, k: int):
    """The number of points of update k of f's reduction loops, or None
    when one of their extents is not known."""
    d = f.function().updates[k]
    ext = {rv.name: pb.extent(rv.extent) for rv in d.schedule.rvars}
    total = 1
    for dim in d.schedule.dims:
        if dim.is_rvar:
            if ext.get(dim.var) is None:
                return None
            total *= ext[dim.var]
    return total


def worth_rfactor(pb: Problem, f, k: int) -> bool:
    """Whether update k of f has too little pure parallelism and enough
    reduction points for _reduction to rfactor it (if its operator is proven)."""
    pure = _update_pure_points(pb, f, f.function().updates[k])
    total = reduction_points(pb, f, k)
    return pure is not None and pure < SPARE * pb.threads and total is not None \
        and total >= MIN_REDUCTION


def _user(pb: Problem, f, name: str) -> str:
    """A loop variable's name as the user wrote it, for reasons."""
    src = pb.var_source(f, name)
    m = re.search(r"""["']([^"']+)["']\)?\]$""", src or "")
    return m.group(1) if m else name


def _update_pure_points(pb: Problem, f, d):
    """The number of points of the pure loops of update d (1 when it has
    none), or None when one of their extents is not known."""
    px = pb.pure_extents(f)
    args = list(f.function().args)
    n = 1
    for dim in d.schedule.dims:
        if dim.is_rvar:
            continue
        if dim.var not in args or px is None or px[args.index(dim.var)] is None:
            return None
        n *= px[args.index(dim.var)]
    return n


# pure stages ------------------------------------------------------------------------------
def _pure(pb: Problem, f, local: str) -> list:
    """Blocks for f's pure definition and for its updates whose loops are
    pure or that have enough pure parallelism."""
    fn = f.function()
    label = pb.name(f)
    if not fn.args:
        return []
    px = pb.pure_extents(f)
    if px is None or any(e is None for e in px):
        return [Block(label, f"{label}: its extents are not known{pb.unknown_hint}: "
                               f"left as it is")]
    ext = dict(zip(fn.args, px))
    lanes = lanes_for(fn.output_types, pb.vector_bits)
    if not pb.knobs.vectorize or scalar_only(fn, {id(g.function()) for g in pb.funcs}):
        lanes = 0
    work = _inner_work(pb, fn, {id(g.function()) for g in pb.funcs})
    if fn.pure.predicates:
        # a pure definition skipping the points its scan writes (array_scan.py):
        # its few points keep their loop (a split would test the skip per point)
        blocks = [Block(label, f"{label}: its pure definition skips the points an update "
                               f"writes: left as it is")]
    else:
        blocks = [_pure_stage(pb, label, local, list(fn.args), ext,
                              0 if _copies(fn.pure, fn.args) or _fills(fn.pure) else lanes,
                              work=work)]
    for k, d in enumerate(fn.updates):
        dims = [dim.var for dim in d.schedule.dims]
        if not dims or any(dim.var not in ext for dim in d.schedule.dims if not dim.is_rvar):
            continue                    # (no loops: an update of one point, `c[0] = h[0]`)
        rvars = {dim.var for dim in d.schedule.dims if dim.is_rvar}
        if rvars and (_update_pure_points(pb, f, d) or 0) < SPARE * pb.threads:
            continue                    # a reduction: _reduction decided
        blocks.append(_pure_stage(pb, f"{label}.update({k})", f"{local}.update({k})", dims,
                                  ext, 0 if _copies(d, fn.args) else lanes, rvars, fn.args[0]))
    return [b for b in blocks if b is not None]


def _pure_stage(pb: Problem, label, stage: str, dims: list, ext: dict, lanes: int,
                rvars=frozenset(), stride_one=None, work=1):
    """A block vectorizing the innermost loop of a stage (loops `dims`,
    innermost first) and running its outermost in parallel, where they are
    pure and long enough (points times `work`, the reduction iterations
    computed inside each point); None when nothing pays. An update keeps the
    default loop order where it would move the stride-1 Var inward
    (specialize._stride_one_inner): its outermost loop runs in parallel only
    when it is not that Var."""
    points = 1
    for v in dims:
        if v not in rvars:
            points *= ext[v]
    calls, said = [], []
    inner, outer = dims[0], dims[-1]
    chunk = max(lanes, _pow2_ceil(-(-points // (SPARE * pb.threads))))
    if len(dims) == 1 and not rvars and points * work >= pb.parallel_min() and chunk < points:
        # the chunk loop keeps the Var's name: a Func the default schedule
        # computes at that loop (a scalar local to the Python loop) stays there
        xo, xi = f"ph.Var({inner!r})", f"{_ident(stage)}_xi"
        vec = f".vectorize({xi}, {lanes})" if lanes else ""
        return Block(label, f"{label}: {points} points" + (f" of {work} reduction iterations "
                            f"each" if work > 1 else "") + f": {-(-points // chunk)} parallel "
                            f"tasks of {chunk}" + (f", vectorized {lanes} wide" if lanes else ""),
                     [f"{xi} = ph.Var({xi!r})",
                      f"{stage}.split({xo}, {xo}, {xi}, {chunk}).parallel({xo})" + vec])
    if lanes and inner not in rvars and ext[inner] >= lanes:
        calls.append(f".vectorize(ph.Var({inner!r}), {lanes})")
        said.append(f"vectorized {lanes} wide over {inner}")
    if len(dims) > 1 and outer not in rvars and points * work >= pb.parallel_min() \
            and ext[outer] >= 2 * pb.threads and (not rvars or inner not in rvars
                                                  or outer != stride_one):
        calls.append(f".parallel(ph.Var({outer!r}))")
        said.append(f"parallel over {outer}")
    if not calls:
        return None
    sizes = "x".join(str(ext[v]) for v in dims if v not in rvars)
    return Block(label, f"{label}: {sizes} points: " + ", ".join(said), [stage + "".join(calls)])


def _copies(d, args) -> bool:
    """Whether definition d stores, at the Func's pure coordinates `args`,
    values that are each a read of a Func or input at those coordinates in
    order (any further arguments the same at every point): a copy, such as the write-back
    of an array argument or a slice of a time-stepped state. Its serial
    loop is a memory copy LLVM vectorizes itself (the default schedule
    fuses its dimensions when dense); explicit vectors only add a tail
    (diffusion 128x128, 100 steps: 4.56 -> 4.35 ms CPU, the default's)."""
    if d is None or tuple(_var_name(a) for a in d.args) != tuple(args):
        return False
    for v in d.values:
        if not isinstance(v, ir.Call) or v.call_type == ir.INTRINSIC \
                or len(v.args) < len(args):
            return False
        if tuple(_var_name(a) for a in v.args[:len(args)]) != tuple(args) \
                or any(set(ir.free_vars(a)) & set(args) for a in v.args[len(args):]):
            return False
    return True


def _fills(d) -> bool:
    """Whether definition d stores one constant at every point (the zero
    fill of `np.zeros` that updates then overwrite): its serial loop is a
    memset to LLVM; explicit vectors of a pure dimension shorter than a few
    vectors only add a tail (slowparts, a (11, 5, 20, 10) fill vectorized 8
    wide over its 10-point axis: 0.147 -> 0.178 ms CPU)."""
    return d is not None and bool(d.values) and all(isinstance(v, ir.Const) for v in d.values)


def _var_name(e):
    return e.name if isinstance(e, ir.Variable) else None


def _inner_work(pb: Problem, fn, roots: set) -> int:
    """The reduction iterations one point of fn computes in the Funcs it
    calls that are not scheduled on their own (`roots`): computed inside its
    loops (a running value of the Python loop's body), summed over them and
    the Funcs they call; unknown extents count 1."""
    total, seen, todo = 0, set(), [fn]
    while todo:
        g = todo.pop()
        for d in g.definitions():
            for c in ir.find_calls(list(d.values) + list(d.args) + list(d.predicates)):
                h = c.func if c.call_type == ir.FUNC else None
                if h is None or id(h) in roots or id(h) in seen or h is fn:
                    continue
                seen.add(id(h))
                todo.append(h)
                for u in h.updates:
                    n = 1
                    for rv in u.schedule.rvars:
                        e = pb.extent(rv.extent)
                        n *= e if e else 1
                    total += n
    return max(1, total)


def _ident(text: str) -> str:
    return re.sub(r"\W+", "_", text).strip("_")


# no vector instruction for these: LLVM computes their lanes one at a time
# (exp, log, tanh, sin, cos and tan are vector code: lowering/codegen_math.py,
# codegen_trig.py)
_SCALAR_CALLS = frozenset({"asin", "acos", "atan", "sinh", "cosh", "pow", "atan2", "fmod",
                           "exp2", "cbrt"})


def scalar_only(fn, roots: set) -> bool:
    """Whether f's definitions, with the Funcs inlined into them (those not
    in `roots`), divide 64-bit integers by a non-constant (np.roll's
    modulo, Python's int division) or call a math function without a vector
    instruction (sin, pow, ...): vectors of them cost more than scalars."""
    seen, todo = set(), [fn]
    while todo:
        g = todo.pop()
        if id(g) in seen:
            continue
        seen.add(id(g))
        stack = [x for d in g.definitions() for x in list(d.values) + list(d.args)]
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            if isinstance(n, (ir.Div, ir.Mod)) and n.type.is_int() and n.type.bits == 64 \
                    and not isinstance(n.b, ir.Const):
                return True
            if isinstance(n, ir.Call) and n.call_type != ir.FUNC and n.name in _SCALAR_CALLS:
                return True
            if isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func is not None \
                    and id(n.func) not in roots:
                todo.append(n.func)
            stack.extend(ir.children(n))
    return False
