"""Halide's scheduling warnings and `Func.bound`.

Printed to stdout, as Halide 21's Python bindings print them, each time a
pipeline's graph is built anew (Halide lowers again when a Func changed):
- an update left unscheduled while another stage of its Func was scheduled
  (ScheduleFunctions.cpp; `f.update(i).unscheduled()` silences it);
- `f.bound(x, min, extent)` on a Func computed inline (Inline.cpp).

A stage counts as scheduled ("touched" in Halide) when its loops were split,
reordered or given a kind (parallel, vectorized, unrolled), races were
allowed, or rfactor, partition or unscheduled() was called on it.

`bound` gives the region a Func computes in that dimension (bounds
inference, lowering/bounds_inference.py); a region needed beyond it is a
ValueError at run time with Halide's message. On an output, realizing a
region the bound does not cover is refused at the call for constant bounds
(Halide checks it for a given Buffer and leaves the rest of a larger
output unwritten)."""
from __future__ import annotations

from . import ir
from .errors import HalideError

_TOUCHED = "touched"      # attribute a StageSchedule gets when marked scheduled


def mark_touched(d: ir.Definition) -> None:
    setattr(d.schedule, _TOUCHED, True)


def _default_dims(fn: ir.Function, d: ir.Definition, pure: bool) -> list:
    if pure:
        return list(fn.args)
    lhs = [a.name for a in d.args if isinstance(a, ir.Variable) and a.kind == ""]
    return [rv.name for rv in d.schedule.rvars] + lhs


def touched(fn: ir.Function, d: ir.Definition, pure: bool) -> bool:
    s = d.schedule
    return (getattr(s, _TOUCHED, False) or bool(s.splits) or s.allow_race_conditions
            or any(x.kind != "serial" for x in s.dims)
            or [x.var for x in s.dims] != _default_dims(fn, d, pure))


def unscheduled_updates(fn: ir.Function) -> list:
    """Halide's warning for the updates of fn left unscheduled."""
    stages = [(fn.pure, True)] + [(u, False) for u in fn.updates]
    if not any(touched(fn, d, p) for d, p in stages if d is not None):
        return []
    return [f"Warning: Update definition {i} of function {fn.name} has not been scheduled, "
            f"even though some other definitions have been. You may have forgotten to "
            f"schedule it. If this was intentional, call {fn.name}.update({i}).unscheduled() "
            f"to suppress this warning."
            for i, u in enumerate(fn.updates) if not touched(fn, u, False)]


# Func.bound, bound_extent, align_bounds, align_extent ----------------------------------
def bounds_of(fn: ir.Function) -> list:
    """[ir.FuncBound] in the order given (kept on the Function's schedule, so
    wrappers and clones see them as Halide's do)."""
    return fn.schedule.bounds


def add_bound(fn: ir.Function, b: ir.FuncBound) -> None:
    """Appended, as in Halide (each applies to the region the ones before
    it gave); the same kind of bound on the same Var again replaces it."""
    kind = (b.min is None, b.extent is None, b.modulus is None, b.remainder is None)
    # an EditedList, as every list of a Function: the edit stamp keeps covering
    # it (ir/function.py tracked), or no compiled entry is made for the pipeline
    fn.schedule.bounds = ir.EditedList([x for x in bounds_of(fn) if x.var != b.var or kind != (
        x.min is None, x.extent is None, x.modulus is None, x.remainder is None)] + [b])


def _inlined(fn: ir.Function) -> bool:
    level = fn.schedule.compute_level
    return not fn.updates and (level is None or level.is_inlined())


def pipeline_warnings(env: dict, outputs: list) -> list:
    out = []
    for name in sorted(env):
        fn = env[name]
        out += unscheduled_updates(fn)
        if name in outputs:
            continue
        for b in bounds_of(fn) if _inlined(fn) else ():
            if b.min is not None:
                out.append(f"Warning: It is meaningless to bound dimension {b.var} of function "
                           f"{fn.name} to be within [{ir.expr_to_str(b.min)}, "
                           f"{ir.expr_to_str(b.extent)}] because the function is scheduled "
                           f"inline.")
            elif b.modulus is not None:
                rem = "(undefined)" if b.remainder is None else ir.expr_to_str(b.remainder)
                out.append(f"Warning: It is meaningless to align the bounds of dimension "
                           f"{b.var} of function {fn.name} to have modulus/remainder "
                           f"[{ir.expr_to_str(b.modulus)}, {rem}] because the function is "
                           f"scheduled inline.")
    return out


def emit(env: dict, outputs: list) -> None:
    for line in pipeline_warnings(env, outputs):
        print(line)


def check_output_region(fn: ir.Function, mins: list, sizes: list) -> None:
    """HalideError when f.bound does not cover the region realized (constant bounds)."""
    for b in bounds_of(fn):
        var, lo, ext = b.var, b.min, b.extent
        d = fn.args.index(var)
        if not (isinstance(lo, ir.Const) and isinstance(ext, ir.Const)):
            continue
        blo, bhi = lo.value, lo.value + ext.value - 1
        rlo, rhi = mins[d], mins[d] + sizes[d] - 1
        if sizes[d] > 0 and (rlo < blo or rhi > bhi):
            raise HalideError(f"Error: Bounds given for {fn.name} in {var} (from {blo} to {bhi}) "
                              f"do not cover required region (from {rlo} to {rhi})")

