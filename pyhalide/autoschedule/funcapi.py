"""The Func API's automatic scheduling, as in Halide 21:
`f.set_estimates([(min, extent), ...])`, `ImageParam.set_estimates(...)`,
then `ph.Pipeline(outputs).apply_autoscheduler(target=None,
params=ph.AutoschedulerParams("pyhalide", {...}))`, which schedules the
outputs and every Func with update definitions (the others stay inlined, as
Halide's default schedule has them) and returns an Applied whose
`.schedule_source` is the schedule as Python: a function of `p`, where
`p.funcs[name]` is the Func of that name (`Pipeline.funcs()`)."""
from __future__ import annotations

import weakref

from ..errors import CompileError
from ..graph import collect_graph
from ..source import at, user_location
from . import evaluate
from .apply import run_blocks
from .params import NAME, AutoschedulerParams, vector_bits
from .plan import Problem, plan_blocks

# ir.Function or ImageParam -> [(min, extent)] per dimension
_ESTIMATES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def set_estimates(obj, key, estimates) -> None:
    """Record the estimated region [(min, extent), ...] of `obj` (a Func or
    ImageParam; `key` is what it is stored under)."""
    out = []
    for item in estimates:
        try:
            lo, n = item
            lo, n = int(lo), int(n)
        except (TypeError, ValueError):
            raise ValueError(f"set_estimates of {obj.name()} takes (min, extent) pairs of "
                             f"integers, one per dimension, not {item!r}") from None
        if n < 0:
            raise ValueError(f"set_estimates of {obj.name()}: extent {n} is negative")
        out.append((lo, n))
    if len(out) != obj.dimensions():
        raise ValueError(f"set_estimates of {obj.name()} needs one (min, extent) pair per "
                         f"dimension: {obj.dimensions()}, got {len(out)}")
    _ESTIMATES[key] = out


def estimates_of(key):
    return _ESTIMATES.get(key)


def func_of(fn):
    """A Func object for Function fn (of a graph, or built by the scheduler)."""
    from ..func import Func, set_pure_vars
    from ..var import Var
    f = Func.__new__(Func)
    f._function = fn
    set_pure_vars(f, [Var(a) for a in fn.args])
    return f


class _FuncsView:
    """The `p` a Func API schedule receives: p.funcs[name]."""

    def __init__(self, funcs: dict):
        self.funcs = funcs


def apply_autoscheduler(pipeline, target=None, params=None):
    """Pipeline.apply_autoscheduler (see the module docstring)."""
    import pyhalide
    if params is None:
        raise TypeError("apply_autoscheduler() needs params=ph.AutoschedulerParams("
                        f"{NAME!r}, {{...}})")
    if not isinstance(params, AutoschedulerParams):
        raise TypeError(f"params must be an AutoschedulerParams, not {type(params).__name__}")
    if params.tune:
        raise NotImplementedError(
            "the tuning mode (tune > 0) times schedules on a call's arguments, which "
            "apply_autoscheduler does not have: give the params as a @pipeline's schedule "
            "(@ph.pipeline(schedule=ph.AutoschedulerParams(\"pyhalide\", {\"tune\": \"4\"}))), "
            "or use tune=0 here")
    outputs = pipeline.outputs()
    graph = collect_graph([f.function() for f in outputs])
    values = {}
    for name, img in graph.images.items():
        if not hasattr(img, "_geometry"):
            continue                        # a Buffer: its extents are constants
        est = estimates_of(img)
        if est is None:
            raise CompileError(f"apply_autoscheduler: input {name} has no estimates; call "
                               f"{name}.set_estimates([(min, extent), ...]) first{at(user_location())}")
        for k, (lo, n) in enumerate(est):
            values[f"{name}.min.{k}"] = lo
            values[f"{name}.extent.{k}"] = n
    unestimated = []        # integer Params without an estimate: extents they give are unknown
    for name, prm in graph.params.items():
        if not (prm.type().is_int() or prm.type().is_uint()):
            continue
        if prm.estimate() is None:
            unestimated.append(name)
        else:
            values[name] = int(prm.estimate())
    out_fns = {id(f.function()) for f in outputs}
    for f in outputs:
        if f.dimensions() and estimates_of(f.function()) is None:
            raise CompileError(f"apply_autoscheduler: output Func {f.name()} has no estimates; "
                               f"call {f.name()}.set_estimates([(min, extent), ...]) first"
                               f"{at(user_location())}")
    funcs = {}
    given = {f.function(): f for f in outputs}
    for fn in reversed(list(graph.env.values())):          # producers first
        if id(fn) not in out_fns and not fn.updates:
            continue
        funcs[fn.name] = given.get(fn) or func_of(fn)

    def pure_extents(f):
        """The estimates of f, else (a guess that only steers decisions) those
        of the first output of as many dimensions."""
        est = estimates_of(f.function())
        if est is None:
            est = next((estimates_of(g.function()) for g in outputs
                        if g.dimensions() == f.dimensions()), None)
        return None if est is None else [n for _, n in est]

    problem = Problem(funcs=list(funcs.values()), extent=lambda e: evaluate(e, values),
                      pure_extents=pure_extents,
                      func_source=lambda f: f"p.funcs[{f.name()!r}]",
                      var_source=lambda f, name: repr(name), threads=params.parallelism,
                      vector_bits=vector_bits(target),
                      float_reassociation=params.float_reassociation,
                      unknown_hint=f" (Param {', '.join(unestimated)}: no estimate; call "
                                   f"set_estimate(value) to plan for it)" if unestimated else "")
    blocks = plan_blocks(problem)
    header = (f"Automatic schedule of {', '.join(f.name() for f in outputs)} "
              f"(pyhalide autoscheduler, {params.extra}) on target {target or 'host'}.")
    return run_blocks("schedule", blocks, {"p": _FuncsView(funcs), "ph": pyhalide},
                      list(funcs.values()), header)
