"""Time-stepped updates: one update over an RDom (the points of a state,
the steps) that reads the state written by the step before
(frontend_ast/carried_arrays.py: `u[1:-1] = u[1:-1] + k*(u[:-2] - ...)`
in a loop, read at slot `t % 2`, written at slot `(t + 1) % 2`).

Its steps run in order; the points of one step are independent when the
race check proves it (lowering/stage_races.races: the slot read differs from the
slot written, and the step loop is outside the point loops), so the
innermost point loop is vectorized at the target's width and, where a step
has enough points, the outermost point loop runs in parallel (one parallel
loop per step). The innermost loop keeps its serial form where every read
in the update is dense along it (`dense_reads`): LLVM vectorizes that loop
itself, and faster than explicit vectors (CPU, 2 threads, load 16: a 2-D
float32 heat step 0.585 -> 0.678 ms with 16 lanes, grayscott 1.86 -> 2.11;
diffusion's clamped reads gain, 4.46 -> 2.03)."""
from __future__ import annotations

from .. import ir
from ..lowering.stage_races import races
from .plan import Block, Problem, lanes_for, scalar_only


def stepped_blocks(pb: Problem, f, k: int, local: str):
    """Blocks for update k of f when it is time-stepped (see the module
    docstring): a list (empty when nothing pays), or None when it is not."""
    fn = f.function()
    d = fn.updates[k]
    dims = d.schedule.dims
    if len(dims) < 2 or not all(dm.is_rvar for dm in dims):
        return None
    free = 0                    # the point loops: the innermost loops free of races
    while free < len(dims) and not races(fn, d, dims[free]):
        free += 1
    if free == 0 or free == len(dims):
        return None             # no point loop, or no serial step loop outside them
    ext = {rv.name: pb.extent(rv.extent) for rv in d.schedule.rvars}
    sizes = [ext.get(dm.var) for dm in dims[:free]]
    label = f"{pb.name(f)}.update({k})"
    if any(s is None for s in sizes):
        return [Block(pb.name(f), f"{label}: time-stepped, but the extent of a point loop is "
                                  f"not known{pb.unknown_hint}: kept serial")]
    points = 1
    for s in sizes:
        points *= s
    lanes = lanes_for(fn.output_types, pb.vector_bits)
    if not pb.knobs.vectorize or scalar_only(fn, {id(g.function()) for g in pb.funcs}):
        lanes = 0
    calls, said = [], []
    dense = dense_reads(d, dims[0].var)
    if lanes and sizes[0] >= lanes and not dense:
        calls.append(f".vectorize({pb.var_source(f, dims[0].var)}, {lanes})")
        said.append(f"vectorized {lanes} wide over {dims[0].var}")
    elif lanes and sizes[0] >= lanes:
        said.append(f"{dims[0].var} left to LLVM's vectorizer (dense reads)")
    outer = free - 1
    if outer > 0 and points >= pb.parallel_min() and sizes[outer] >= 2 * pb.threads:
        calls.append(f".parallel({pb.var_source(f, dims[outer].var)})")
        said.append(f"parallel over {dims[outer].var}")
    if not calls:
        return [Block(pb.name(f), f"{label}: time-stepped, {points} points per step: "
                                  + (f"{said[0]}: " if said else "nothing pays: ")
                                  + "kept serial")]
    return [Block(pb.name(f), f"{label}: time-stepped ({dims[free].var} serial), "
                              f"{points} points per step: " + ", ".join(said),
                  [f"{local}.update({k})" + "".join(calls)])]


def dense_reads(d, var: str) -> bool:
    """Whether definition d writes and reads along loop variable `var`
    consecutive elements: every read of a Func or input (in its values,
    arguments and predicates) and its own arguments use var only in their
    first argument, as var plus terms free of it."""
    if any(var in ir.free_vars(a) for a in d.args[1:]) or \
            (d.args and _coefficient(d.args[0], var) not in (0, 1)):
        return False                # a write not along the loop's elements
    for c in ir.find_calls(list(d.values) + list(d.args) + list(d.predicates)):
        if c.call_type == ir.INTRINSIC or not c.args:
            continue
        if any(var in ir.free_vars(a) for a in c.args[1:]):
            return False
        if var in ir.free_vars(c.args[0]) and _coefficient(c.args[0], var) != 1:
            return False
    return True


def _coefficient(e, var: str):
    """The coefficient of `var` in e when e is var plus or minus terms free
    of it (sums and differences), else None."""
    if isinstance(e, ir.Variable) and e.name == var:
        return 1
    if var not in ir.free_vars(e):
        return 0
    if isinstance(e, (ir.Add, ir.Sub)):
        a, b = _coefficient(e.a, var), _coefficient(e.b, var)
        if a is None or b is None:
            return None
        return a + b if isinstance(e, ir.Add) else a - b
    return None
