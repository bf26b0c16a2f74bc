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
from .plan import Problem, plan_blocks, reduction_points, worth_rfactor
from .pyint import MAX_PLANNED

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
    funcs = list(view.funcs())
    guards = {}         # id(guard Function) -> (its name in the schedule, the sum's Func)

    def func_source(f):
        g = guards.get(id(f.function()))
        return f"guards[{g[0]!r}]" if g else view.func_source(f)

    def var_source(f, name):
        g = guards.get(id(f.function()))
        return view.var_source(g[1] if g else f, name)

    def label(f):
        g = guards.get(id(f.function()))
        return g[0] if g else view.label(f)
    problem = Problem(funcs=funcs, extent=lambda e: evaluate(e, view.values),
                      pure_extents=view.pure_extents, func_source=func_source,
                      var_source=var_source, label=label,
                      threads=n_threads,
                      vector_bits=vector_bits(),
                      float_reassociation=mode == "auto" and params.float_reassociation,
                      knobs=knobs or Knobs())
    if problem.knobs.rfactor_ints:
        def worth(f, k):
            return worth_rfactor(problem, f, k) and reduction_points(problem, f, k) < MAX_PLANNED
        for s, g in view.split_python_int_sums(worth):
            guards[id(g.function())] = (f"{view.label(s)}_guard", s)
            problem.guards[id(s.function())] = "sum"
            problem.guards[id(g.function())] = "guard"
            funcs.insert(next(i for i, f in enumerate(funcs) if f is s) + 1, g)
    try:
        blocks = plan_blocks(problem)
    except Exception as e:          # noqa: BLE001 - never fail where the serial schedule works
        debug_print(1, f"autoschedule {view.name}: planning failed ({type(e).__name__}: {e}): "
                       f"the default schedule is kept")
        blocks = []
    namespace = {"p": view.view, "ph": pyhalide,
                 "guards": {guards[id(f.function())][0]: f for f in funcs
                            if id(f.function()) in guards}}
    return run_blocks(view.name, blocks, namespace, funcs, view.header(mode))
