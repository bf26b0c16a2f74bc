"""The automatic scheduler (issue 18): `@ph.pipeline(schedule="auto")`,
`"auto-exact"`, and `ph.Pipeline(outputs).apply_autoscheduler(...)`.

params.py   AutoschedulerParams and the machine (vector width, threads)
plan.py     the decisions, as blocks of schedule source with their reasons
fusion.py   stencil chains: a producer computed per strip of its consumer
apply.py    running the blocks (a refused block is undone) and the schedule
            source they make
funcapi.py  the Func API entry: estimates and Pipeline.apply_autoscheduler
tune.py     the tuning mode: candidate plans timed on a call's arguments

The @pipeline side (pyhalide/autoschedule_frontend.py) hands schedule_specialization a
view of one specialization: its Funcs, how to name them in the source, and
the loop extents of the call's size class."""
from __future__ import annotations

from .. import ir
from ..ir.config import config, debug_print
from ..simplify import simplify
from .apply import Applied, run_blocks
from .params import NAME, AutoschedulerParams, Knobs, vector_bits
from .plan import Problem, plan_blocks

__all__ = ["AutoschedulerParams", "Applied", "schedule_specialization", "evaluate"]


def threads() -> int:
    n = config.num_threads
    return n if isinstance(n, int) and n > 0 else 1


def evaluate(e, values: dict):
    """The integer value of Expr node e with its parameters replaced by
    `values` (name -> int), or None when it is not a constant then."""
    free = ir.free_vars(e)
    if any(name not in values for name in free):
        return None
    sub = {name: ir.const(v.type, values[name]) for name, v in free.items()}
    out = simplify(ir.substitute(e, sub))
    return int(out.value) if isinstance(out, ir.Const) else None


def schedule_specialization(view, mode: str, params: AutoschedulerParams = None,
                            knobs: Knobs = None) -> Applied:
    """Plan and apply the automatic schedule of a @pipeline specialization
    (`view`: autoschedule_frontend.AutoView); mode "auto" or "auto-exact";
    `params` (their parallelism: else the thread count), `knobs` (a tuning
    candidate's choices; default: the planner's)."""
    import pyhalide
    params = params or AutoschedulerParams(NAME, {})
    n_threads = params.parallelism if "parallelism" in params.extra else threads()
    funcs = view.funcs()
    problem = Problem(funcs=funcs, extent=lambda e: evaluate(e, view.values),
                      pure_extents=view.pure_extents, func_source=view.func_source,
                      var_source=view.var_source, label=view.label,
                      threads=n_threads,
                      vector_bits=vector_bits(),
                      float_reassociation=mode == "auto" and params.float_reassociation,
                      knobs=knobs or Knobs())
    try:
        blocks = plan_blocks(problem)
    except Exception as e:          # noqa: BLE001 - never fail where the serial schedule works
        debug_print(1, f"autoschedule {view.name}: planning failed ({type(e).__name__}: {e}): "
                       f"the default schedule is kept")
        blocks = []
    return run_blocks(view.name, blocks, {"p": view.view, "ph": pyhalide}, funcs,
                      view.header(mode))
