"""`tuple(<generator expression>)` over tuples (a rewrite of rewrites.py,
order 15, after the calls of user functions are inlined, and its
evaluation in the interpreter):

    tuple(f(p, o) for p, o in zip(pos, off))
        ->  tuple(<len(pos)>, <len(off)>, f(pos[J], off[J]))     (marked GEN_ATTR)

The loop target's names in the element are replaced by the sequence's
element at a placeholder position J (loop_seqs: tuples, zip, enumerate,
range with a literal step, reversed); the interpreter makes one item per
position, J replaced by the constant, so the number of items must be
known when compiling (the sizes of tuples such as shapes and positions,
constant ranges). Compiled expressions have no side effects, so reading
the sequence at each position gives what Python's iterator gives. One
`for` clause without `if`s; other generator expressions and
comprehensions are refused by the supported-subset check."""
from __future__ import annotations

import ast
import itertools

from .errors import ORIGIN_ATTR
from .inline_calls import GEN_ATTR, clone_node
from .loop_seqs import Enumerate, Indexed, NodeBuilder, RangeSeq, Reversed, Zip, const_int
from .rewrite_registry import register
from .values import TupleVal, Val

# GEN_ATTR (inline_calls.py) on a rewritten tuple(...) call: the number of lengths
SLOT_ATTR = "_pyhalide_gen_slot"      # on the placeholder Name of the position
_counter = itertools.count(1)


@register(15)
def generators(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    _Rewriter(smap).visit(tree)
    return tree


class _Rewriter(NodeBuilder, ast.NodeTransformer):
    """Rewrites tuple(genexp) calls (innermost first); the loop_seqs
    sequences build with its node helpers (located at `ref`)."""

    def __init__(self, smap):
        self.smap, self.ref, self.int_names = smap, None, set()

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "tuple" and \
                len(node.args) == 1 and not node.keywords and \
                isinstance(node.args[0], ast.GeneratorExp):
            return self.rewrite(node, node.args[0])
        return node

    def rewrite(self, call, g):
        comp = g.generators[0]
        if len(g.generators) > 1 or comp.is_async:
            raise self.smap.error(g.generators[-1], "a generator expression with several `for` "
                                                    "clauses is not supported",
                                  hint="write one `for` clause (zip the sequences)")
        if comp.ifs:
            raise self.smap.error(comp.ifs[0], "an `if` in a generator expression is not "
                                               "supported (the number of items would depend "
                                               "on values)",
                                  hint="choose each item with `x if c else y`")
        self.ref = comp.iter
        seq = self.seq(comp.iter)
        slot = self.name(f"_ph_gen{next(_counter)}")
        setattr(slot, SLOT_ATTR, True)
        subst = {}
        self.bind(comp.target, seq.elem(slot), subst)
        elt = _Substitute(subst).visit(g.elt)
        lengths = [s.length() for s in (seq.seqs if isinstance(seq, Zip) else [seq])]
        out = ast.Call(func=call.func, args=lengths + [elt], keywords=[])
        ast.copy_location(out, call)
        if hasattr(call, ORIGIN_ATTR):
            setattr(out, ORIGIN_ATTR, getattr(call, ORIGIN_ATTR))
        setattr(out, GEN_ATTR, len(lengths))
        return out

    def seq(self, e):
        f = e.func.id if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) else None
        if f in ("zip", "enumerate", "range", "reversed") and \
                any(isinstance(a, ast.Starred) for a in e.args):
            raise self.smap.error(e, "`*` unpacking is not supported", hint="name the values")
        if f == "zip" and e.args and not e.keywords:
            return Zip(self, [self.seq(a) for a in e.args])
        if f == "enumerate" and len(e.args) in (1, 2) and not e.keywords:
            start = e.args[1] if len(e.args) == 2 else self.const(0)
            return Enumerate(self, self.seq(e.args[0]), start)
        if f == "reversed" and len(e.args) == 1 and not e.keywords:
            return Reversed(self, self.seq(e.args[0]))
        if f == "range" and 1 <= len(e.args) <= 3 and not e.keywords:
            step = const_int(e.args[2]) if len(e.args) == 3 else 1
            if not step:
                raise self.smap.error(e, "the step of range() must be a nonzero literal",
                                      hint="write the step as a literal (range(0, n, 2))")
            start = e.args[0] if len(e.args) > 1 else self.const(0)
            stop = e.args[0] if len(e.args) == 1 else e.args[1]
            return RangeSeq(self, start, stop, step)
        s = Indexed(self, e)
        s.base, s.prefix = e, []       # t[0][k] is not t[0, k] for a tuple of tuples
        return s

    def bind(self, target, value, subst):
        if isinstance(target, ast.Name):
            subst[target.id] = value
            return
        if not isinstance(target, ast.Tuple) or \
                not all(isinstance(t, (ast.Name, ast.Tuple)) for t in target.elts):
            raise self.smap.error(target, "the target of a generator expression must be "
                                          "names", hint="write `for a, b in zip(x, y)`")
        if isinstance(value, ast.Tuple):
            if len(value.elts) != len(target.elts):
                raise self.smap.error(target, f"cannot unpack {len(value.elts)} values into "
                                              f"{len(target.elts)} names")
            for t, v in zip(target.elts, value.elts):
                self.bind(t, v, subst)
            return
        for j, t in enumerate(target.elts):
            self.bind(t, self.node(ast.Subscript(value=self.copy(value), slice=self.const(j),
                                                 ctx=ast.Load())), subst)


class _Substitute(ast.NodeTransformer):
    def __init__(self, subst):
        self.subst = subst

    def visit_Name(self, n):
        if n.id in self.subst and isinstance(n.ctx, ast.Load):
            return clone_node(self.subst[n.id])
        return n


# the interpreter's side ---------------------------------------------------------------------
def build(b, node):
    """tuple(...) at `node`: a rewritten generator expression's items, or
    tuple(t) of a tuple."""
    k = getattr(node, GEN_ATTR, None)
    if k is None:
        if len(node.args) == 1 and not node.keywords:
            v = b.ev(node.args[0])
            if isinstance(v, TupleVal):
                return v
        raise b.cx.err(node, "tuple() is supported of a tuple or of a generator expression "
                             "over tuples", hint="write the tuple as (a, b, ...)")
    n = None
    for arg in node.args[:k]:
        v = b.ev(arg)
        if not isinstance(v, Val) or not v.is_const or not isinstance(v.const, int):
            raise b.cx.err(arg, "the number of items of a generator expression must be known "
                                "when compiling", hint="iterate over tuples (shapes, "
                                                       "positions) or a constant range")
        n = int(v.const) if n is None else min(n, int(v.const))
    return TupleVal([b.ev(_at_position(node.args[k], j)) for j in range(max(n, 0))])


def _at_position(elt, j):
    """A copy of the element with the placeholder replaced by the constant j."""
    class Put(ast.NodeTransformer):
        def visit_Name(self, n):
            if getattr(n, SLOT_ATTR, False):
                c = ast.copy_location(ast.Constant(j), n)
                if hasattr(n, ORIGIN_ATTR):
                    setattr(c, ORIGIN_ATTR, getattr(n, ORIGIN_ATTR))
                return c
            return n
    return Put().visit(clone_node(elt))

