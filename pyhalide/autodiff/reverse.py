"""Reverse accumulation over a pipeline's Funcs (Halide's
ReverseAccumulationVisitor::propagate_adjoints): one adjoint Func per
definition of every Func the output calls and per buffer and Param it
reads; from the output to the inputs, each definition's adjoint flows into
the adjoints of what it reads."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.errors import CompileError
from pyhalide.source import at, user_location
from pyhalide.var import unique_name

from .adjoint_func import AdjointFunc
from .bounds import definitions, required_regions
from .expr_adjoints import expression_adjoints
from .overwrite import check_overwrites
from .scatter import Reader, scatter


def func_order(output: ir.Function) -> list:
    """The Functions the output's values call (transitively), producers first."""
    order, state = [], {}

    def visit(fn):
        if state.get(id(fn)) == "done":
            return
        if state.get(id(fn)) == "active":
            raise CompileError(f"propagate_adjoints: the Funcs call each other in a cycle "
                               f"through {fn.name}")
        state[id(fn)] = "active"
        for d in definitions(fn):
            for c in ir.find_calls(list(d.values)):
                if c.call_type == ir.FUNC and c.func is not fn:
                    visit(c.func)
        state[id(fn)] = "done"
        order.append(fn)

    visit(output)
    return order


def _adjoint_args(fn: ir.Function) -> list:
    """The adjoint's pure Var names: the Func's, implicit ones (_0) renamed."""
    return [unique_name("v") if a.startswith("_") and a[1:].isdigit() else a for a in fn.args]


def _inputs(order: list) -> dict:
    """name -> (dimensions, type) of every buffer and float Param the Funcs read."""
    out = {}
    for fn in order:
        for d in definitions(fn):
            exprs = list(d.values) + list(d.args)
            for c in ir.find_calls(exprs):
                if c.call_type == ir.IMAGE:
                    out.setdefault(c.name, (len(c.args), c.type))
            for name, v in ir.free_vars(exprs).items():
                if v.kind == "param" and v.type.is_float():     # (Halide: float Params only)
                    out.setdefault(name, (0, v.type))
    return out


def propagate(output, adjoint, output_box: list) -> dict:
    """(name, update index) -> adjoint Func (index -1: the pure definition,
    or a buffer / Param) for the output Func's pipeline, the output's
    adjoint being the Func `adjoint` over the region `output_box`."""
    out_fn = output.function()
    if len(out_fn.output_types) != 1:
        raise CompileError(f"propagate_adjoints: the output {out_fn.name} returns a Tuple "
                           f"(as Halide, a single value is differentiated){at(user_location())}")
    order = func_order(out_fn)
    kinds = check_overwrites(order)
    regions = required_regions(order, output_box)
    stubs = {}
    for fn in order:
        args = _adjoint_args(fn)
        for u in range(-1, len(fn.updates)):
            a = AdjointFunc(f"{fn.name}_{u + 1}_d_def__", args, fn.output_types)
            stubs[(fn.name, u)] = a
    final = stubs[(out_fn.name, len(out_fn.updates) - 1)]
    seed = _call_func(adjoint, final.arg_vars())
    final.reset([seed if seed.type == final.types[0] else ir.Cast(final.types[0], seed)])
    for name, (dims, t) in _inputs(order).items():
        if (name, -1) in stubs:
            raise CompileError(f"Error: Naming conflict between buffer/parameters and function:{name}")
        stubs[(name, -1)] = AdjointFunc(name.replace(".", "_") + "_d__",
                                        [unique_name("v") for _ in range(dims)], (t,))
    for fn in reversed(order):
        for u in range(len(fn.updates) - 1, -2, -1):
            _propagate_definition(fn, u, stubs, regions[fn.name], kinds.get((fn.name, u)))
    for a in stubs.values():
        a.define()
    return {key: a.func for key, a in stubs.items()}


def _call_func(f, args):
    fn = f.function()
    return ir.Call(fn.output_types[0], fn.name, tuple(args), ir.FUNC, 0, fn)


def _implicit(fn: ir.Function, adjoint_args: list) -> dict:
    return {a: ir.Variable(ir.INDEX, b) for a, b in zip(fn.args, adjoint_args) if a != b}


def _propagate_definition(fn: ir.Function, u: int, stubs: dict, region: list, kind) -> None:
    """The adjoint of definition u of fn (-1: pure) into what it reads.
    `kind` (overwrite.py): None when the definition reads fn, if at all,
    where it writes (that read's adjoint replaces the masked one); "shift":
    it reads fn at other points (the adjoints are added); "scan": it reads
    fn behind the point it writes along its RVar (the adjoint of the update
    itself runs that RVar backwards, adding, before the mask)."""
    cur = stubs[(fn.name, u)]
    rename = _implicit(fn, cur.args)
    d = fn.pure if u < 0 else fn.updates[u]
    values = [ir.substitute(v, rename) for v in d.values]
    lhs = cur.arg_vars() if u < 0 else [ir.substitute(a, rename) for a in d.args]
    prev = stubs.get((fn.name, u - 1))
    if u >= 0 and kind != "scan":
        _mask_previous(prev, cur, lhs)
    outs = [cur.call(lhs, i) for i in range(len(values))]
    reader = Reader(cur, region)
    found = expression_adjoints(values, outs)
    flip = kind == "scan"
    for args, index, a in _self_reads(fn, found):      # the reads of fn itself first
        scatter(reader, cur if flip else prev, args, a, index, overwrite=kind is None, flip=flip)
    if flip:
        _mask_previous(prev, cur, lhs)
    for target, a in found:
        if isinstance(target, ir.Variable):
            scatter(reader, stubs[(target.name, -1)], [], a, 0, overwrite=False, flip=flip)
        elif target.func is not fn:
            key = (target.name, len(target.func.updates) - 1) \
                if target.call_type == ir.FUNC else (target.name, -1)
            scatter(reader, stubs[key], list(target.args), a, target.value_index,
                    overwrite=False, flip=flip)


def _self_reads(fn: ir.Function, found: list) -> list:
    """[(args, value index, adjoint)] of the reads of fn in `found`, the
    adjoints of reads at the same point summed (each read's adjoint then
    replaces the masked one at that point)."""
    out = []
    for target, a in found:
        if not (isinstance(target, ir.Call) and target.func is fn):
            continue
        for item in out:
            if item[1] == target.value_index and \
                    all(ir.equal(x, y) for x, y in zip(item[0], target.args)):
                item[2] = ir.Add(item[2], a)
                break
        else:
            out.append([list(target.args), target.value_index, a])
    return out


def _mask_previous(prev: AdjointFunc, cur: AdjointFunc, lhs: list) -> None:
    """The adjoint of the definition before an update: the update's adjoint
    except at the points the update writes (there it is 0, until the
    update's reads of its own Func add theirs)."""
    zeros = [ir.zero(t) for t in prev.types]
    if all(isinstance(a, ir.Variable) and a.name == p for a, p in zip(lhs, prev.args)):
        prev.reset(zeros)
        return
    prev.reset([cur.call(prev.arg_vars(), i) for i in range(len(prev.types))])
    for i, z in enumerate(zeros):
        prev.add(lhs, z, i, True)
