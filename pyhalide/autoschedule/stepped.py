"""Time-stepped updates: one update over an RDom (the points of a state,
the steps) that reads the state written by the step before
(frontend_ast/carried_arrays.py: `u[1:-1] = u[1:-1] + k*(u[:-2] - ...)`
in a loop, read at slot `t % 2`, written at slot `(t + 1) % 2`).

Its steps run in order; the points of one step are independent when the
race check proves it (lowering/stage_races.races: the slot read differs from the
slot written, and the step loop is outside the point loops), so the
innermost point loop is vectorized at the target's width and, where a step
has enough points, the outermost point loop runs in parallel (one parallel
loop per step)."""
from __future__ import annotations

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
    if lanes and sizes[0] >= lanes:
        calls.append(f".vectorize({pb.var_source(f, dims[0].var)}, {lanes})")
        said.append(f"vectorized {lanes} wide over {dims[0].var}")
    outer = free - 1
    if outer > 0 and points >= pb.parallel_min() and sizes[outer] >= 2 * pb.threads:
        calls.append(f".parallel({pb.var_source(f, dims[outer].var)})")
        said.append(f"parallel over {dims[outer].var}")
    if not calls:
        return [Block(pb.name(f), f"{label}: time-stepped, {points} points per step: "
                                  f"nothing pays: kept serial")]
    return [Block(pb.name(f), f"{label}: time-stepped ({dims[free].var} serial), "
                              f"{points} points per step: " + ", ".join(said),
                  [f"{local}.update({k})" + "".join(calls)])]
