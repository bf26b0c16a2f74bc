"""Storage flattening: multi-dimensional Realize/Provide/Call become flat
Allocate/Store/Load with explicit strides.

An intermediate's buffer spans its computed region (dense, dimension 0
innermost). An output computed exactly over the region asked for writes into
the output buffer (its own min/stride arguments); one whose updates reach
further is computed in scratch storage and copied out, or, when its schedule
asks (`in_place_if_inside`), in its buffer when a run-time test shows the
region inside it and in scratch otherwise (two copies of its body). Inputs use their
buffer's min/stride arguments; buffers known to be dense in dimension 0 use
the constant stride 1."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.flat_index import is_flat_index

from .context import (
    LoweringContext,
    buffer_name,
    geometry,
    index_var,
    internal_name,
    region_stride,
)


def _flat_index(args, mins, strides, fold=None) -> ir.Expr:
    """sum((arg - min) * stride); a folded dimension (d, F) stores coordinate
    c at c mod F (F a power of two)."""
    idx = None
    for d, (a, lo, st) in enumerate(zip(args, mins, strides)):
        if fold is not None and fold[0] == d:
            term = ir.BitAnd(a, ir.index(fold[1] - 1))
        else:
            term = ir.Sub(a, lo)
        if not (isinstance(st, ir.Const) and st.value == 1):
            term = ir.Mul(term, st)
        idx = term if idx is None else ir.Add(idx, term)
    return idx if idx is not None else ir.index(0)


class _Flatten(ir.Mutator):
    """Memoized between Realize boundaries: a Call's flat index depends on
    the Realize bounds in scope, which change only there (an unmemoized walk
    of a DAG of shared subexpressions is exponential)."""

    def __init__(self, ctx: LoweringContext):
        super().__init__()
        self.ctx = ctx
        self.realized = {}      # Func name -> Realize bounds in scope
        self.in_buffer = set()  # outputs computed in their buffer in this copy of the body
        self.reusing = set()    # outputs whose scratch is their buffer when it holds the region
        # "b#2" / "b#2@a" in ctx.dense: b has stride 2 in dimension 0 (and starts
        # one element after a): b -> "" / a
        self.paired = {}
        for n in ctx.dense:
            head, mark, other = n.partition("#2")
            if mark:
                self.paired[head] = other[1:]

    # geometry of the storage behind each name -------------------------------------
    def _stride(self, buf: str, d: int) -> ir.Expr:
        if d == 0 and buf in self.ctx.dense:
            return ir.index(1)
        if d == 0 and self._paired(buf) is not None:
            return ir.index(2)  # a complex array's part (pyhalide/realize.PAIRED)
        return geometry(buf, "stride", d)

    def _paired(self, buf: str):
        """For a buffer of stride 2 in dimension 0 (pyhalide/realize.PAIRED):
        the buffer whose memory it starts one element after, or "" (none
        known); None for any other buffer."""
        return self.paired.get(buf)

    def _func_storage(self, fname: str, index: int):
        """(storage name, mins, strides, fold) of element `index` of Func fname."""
        fn = self.ctx.env[fname]
        n = len(fn.output_types)
        buf = buffer_name(fname, index, n)
        dims = range(fn.dimensions())
        if self.ctx.is_output(fname) and (self.ctx.in_place.get(fname, False)
                                          or fname in self.in_buffer):
            return (buf, [geometry(buf, "min", d) for d in dims],
                    [self._stride(buf, d) for d in dims], None)
        if self.ctx.is_output(fname):
            if fname in self.reusing:
                buf = internal_name(buf)
                return (buf, [index_var(f"{buf}.min.{d}") for d in dims],
                        [ir.index(1) if d == 0 else index_var(f"{buf}.stride.{d}")
                         for d in dims], None)
            buf = internal_name(buf)
        bounds = self.realized[fname]
        return (buf, [bounds[d].min for d in dims],
                [ir.index(1) if d == 0 else index_var(region_stride(fname, d)) for d in dims],
                self.ctx.folds.get(fname))

    # rewriting ----------------------------------------------------------------------
    def visit_Call(self, c):
        if is_flat_index(c):         # its coordinate: the address is the read's own
            return self.mutate(c.args[0])
        args = tuple(self.mutate(a) for a in c.args)
        if c.call_type == ir.FUNC:
            buf, mins, strides, fold = self._func_storage(c.name, c.value_index)
            return ir.Load(c.type, buf, _flat_index(args, mins, strides, fold))
        if c.call_type == ir.IMAGE:
            mins = [geometry(c.name, "min", d) for d in range(len(args))]
            strides = [self._stride(c.name, d) for d in range(len(args))]
            first = self._paired(c.name)
            if first:           # a.imag: a.real's memory, one element further
                return ir.Load(c.type, first, ir.Add(_flat_index(args, mins, strides),
                                                     ir.index(1)))
            return ir.Load(c.type, c.name, _flat_index(args, mins, strides))
        if all(a is b for a, b in zip(args, c.args)):
            return c
        return ir.Call(c.type, c.name, args, c.call_type, c.value_index, c.func)

    def visit_Provide(self, s):
        args = tuple(self.mutate(a) for a in s.args)
        values = tuple(self.mutate(v) for v in s.values)
        stores = []
        if len(values) == 1:
            buf, mins, strides, fold = self._func_storage(s.name, 0)
            return ir.Store(buf, values[0], _flat_index(args, mins, strides, fold))
        # all values are computed before any is stored (they may read each other)
        temps = [f"{s.name}.value{i}" for i in range(len(values))]
        for i, (v, tmp) in enumerate(zip(values, temps)):
            buf, mins, strides, fold = self._func_storage(s.name, i)
            stores.append(ir.Store(buf, ir.Variable(v.type, tmp),
                                   _flat_index(args, mins, strides, fold)))
        body = ir.block(*stores)
        for v, tmp in reversed(list(zip(values, temps))):
            body = ir.LetStmt(tmp, v, body)
        return body

    def _body(self, s, in_buffer: bool) -> ir.Stmt:
        self.realized[s.name] = s.bounds
        if in_buffer:
            self.in_buffer.add(s.name)
        self.memo = {}
        body = self.mutate(s.body)
        self.memo = {}
        self.in_buffer.discard(s.name)
        return body

    def visit_Realize(self, s):
        fname = s.name
        fn = self.ctx.env[fname]
        is_out = self.ctx.is_output(fname)
        if is_out and self.ctx.in_place.get(fname, False):
            return self._body(s, False)
        if is_out and fn.schedule.in_place_if_inside:
            return ir.IfThenElse(self._inside(fname, s.bounds), self._body(s, True),
                                 self._scratch(s, self._body(s, False)))
        if is_out and self._reusable(fname):
            self.reusing.add(fname)
            try:
                return self._reused(s, self._body(s, False))
            finally:
                self.reusing.discard(fname)
        return self._scratch(s, self._body(s, False))

    def _reusable(self, fname: str) -> bool:
        """Whether an output computed over more than the region asked for
        can take its buffer as its scratch storage when the buffer holds the
        region computed (each buffer dense in dimension 0, as the scratch is)."""
        n = len(self.ctx.env[fname].output_types)
        return all(buffer_name(fname, i, n) in self.ctx.dense for i in range(n))

    def _reused(self, s, body: ir.Stmt) -> ir.Stmt:
        """The body (indexing each buffer `b` of the Func through the lets
        `b.internal.min.d` and `b.internal.stride.d`) with storage around it:
        the output's buffers themselves where they hold the region computed
        (a run-time test, `f.in_buffer`: as in Halide, where an output's
        buffer must hold it), else scratch storage copied out after it."""
        fname = s.name
        fn = self.ctx.env[fname]
        n = len(fn.output_types)
        dims = fn.dimensions()
        inside = ir.Variable(ir.Bool(), f"{fname}.in_buffer")
        copies = [self._copy_out(fname, i, n, dims) for i in range(n)]
        body = ir.block(body, ir.IfThenElse(ir.Not(inside), ir.block(*copies)))
        for i in reversed(range(n)):
            buf = buffer_name(fname, i, n)
            scratch = internal_name(buf)
            for d in reversed(range(dims)):
                if d > 0:
                    body = ir.LetStmt(f"{scratch}.stride.{d}", ir.Select(
                        inside, self._stride(buf, d), index_var(region_stride(fname, d))), body)
                body = ir.LetStmt(f"{scratch}.min.{d}", ir.Select(
                    inside, geometry(buf, "min", d), s.bounds[d].min), body)
            body = ir.Allocate(scratch, fn.output_types[i],
                               tuple(r.extent for r in s.bounds), body, inside, buf)
        for d in reversed(range(1, dims)):
            prev = ir.index(1) if d == 1 else index_var(region_stride(fname, d - 1))
            body = ir.LetStmt(region_stride(fname, d), ir.Mul(prev, s.bounds[d - 1].extent),
                              body)
        return ir.LetStmt(inside.name, self._inside(fname, s.bounds), body)

    def _inside(self, fname: str, bounds) -> ir.Expr:
        """Whether the region computed lies inside the output's buffers."""
        n = len(self.ctx.env[fname].output_types)
        tests = []
        for i in range(n):
            buf = buffer_name(fname, i, n)
            for d, r in enumerate(bounds):
                lo = geometry(buf, "min", d)
                tests += [ir.LE(lo, r.min), ir.LE(ir.Add(r.min, r.extent),
                                                  ir.Add(lo, geometry(buf, "extent", d)))]
        return ir.conjunction(tests)

    def _scratch(self, s, body: ir.Stmt) -> ir.Stmt:
        """The body with the Func's storage around it (an output's in
        scratch storage, then copied out)."""
        fname = s.name
        fn = self.ctx.env[fname]
        n = len(fn.output_types)
        dims = fn.dimensions()
        is_out = self.ctx.is_output(fname)
        if is_out:
            body = ir.block(body, *[self._copy_out(fname, i, n, dims) for i in range(n)])
        fold = self.ctx.folds.get(fname)
        extents = tuple(ir.index(fold[1]) if fold is not None and fold[0] == d else r.extent
                        for d, r in enumerate(s.bounds))
        for i in reversed(range(n)):
            buf = buffer_name(fname, i, n)
            body = ir.Allocate(internal_name(buf) if is_out else buf, fn.output_types[i], extents, body)
        for d in reversed(range(1, dims)):
            prev = ir.index(1) if d == 1 else index_var(region_stride(fname, d - 1))
            stride = ir.Mul(prev, extents[d - 1])
            body = ir.LetStmt(region_stride(fname, d), stride, body)
        return body

    def _copy_out(self, fname: str, i: int, n: int, dims: int) -> ir.Stmt:
        buf = buffer_name(fname, i, n)
        t = self.ctx.env[fname].output_types[i]
        coords = [index_var(f"{buf}.copy.{d}") for d in range(dims)]
        src_mins = [r.min for r in self.realized[fname]]
        src_strides = [ir.index(1) if d == 0 else index_var(region_stride(fname, d))
                       for d in range(dims)]
        dst_mins = [geometry(buf, "min", d) for d in range(dims)]
        dst_strides = [self._stride(buf, d) for d in range(dims)]
        body = ir.Store(buf, ir.Load(t, internal_name(buf), _flat_index(coords, src_mins, src_strides)),
                        _flat_index(coords, dst_mins, dst_strides))
        for d in range(dims):
            body = ir.For(coords[d].name, geometry(buf, "min", d), geometry(buf, "extent", d),
                          ir.ForKind.SERIAL, body)
        return body


def flatten_storage(stmt: ir.Stmt, ctx: LoweringContext) -> ir.Stmt:
    return _Flatten(ctx).mutate(stmt)
