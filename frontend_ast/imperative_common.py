"""What the merges of imperative nests share (imperative_nests.py: an array
and an inner sum; imperative_writes.py: an array written at several depths):
the checks that a nest can be merged, and building and installing the merged
Func."""
from __future__ import annotations

import ast
import dataclasses

from pyhalide import ir
from pyhalide.checks import is_check_read
from pyhalide.expr import Expr
from pyhalide.ir.function import FuncSchedule, copy_stage

from .loop_cycles import mapped_definition


def written_in_nest(smap, node, A, logged) -> bool:
    """Whether the nest `node` gives Func A a pure definition of its own. (It
    may give A its pure definition as its value before the nest: np.zeros
    defined at its first write, made at a line outside the nest.)"""
    first = smap.loc(node).line
    lines = range(first, first + node.end_lineno - node.lineno + 1)
    return any(lf.function() is A and not k and (loc is None or loc.line in lines)
               for lf, k, loc, _ in logged)


def foreign_vars(exprs, rdom) -> bool:
    """Whether `exprs` (a merged update's parts) use a variable other than
    parameters and the RVars of `rdom` (a Var or RVar left from a merged
    definition: it would mean a dimension the merge did not account for)."""
    own = {rdom[k].name() for k in range(rdom.dimensions())}
    return any(v.kind != "param" and name not in own
               for name, v in ir.free_vars(list(exprs)).items())


def ambiguous(loops) -> bool:
    """Whether two different loops of `loops` ([(Loop, Var or RVar)]) have
    Vars of one name (sibling loops `for j` twice): the merges identify a
    definition's loops by the names of its variables."""
    seen = {}
    return any(seen.setdefault(v.name(), id(l)) != id(l) for l, v in loops)


def calls_of(exprs, fn) -> list:
    return [c for c in ir.find_calls(list(exprs)) if c.call_type == ir.FUNC and c.func is fn]


def exprs(d) -> list:
    return list(d.args) + list(d.values) + list(d.predicates)


def outer_first(loops) -> list:
    """The loops ordered outermost first (by their For nodes' nesting)."""
    def depth(l):
        return sum(1 for o in loops if o is not l and l.node in ast.walk(o.node))
    return sorted(loops, key=depth)


def call(fn, args, k):
    """A read of element k of Function fn."""
    return ir.Call(fn.output_types[k], fn.name, tuple(args), ir.FUNC, k, fn)


def new_state(emitter, arr, A, extra=()):
    """(Func, Function) M over the domain of array `arr`'s Function A: A's
    elements, then elements of the types `extra`."""
    Mf = emitter.new_func(arr.name, arr)
    M = Mf.function()
    M.args = A.args
    M.output_types = tuple(A.output_types) + tuple(extra)
    return Mf, M


def install(emitter, arr, A, Mf, update, n_nest):
    """Define the merged Func M (new_state): its pure definition is A before
    the nest (A's definitions but its last `n_nest` updates, as a Func of
    their own, its reads of input buffers clamped: M's region may reach past
    A's) and zeros for the other elements; its update is `update` (key,
    values, predicates, RDom, source). A becomes a copy of M's elements."""
    M = Mf.function()
    nA = len(A.output_types)
    Ap = emitter.new_func(arr.name, arr).function()
    Ap.args, Ap.output_types = A.args, A.output_types
    self_to_ap = ir.FuncMutator(
        lambda n: call(Ap, tuple(self_to_ap.mutate(a) for a in n.args), n.value_index)
        if isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func is A else None)
    Ap.pure = clamped_def(mapped_definition(A.pure, self_to_ap))
    Ap.updates = [clamped_def(mapped_definition(d, self_to_ap)) for d in A.updates[:-n_nest]]
    Ap.schedule = dataclasses.replace(A.schedule, bounds=list(A.schedule.bounds))
    Ap.source = A.source
    pure_vars = tuple(ir.Variable(ir.INDEX, a) for a in A.args)
    M.pure = ir.Definition(pure_vars, tuple(call(Ap, pure_vars, k) for k in range(nA)) +
                           tuple(ir.zero(t) for t in M.output_types[nA:]), [],
                           copy_stage(A.pure.schedule), A.pure.source, A.pure.rdom_name)
    M.schedule = FuncSchedule()
    M.source = A.source
    key, values, preds, rdom, source = update
    emitter.define(Mf, tuple(Expr.wrap(k) for k in key), values, preds, rdom, None,
                   label=arr.name)
    M.updates[-1].source = source
    A.pure = ir.Definition(pure_vars, tuple(call(M, pure_vars, k) for k in range(nA)), [],
                           copy_stage(A.pure.schedule), A.pure.source, A.pure.rdom_name)
    A.updates = []


def clamped_reads(e):
    """e with its reads of input buffers clamped into the buffers: the same
    value wherever the index is in the buffer (a phase's own slots: Python
    reads there, or the index check raises first), and no read outside a
    buffer in the slots of other phases, which bounds inference also counts
    (their values are never computed there)."""
    def visit(n):
        if not (isinstance(n, ir.Call) and n.call_type == ir.IMAGE) or is_check_read(n):
            return None         # (an index check's read keeps its index: it raises)
        args = []
        for k, a in enumerate(n.args):
            ext = ir.Variable(ir.INDEX, f"{n.name}.extent.{k}", "param", n.func)
            args.append(ir.Max(ir.Min(m.mutate(a), ir.Sub(ext, ir.index(1))), ir.index(0)))
        return ir.Call(n.type, n.name, tuple(args), ir.IMAGE, n.value_index, n.func)
    m = ir.FuncMutator(visit)
    return m.mutate(e)


def clamped_def(d):
    d.values = tuple(clamped_reads(v) for v in d.values)
    d.predicates = [clamped_reads(p) for p in d.predicates]
    return d


def node_value(e):
    return e.node if hasattr(e, "node") else e
