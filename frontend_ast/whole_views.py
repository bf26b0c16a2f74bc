"""Whether an array view is its whole array (the identity index map):
is_whole_view, for modules that must not import arraycode (sum_order, which
arraycode reaches through result_order)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.simplify import simplify

from .arrayexpr import ArrayExpr, same_size


def is_whole_view(value: ArrayExpr) -> bool:
    """Whether a view is its array, whole (the identity index map)."""
    arr, to_base = value.view
    if arr.ndim != value.ndim:
        return False
    probe = [ir.Variable(ir.INDEX, f"%probe{k}") for k in range(arr.ndim)]
    mapped = to_base(probe)
    if arr.kind == "input" or arr.arg_name is not None:
        # (an argument: Python's view of it is another object than the argument)
        return all(isinstance(m, ir.Variable) and m.name == p.name
                   for m, p in zip(mapped, probe)) and \
            all(s is t for s, t in zip(value.shape, arr.shape))
    # an array the function makes: also a reversal of a reversal
    mapped = [simplify(m) for m in mapped]
    return all(isinstance(m, ir.Variable) and m.name == p.name for m, p in zip(mapped, probe)) \
        and all(s is t or same_size(None, s, t) for s, t in zip(value.shape, arr.shape))
