"""The RVars in expressions, with their RDoms' bounds and predicates."""
from __future__ import annotations

from pyhalide import ir


def rvar_nodes(exprs) -> dict:
    """name -> the "rvar" Variable, for every RVar in `exprs`."""
    return {n: v for n, v in ir.free_vars(list(exprs)).items() if v.kind == "rvar"}


def rvar_bounds(exprs) -> dict:
    """name -> (min, extent) of every RVar in `exprs` (from its RDom)."""
    out = {}
    for name, v in rvar_nodes(exprs).items():
        rdom = v.param
        for rv in rdom.reduction_variables():
            if rv.name == name:
                out[name] = (rv.min, rv.extent)
    return out


def rdom_predicates(exprs) -> list:
    """The predicates of the RDoms whose RVars are in `exprs`."""
    seen, out = set(), []
    for v in rvar_nodes(exprs).values():
        if id(v.param) not in seen:
            seen.add(id(v.param))
            out.extend(v.param.predicates())
    return out
