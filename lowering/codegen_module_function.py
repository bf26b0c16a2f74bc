"""Internal helper functions of a kernel's LLVM module, emitted once per
module and called from the kernel's code (codegen_int_power,
codegen_int_divide).

    module_function(mod, name, fn_type, body) -> the module's function `name`
    call_each_lane(b, fn, x, y, elem, part=None) -> fn(x[i], y[i]) per lane

module_function returns the module's global `name` where it exists, else
makes it: internal linkage, nounwind readnone willreturn (a pure function of
its arguments, which LLVM may merge, hoist or drop), its blocks written by
`body(fn)`. call_each_lane calls a scalar helper on each lane of two vectors
of equal lanes and gathers the results (field `part` of a struct result) into
a vector of `elem`."""
from __future__ import annotations

from llvmlite import ir as ll

__all__ = ["module_function", "call_each_lane"]


def module_function(mod: ll.Module, name: str, fn_type: ll.FunctionType, body):
    """The module's internal pure function `name`, made by `body(fn)` on first use."""
    fn = mod.globals.get(name)
    if fn is not None:
        return fn
    fn = ll.Function(mod, fn_type, name=name)
    fn.linkage = "internal"
    for attr in ("nounwind", "readnone"):
        fn.attributes.add(attr)
    set.add(fn.attributes, "willreturn")            # not in llvmlite's known set
    body(fn)
    return fn


def call_each_lane(b: ll.IRBuilder, fn, x, y, elem, part: int | None = None):
    """The vector of fn(x[i], y[i]) (its field `part` where given) over the lanes of x and y."""
    out = ll.Constant(ll.VectorType(elem, x.type.count), ll.Undefined)
    for i in range(x.type.count):
        lane = ll.Constant(ll.IntType(32), i)
        r = b.call(fn, [b.extract_element(x, lane), b.extract_element(y, lane)])
        out = b.insert_element(out, r if part is None else b.extract_value(r, part), lane)
    return out
