"""The sequences a rewritten loop walks (loop_forms.py): arrays, tuple
literals, ranges, np.ndindex and enumerate/zip/reversed of them, each as its length and
its element at position k, built as AST by the rewriter `rw` (loop_forms's
node helpers: node, copy, const, call, binop, int_names)."""
from __future__ import annotations

import ast
import copy

import numpy as np

from .errors import ORIGIN_ATTR
from .names import VALUE_ATTR

NDINDEX_ATTR = "_pyhalide_ndindex"   # on the calls NdIndex builds: "ndindex" or "unravel_index"


def local_names(tree) -> set:
    """The function's parameters and the names it assigns."""
    return {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)} | \
        {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


class FreshLocals:
    """Names of the function's locals (`self.local`) and new names
    `_ph_<k>_<what>` that no name of the function uses (`fresh`), for a
    rewriter that adds local variables (loop_steps, slice_steps)."""

    def init_names(self, tree):
        self.local = local_names(tree)
        self.used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | self.local
        self.count = 0

    def fresh(self, what):
        while True:
            self.count += 1
            name = f"_ph_{self.count}_{what}"
            if name not in self.used:
                self.used.add(name)
                return name


class NodeBuilder:
    """AST node helpers of a rewriter (loop_forms, loop_steps, generators):
    new nodes located at `self.ref`, in its source (errors.ORIGIN_ATTR); a
    statement rewriter (also an ast.NodeTransformer) runs over the function's
    body with `run`, its visits returning a statement or a list of them."""

    def run(self, tree):
        tree.body = self._block(tree.body)

    def _block(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    def node(self, n):
        ast.copy_location(n, self.ref)
        origin = getattr(self.ref, ORIGIN_ATTR, None)
        for m in ast.walk(n):
            if not hasattr(m, "lineno") and isinstance(m, (ast.expr, ast.stmt)):
                ast.copy_location(m, self.ref)
            if origin is not None and not hasattr(m, ORIGIN_ATTR):
                setattr(m, ORIGIN_ATTR, origin)
        return n

    def copy(self, e):
        return copy.deepcopy(e)

    def const(self, v):
        return self.node(ast.Constant(value=v))

    def name(self, n, store=False):
        return self.node(ast.Name(id=n, ctx=ast.Store() if store else ast.Load()))

    def call(self, fn, args):
        return self.node(ast.Call(func=self.name(fn), args=args, keywords=[]))

    def binop(self, a, op, b):
        return self.node(ast.BinOp(left=a, op=op, right=b))

    def assign(self, target, value):
        return self.node(ast.Assign(targets=[target], value=value))


def const_int(e):
    """The value of an integer literal (also negated), or None."""
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        v = const_int(e.operand)
        if v is not None:
            return -v if isinstance(e.op, ast.USub) else v
    return None


class Seq:
    """A sequence the loop walks: its length and its element at position k
    (AST expressions; each call builds new nodes)."""

    def length(self):
        raise NotImplementedError

    def elem(self, k):
        raise NotImplementedError


class Indexed(Seq):
    """An array (or anything with len() and [k]). `a[i][j]` with integer
    loop variables i, j is read as a[i, j, k] (what NumPy reads)."""

    def __init__(self, rw, e):
        self.rw, self.base, self.prefix = rw, e, []
        while isinstance(e, ast.Subscript) and (
                (isinstance(e.slice, ast.Name) and e.slice.id in rw.int_names) or
                const_int(e.slice) is not None):
            self.prefix.insert(0, e.slice)
            e = e.value
        if isinstance(e, ast.Name) and self.prefix:
            self.base = e
        else:
            self.prefix = []

    def length(self):
        rw = self.rw
        if not self.prefix:
            return rw.call("len", [rw.copy(self.base)])
        return self.axis_len(len(self.prefix))

    def axis_len(self, axis):
        rw = self.rw
        shape = rw.node(ast.Attribute(value=rw.copy(self.base), attr="shape", ctx=ast.Load()))
        return rw.node(ast.Subscript(value=shape, slice=rw.const(axis), ctx=ast.Load()))

    def at(self, idx):
        """The base read at prefix + idx (index ASTs)."""
        rw = self.rw
        items = [rw.copy(i) for i in self.prefix] + idx
        sl = items[0] if len(items) == 1 else rw.node(ast.Tuple(elts=items, ctx=ast.Load()))
        return rw.node(ast.Subscript(value=rw.copy(self.base), slice=sl, ctx=ast.Load()))

    def elem(self, k):
        out = self.at([k])
        out.ph_row = (self, k)      # a row a target may stand for (the rewriter's _unpack)
        return out


class Literal(Seq):
    """A tuple or list literal: its element k is a chain of conditional
    expressions on k (each item a constant or a temporary)."""

    def __init__(self, rw, items):
        self.rw, self.items = rw, items

    def length(self):
        return self.rw.const(len(self.items))

    def elem(self, k):
        if self.items and all(isinstance(e, ast.Tuple) and len(e.elts) == len(self.items[0].elts)
                              for e in self.items):
            cols = zip(*[e.elts for e in self.items])
            return self.rw.node(ast.Tuple(elts=[Literal(self.rw, list(c)).elem(k) for c in cols],
                                          ctx=ast.Load()))
        out = self.rw.copy(self.items[-1])
        for j in range(len(self.items) - 2, -1, -1):
            test = self.rw.node(ast.Compare(left=self.rw.copy(k), ops=[ast.Eq()],
                                            comparators=[self.rw.const(j)]))
            out = self.rw.node(ast.IfExp(test=test, body=self.rw.copy(self.items[j]), orelse=out))
        return out


class RangeSeq(Seq):
    """range(start, stop, step) with a literal step."""

    def __init__(self, rw, start, stop, step: int):
        self.rw, self.start, self.stop, self.step = rw, start, stop, step

    def length(self):
        rw = self.rw
        s = self.step
        hi, lo = (self.stop, self.start) if s > 0 else (self.start, self.stop)
        diff = rw.binop(rw.copy(hi), ast.Sub(), rw.copy(lo))
        if abs(s) != 1:
            diff = rw.binop(rw.binop(diff, ast.Add(), rw.const(abs(s) - 1)), ast.FloorDiv(),
                            rw.const(abs(s)))
        return rw.call("max", [rw.const(0), diff])

    def elem(self, k):
        rw = self.rw
        off = k if self.step == 1 else rw.binop(k, ast.Mult(), rw.const(self.step))
        if const_int(self.start) == 0:
            return off
        return rw.binop(rw.copy(self.start), ast.Add(), off)


class Reversed(Seq):
    def __init__(self, rw, seq):
        self.rw, self.seq = rw, seq

    def length(self):
        return self.seq.length()

    def elem(self, k):
        rw = self.rw
        last = rw.binop(self.seq.length(), ast.Sub(), rw.const(1))
        return self.seq.elem(rw.binop(last, ast.Sub(), k))


class Enumerate(Seq):
    def __init__(self, rw, seq, start):
        self.rw, self.seq, self.start = rw, seq, start

    def length(self):
        return self.seq.length()

    def elem(self, k):
        rw = self.rw
        count = rw.copy(k) if const_int(self.start) == 0 else \
            rw.binop(rw.copy(k), ast.Add(), rw.copy(self.start))
        return rw.node(ast.Tuple(elts=[count, self.seq.elem(k)], ctx=ast.Load()))


class Zip(Seq):
    def __init__(self, rw, seqs):
        self.rw, self.seqs = rw, seqs

    def length(self):
        lens = [s.length() for s in self.seqs]
        return lens[0] if len(lens) == 1 else self.rw.call("min", lens)

    def elem(self, k):
        return self.rw.node(ast.Tuple(elts=[s.elem(self.rw.copy(k)) for s in self.seqs],
                                      ctx=ast.Load()))


def bound_name(rw, name, obj):
    """A Name standing for `obj` whatever the function's globals hold."""
    n = rw.name(name)
    setattr(n, VALUE_ATTR, (obj,))
    return n


class NdIndex(Seq):
    """np.ndindex(*shape): position k is the tuple np.unravel_index(k, shape)
    of Python ints (C order); the length is the product of the sizes (a
    negative size raises ValueError, as NumPy). Both calls are marked
    (NDINDEX_ATTR) for calls.py, which accepts them only as built here."""

    def __init__(self, rw, shape):
        self.rw, self.shape = rw, shape

    def _call(self, name, obj, args):
        rw = self.rw
        out = rw.node(ast.Call(func=bound_name(rw, name, obj), args=args, keywords=[]))
        setattr(out, NDINDEX_ATTR, name)
        return out

    def length(self):
        return self._call("ndindex", np.ndindex, [self.rw.copy(self.shape)])

    def elem(self, k):
        return self._call("unravel_index", np.unravel_index, [k, self.rw.copy(self.shape)])
