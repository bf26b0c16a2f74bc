"""Reductions on Dask: the rfactor decomposition with Dask's blocks as the
slices (pyhalide.dask).

For the one reduction R of a @pipeline whose update `R(L) = op(R(L), y(r))`
runs over the chunked arrays, with `op` proven associative by the tables:

- the *chunk* task computes the intermediate of its block: R with the
  operator's identity as pure definition and the update over the points of
  the RDom whose reads fall in the block (global coordinates, so indices are
  global: dask_window);
- partial results are merged by `op` in block order (dask.array.reduction's
  tree, `split_every`), so an operator that does not commute keeps the
  serial order when only the axis of the outermost RVar is chunked;
- the *final* task computes the pipeline with R's update replaced by one
  merge `R(X) = op(R(X), M(X))` of the merged intermediate M, so R's initial
  value and what the pipeline computes from R come out as one machine's.
"""
from __future__ import annotations

import copy

import numpy as np

from . import ir
from .associativity import prove_associativity
from .buffer import ImageParam, Param
from .checks import apply as apply_checks
from .checks import strip as strip_checks
from .dask_window import Window, definition_exprs, rvar_offset
from .errors import CompileError
from .expr import Expr
from .func import Func
from .realize import Pipeline
from .rfactor_nan import exact_merge_ops, own_calls
from .var import Var


def _reads_images(d, images: dict) -> bool:
    """Whether definition d reads the images (id -> name), directly or through
    pure Funcs."""
    reads = []
    for e in definition_exprs(d):
        _index_reads(e, images, reads)
    return bool(reads)


def _float_arith(e) -> bool:
    """Whether an operator element rounds (float + - * /)."""
    found = []

    class V(ir.Visitor):
        def visit_children(self, n):
            if isinstance(n, (ir.Add, ir.Sub, ir.Mul, ir.Div)) and n.type.is_float():
                found.append(n)
            super().visit_children(n)

    V().visit(_node(e))
    return bool(found)


def _idempotent(op) -> bool:
    """Whether op(x, x) simplifies to x, element by element."""
    from .simplify import simplify
    same = {f"y{i}": ir.Variable(_node(o).type, f"x{i}") for i, o in enumerate(op.ops)}
    for i, o in enumerate(op.ops):
        e = simplify(ir.substitute(_node(o), same))
        if not (isinstance(e, ir.Variable) and e.name == f"x{i}"):
            return False
    return True


def _index_reads(e, images: dict, out: list, depth=0):
    """(image name, dim, index Expr before the window shift) of every read of
    the window's images in e, through calls of pure Funcs (their Vars
    replaced by the call's arguments)."""
    for c in ir.find_calls(e):
        if c.call_type == ir.IMAGE and id(c.func) in images:
            name = images[id(c.func)]
            for k, a in enumerate(c.args):
                out.append((name, k, a.a if isinstance(a, ir.Sub) else a))
        elif c.call_type == ir.FUNC and c.func is not None and not c.func.updates \
                and c.func.pure is not None and depth < 8:
            mapping = {v: arg for v, arg in zip(c.func.args, c.args)}
            for v in c.func.pure.values:
                _index_reads(ir.substitute(v, mapping), images, out, depth + 1)


class ReducePlan:
    """The chunk and final steps of one reduction (see the module doc).

    `chunked`: name -> the NumPy axes of that array argument split into more
    than one block."""

    def __init__(self, pf, key, arrays, chunked: dict, float_reassociation: bool):
        w = Window(pf, key, arrays)
        fn, k, op = self.analyze(w, f"{pf.__name__} on Dask", chunked, float_reassociation)
        index = next(i for i, (_, f, _) in enumerate(w.spec.builder.funcs)
                     if f.function() is fn)
        self.final = FinalStep(pf, key, arrays, index, k, op)

    def analyze(self, w, where: str, chunked: dict, float_reassociation: bool):
        """Find the one reduction over the chunked arrays of host `w` (a Window,
        or dask_funcs_reduce's copy of a Func-API pipeline: `images`,
        `functions`, `func_named`, `bind`, `run_kernel`, `lock`), check that
        it splits into blocks, and make its chunk step; returns (Function,
        update index, operator)."""
        self.chunk = w
        images = {id(img): name for name, (img, _, _) in w.images.items()}
        found = [(fn, k, d) for fn in w.functions for k, d in enumerate(fn.updates)
                 if d.schedule.rvars and _reads_images(d, images)]
        if not found:
            raise CompileError(f"{where}: no loop of the function reduces over its array "
                               f"arguments, and its results are not arrays of their shape: "
                               f"nothing to split into blocks")
        if len(found) > 1:
            names = ", ".join(sorted({fn.name for fn, _, _ in found}))
            raise CompileError(f"{where}: more than one reduction runs over the array arguments "
                               f"({names}); one per function is split on Dask: compute them "
                               f"in separate @pipeline functions")
        fn, k, d = found[0]
        self.function, self.k = fn, k
        if d.exit is not None:
            raise CompileError(f"{where}: the reduction {self._at(d)} can stop early "
                               f"(break/return/while): its result depends on where it stops, "
                               f"so it is not split into blocks")
        self.func = w.func_named(fn)
        op = prove_associativity(self.func.update(k))
        if not op:
            raise CompileError(f"{where}: the reduction {self._at(d)} cannot be split into "
                               f"blocks: {op.reason}")
        self.op = op
        # a block's fold starts from the operator's identity, else from its first point's
        # value (seeded): a block whose points all fail the update's condition gives the
        # identity as its partial result. A right identity e (op(x, e) == x) is neutral
        # there: the tree's merges are associative and the total is merged into the
        # reduction's initial value x0, so op(x0, op(e, P)) == op(op(x0, e), P) == op(x0, P)
        self.seeded = op.identity_side not in ("both", "right")
        values = strip_checks(d.values)[0]
        forms, why, commutes = exact_merge_ops(values, own_calls(values, fn), op, self.seeded)
        if why is not None:
            raise CompileError(f"{where}: the reduction {self._at(d)} cannot be split into "
                               f"blocks: {why}")
        if forms is not None:                   # NaN values merged as the loop does
            op = self.op = copy.copy(op)
            op.ops = tuple(Expr.wrap(f) for f in forms)
            op.commutative = commutes
        if self.seeded and (fn.dimensions() or d.predicates or op.predicate is not None
                            or any(y is None for y in op.ys)
                            or (len(d.schedule.rvars) > 1 and not _idempotent(op))):
            raise CompileError(f"{where}: the reduction {self._at(d)} cannot be split into "
                               f"blocks: its operator ({op}) has no two-sided identity, and a "
                               f"block can be started with its first value only for a "
                               f"scalar reduction without a condition, over one loop or "
                               f"with an operator that gives x for op(x, x)")
        # one loop: the fold starts at the block's second point; a nest: at its first
        # point again (op(x, x) == x)
        self.shift = self.seeded and len(d.schedule.rvars) == 1
        if fn.dimensions() and op.identity_side != "both":
            # a block that writes no element of an array reduction leaves the identity
            # there, merged on either side of the other blocks' values
            raise CompileError(f"{where}: the reduction {self._at(d)} writes elements of an "
                               f"array, and its operator ({op}) has no two-sided identity "
                               f"for the elements a block does not write: it is not split "
                               f"into blocks")
        floats = [i for i, t in enumerate(fn.output_types)
                  if t.is_float() and _float_arith(op.ops[i])]
        if floats and not float_reassociation:
            raise CompileError(f"{where}: the reduction {self._at(d)} adds or multiplies "
                               f"floats; on Dask the blocks, not the loop, decide the order "
                               f"of the operations, so the result can differ in the last "
                               f"bits from one machine's: pass float_reassociation=True "
                               f"to accept that")
        self._bind_rvars(d, images, chunked, where)
        if not op.commutative and not self._outer_axis_only(chunked):
            raise CompileError(f"{where}: the operator of {self._at(d)} does not commute "
                               f"({op}); its blocks are merged in order only when the arrays "
                               f"are split along the axis of the outermost loop alone: "
                               f"rechunk the other axes to one block")
        # the chunk step's initial value: the identity, or the first point's value
        if self.seeded:
            self.seeds = {rv.name: Param(ir.INDEX, f"{rv.name}$dask_seed", 0)
                          for rv in d.schedule.rvars}
            first = {name: p.node for name, p in self.seeds.items()}
            # with the update's run-time checks at that point: the fold skips it
            checks = [ir.substitute(c, first) for c in op.checks]
            init = [apply_checks(checks, ir.substitute(_node(y), first)) for y in op.ys]
        else:
            init = [_node(x) for x in op.identities]
        fn.pure.values = tuple(ir.Cast(t, i) if i.type != t else i
                               for t, i in zip(fn.output_types, init))
        fn.updates = [d]      # the other updates of R: before it, its initial value; after
        #                       it, applied once to the merged total (the final step)
        self.chunk_pipe = Pipeline([self.func])
        self.dims = fn.dimensions()
        self.types = list(fn.output_types)
        self._merge = None
        return fn, k, op

    @staticmethod
    def _at(d) -> str:
        src = d.source
        return "" if src is None else f"at {src.file}:{src.line}"

    def _bind_rvars(self, d, images: dict, chunked: dict, where: str):
        """Each RVar indexing a chunked axis is restricted per block to the
        points whose reads fall in the block: [lo, hi) parameters."""
        rvars = {rv.name for rv in d.schedule.rvars}
        reads = []
        for e in definition_exprs(d):
            _index_reads(e, images, reads)
        self.ties = {}                 # RVar -> (name, axis, constant)
        loose = []
        ndims = {name: img.dimensions() for name, (img, _, _) in self.chunk.images.items()}
        for name, dim, e in reads:
            axis = ndims[name] - 1 - dim
            if axis not in chunked.get(name, ()):
                continue
            hit = rvar_offset(e, rvars)
            if hit is None:
                # another read (a clamped one, say): the block's bounds check covers it,
                # once some plain read ties its loop variables to the block
                loose.append((name, axis, e))
                continue
            rv, c = hit
            tie = (name, axis, c)
            old = self.ties.setdefault(rv, tie)
            if old[2] != c or (old[0] == name and old[1] != axis):
                raise CompileError(f"{where}: the reduction {self._at(d)} reads {name} along "
                                   f"axis {axis} at more than one offset of one loop variable "
                                   f"(a stencil inside a reduction): rechunk {name} to one "
                                   f"block along axis {axis}")
        by_axis = {}
        for rv, (name, axis, _) in self.ties.items():
            other = by_axis.setdefault(axis, rv)
            if other != rv:
                # blocks pair their own elements only: the pairs from two blocks are lost
                raise CompileError(f"{where}: two loops of the reduction {self._at(d)} run "
                                   f"along axis {axis} of the chunked arrays, so it combines "
                                   f"elements of different blocks: rechunk axis {axis} to "
                                   f"one block")
        for name, axis, e in loose:
            free = [v for v in ir.free_vars(e) if v in rvars and v not in self.ties]
            if free or not any(v in rvars for v in ir.free_vars(e)):
                raise CompileError(f"{where}: the reduction {self._at(d)} reads {name} along "
                                   f"axis {axis} at {ir.expr_to_str(e)}, not at a loop "
                                   f"variable of the reduction: rechunk {name} to one block "
                                   f"along axis {axis}")
        # each tied RVar (each RVar of a seeded fold) runs over [P_min, P_min + P_ext):
        # its points in the block, from the whole loop's bounds (computed by
        # dask_bounds) and the block
        self.bounds = {}               # RVar -> (min Param, extent Param)
        whole, new = [], []
        for rv in d.schedule.rvars:
            if rv.name in self.ties or self.seeded:
                mn = Param(ir.INDEX, f"{rv.name}$dask_min", 0)
                ext = Param(ir.INDEX, f"{rv.name}$dask_extent", 0)
                self.bounds[rv.name] = (mn, ext)
                whole += [Expr.wrap(rv.min), Expr.wrap(rv.extent)]
                rv = ir.ReductionVariable(rv.name, mn.node, ext.node)
            new.append(rv)
        d.schedule.rvars = new
        self.bounds_pipe = None
        if whole:
            bf = Func("dask_bounds")
            bf[()] = tuple(whole) if len(whole) > 1 else whole[0]
            self.bounds_pipe = Pipeline([bf])
        self.rvar_order = [rv.name for rv in d.schedule.rvars]     # innermost first

    def _outer_axis_only(self, chunked: dict):
        """Whether the one chunked axis is read by the outermost RVar."""
        axes = {(n, a) for n, ax in chunked.items() for a in ax}
        if not axes:
            return True
        outer = self.rvar_order[-1]
        tie = self.ties.get(outer)
        return tie is not None and all(tie[1] == a for _, a in axes)

    # running -----------------------------------------------------------------------------
    def partial(self, args, shapes, windows):
        """The intermediate of one block (windows: name -> (offsets, block)), or
        None when the block holds no point of the reduction."""
        w = self.chunk
        with w.lock:
            w.bind(args, shapes, windows)
            if self.bounds_pipe is not None:
                outs = [np.empty((), np.int32) for _ in range(2 * len(self.bounds))]
                self.bounds_pipe.bind_arrays(outs)()
                for j, (rv, (mn, ext)) in enumerate(self.bounds.items()):
                    lo = int(outs[2 * j])
                    hi = lo + int(outs[2 * j + 1])
                    if rv in self.ties:
                        name, axis, c = self.ties[rv]
                        offsets, block = windows[name]
                        lo = max(lo, int(offsets[axis]) - c)
                        hi = min(hi, int(offsets[axis]) + block.shape[axis] - c)
                    if hi <= lo:
                        return None         # an empty block: no partial result
                    if self.seeded:
                        self.seeds[rv].set(lo)
                        lo += self.shift
                    mn.set(lo)
                    ext.set(hi - lo)
            shape = self.shape(w, shapes)
            outs = [np.empty(shape, t.to_numpy()) for t in self.types]
            call = self.chunk_pipe.bind_arrays(outs)
        w.run_kernel(call)
        return tuple(outs)

    def shape(self, w, shapes) -> tuple:
        """R's extent per NumPy axis (the output's shape, from the whole arrays)."""
        if self.dims == 0:
            return ()
        for f, shape_fns in w.spec.out_funcs:
            if f.function() is self.function:
                env = w.last_env
                return tuple(int(fn(env)) for fn in shape_fns)
        raise CompileError(f"the reduction {self.function.name} is not a result of the "
                           f"function: its extent is unknown on Dask")

    def merge(self, parts: list):
        """The partial results merged left to right by the operator (None: an
        empty block, or none): one kernel call folds them all."""
        parts = [p for p in parts if p is not None]
        if len(parts) <= 1:
            return parts[0] if parts else None
        if self._merge is None:
            self._merge = _Merge(self.op, self.types, max(self.dims, 1))
        return self._merge(parts, self.dims)


def _node(e):
    return e.node if hasattr(e, "node") else e


class _Merge:
    """The partial results, stacked, folded left to right by op (op(op(P0,
    P1), P2) ...) element-wise in one kernel, compiled once per process."""

    def __init__(self, op, types, dims):
        from .var import RDom
        self.lock = __import__("threading").Lock()
        n = len(types)
        # the parts stacked along a last dimension (NumPy's first axis)
        self.ys = [ImageParam(t, dims + 1, f"dask_y{i}") for i, t in enumerate(types)]
        vs = tuple(Var(f"dask_v{i}") for i in range(dims))
        m = Func("dask_merge")
        first = [y[vs + (0,)] for y in self.ys]
        m[vs] = tuple(first) if n > 1 else first[0]
        r = RDom([(1, self.ys[0].dim(dims).extent() - 1)], "dask_r")
        fn = m.function()
        at = tuple(v.node for v in vs)
        mapping = {}
        for i, t in enumerate(types):
            mapping[f"x{i}"] = ir.Call(t, fn.name, at, ir.FUNC, i, fn)
            mapping[f"y{i}"] = self.ys[i][vs + (r.x,)].node
        vals = [Expr.wrap(ir.substitute(_node(o), mapping)) for o in op.ops]
        m[vs] = tuple(vals) if n > 1 else vals[0]
        self.pipe = Pipeline([m])
        self.types = types

    def __call__(self, parts, dims):
        from .buffer import wrap_array
        with self.lock:
            for i, p in enumerate(self.ys):
                stack = np.stack([np.reshape(part[i], -1 if dims == 0 else np.shape(part[i]))
                                  for part in parts])
                p.set(wrap_array(stack, p.name()))
            shape = np.shape(parts[0][0]) if dims else (1,)
            outs = [np.empty(shape, t.to_numpy()) for t in self.types]
            call = self.pipe.bind_arrays(outs)
        call()
        return tuple(o.reshape(()) if dims == 0 else o for o in outs)


class FinalStep:
    """The pipeline with the reduction's update replaced by one merge of the
    merged intermediate M (ImageParams, or nothing merged when every block
    was empty): R's initial value and what the function computes from R."""

    def __init__(self, pf, key, arrays, index: int, k: int, op):
        self.window = w = Window(pf, key, arrays)
        self.replace_update(w.spec.builder.funcs[index][1].function(), k, op)  # built alike

    def replace_update(self, fn, k: int, op):
        """Update k of the reduction fn becomes one merge of the merged
        intermediate (the ImageParams `ms`, when `present`)."""
        d = fn.updates[k]
        dims = fn.dimensions()
        self.dims = dims
        self.ms = [ImageParam(t, max(dims, 1), f"dask_m{i}") for i, t in enumerate(fn.output_types)]
        self.present = Param(ir.Bool(), "dask_merged", False)
        at = tuple(ir.Variable(ir.INDEX, a) for a in fn.args)
        m_at = at if dims else (ir.index(0),)
        mapping = {}
        for i, t in enumerate(fn.output_types):
            mapping[f"x{i}"] = ir.Call(t, fn.name, at, ir.FUNC, i, fn)
            mapping[f"y{i}"] = self.ms[i][tuple(Expr.wrap(x) for x in m_at)].node
        values = tuple(ir.Select(self.present.node, ir.substitute(_node(o), mapping),
                                 mapping[f"x{i}"]) for i, o in enumerate(op.ops))
        self.function = fn
        sched = ir.StageSchedule(dims=[x for x in fn.pure.schedule.dims if not x.is_rvar])
        fn.updates[k] = ir.Definition(at, values, [], sched, d.source)

    def run(self, args, shapes, windows, merged):
        """The function's result on the whole arrays, given the merged
        intermediate and the windows of the arrays the rest reads."""
        w = self.window
        with w.lock:
            shape = (1,)
            if merged is None and self.dims:
                env = w.bind(args, shapes, windows)
                fns = next(s for f, s in w.spec.out_funcs if f.function() is self.function)
                shape = tuple(int(fn(env)) for fn in fns)
            self.set_merged(merged, shape)
            return w.run(args, shapes, windows)

    def set_merged(self, merged, shape):
        """The merged intermediate (None: no block had a point) into `ms`;
        `shape`: the reduction's shape, for the unused `ms` when None."""
        flat = (lambda a: np.require(np.reshape(a, 1), requirements="CA")) \
            if self.dims == 0 else (lambda a: np.require(a, requirements="CA"))
        self.present.set(merged is not None)
        for i, m in enumerate(self.ms):
            if merged is None:
                m.set(np.zeros(shape, m.type().to_numpy()))
            else:
                m.set(flat(merged[i]))
