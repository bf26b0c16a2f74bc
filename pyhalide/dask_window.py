"""A @pipeline specialization computed on a window of its arrays (pyhalide.dask).

Each Dask task holds one block of each array argument (plus a halo), not the
whole array. `Window` rewrites a fresh specialization so that it computes in
the *global* coordinates of the whole arrays while reading only the block:

- every read of an array argument `a(e0, e1, ...)` becomes `a(e0 - o0, ...)`,
  with the window's offsets `o_k` as parameters set per task;
- every use of the argument's extent (`a.shape`, loop bounds, checks) becomes
  a parameter holding the whole array's extent;
- the specialization's shape-derived values are computed from the whole
  arrays' shapes (the arguments are bound as zero-stride views of that shape
  first, then their buffers replaced by the blocks).

So every value it computes is the value the whole-array call computes at the
same coordinates, and a read outside the block is the kernel's own bounds
check failing (a located error, never a different value).
"""
from __future__ import annotations

import dataclasses
import re
import threading

import numpy as np

from . import ir
from .buffer import Param, wrap_array
from .ir.func_walk import func_closure

_READ_OVER = re.compile(r"input buffer (\S+) is read over \[(-?\d+), (-?\d+)\] in dimension "
                        r"(\d+)")


class OutsideWindow(ValueError):
    """A task read an array argument outside the window it holds (lo, hi:
    the window's coordinates; dim: Halide's dimension, NumPy axis ndim-1-dim)."""

    def __init__(self, name: str, dim: int, lo: int, hi: int):
        super().__init__(f"on Dask, a task read array {name!r} outside its block and halo "
                         f"([{lo}, {hi}] of its block, dimension {dim} counted from the last "
                         f"axis): the function reads elements of other blocks in a way that "
                         f"is not split into blocks (indices computed from data, a scan "
                         f"along the chunked axis); rechunk {name} to one block along that "
                         f"axis, or call the function on NumPy arrays")
        self.name, self.dim, self.lo, self.hi = name, dim, lo, hi


def outside_window(e: Exception):
    """The OutsideWindow a kernel's bounds-check error stands for, or None."""
    m = _READ_OVER.search(str(e))
    if m is None:
        return None
    return OutsideWindow(m.group(1), int(m.group(4)), int(m.group(2)), int(m.group(3)))


class Shift(ir.Mutator):
    """Reads of the window's images shifted by the offsets; their extents
    replaced by the whole-array extents."""

    def __init__(self, images: dict):
        super().__init__()
        self.images = images          # id(ImageParam) -> (offset Params, extent Params)

    def visit_Call(self, c):
        c = self.mutate_children(c)
        hit = self.images.get(id(c.func)) if c.call_type == ir.IMAGE else None
        if hit is None:
            return c
        offsets, extents = hit
        args = tuple(ir.Sub(_unclamped(a, extents[k].node), offsets[k].node)
                     for k, a in enumerate(c.args))
        return dataclasses.replace(c, args=args)

    def visit_Variable(self, v):
        if v.kind != "param" or v.param is None:
            return v
        hit = self.images.get(id(v.param))
        if hit is None:
            return v
        m = re.fullmatch(r".*\.extent\.(\d+)", v.name)
        if m is None:
            return v
        return hit[1][int(m.group(1))].node


def _unclamped(e, extent):
    """x for the frontend's checked read `max(min(select(x < n, x, -1), n - 1), 0)`
    of an axis of extent n (whose check fails wherever x is not in [0, n)):
    on a window, x outside [0, n) is outside the window too, so the read
    fails its bounds check instead of reading the clamped element."""
    if not (isinstance(e, ir.Max) and ir.is_const(e.b, 0) and isinstance(e.a, ir.Min)):
        return e
    m = e.a
    if not (isinstance(m.b, ir.Sub) and m.b.a == extent and ir.is_const(m.b.b, 1)):
        return e
    sel = m.a
    if isinstance(sel, ir.Select) and isinstance(sel.condition, ir.LT) and \
            sel.condition.b == extent and ir.equal(sel.condition.a, sel.true_value) and \
            ir.is_const(sel.false_value, -1):
        return sel.true_value
    return e


def rvar_offset(e, rvars):
    """(RVar name, constant) when e is `r` or `r + c` for an RVar r named in
    rvars, else None."""
    if isinstance(e, ir.Variable) and e.name in rvars:
        return e.name, 0
    if isinstance(e, ir.Add) and isinstance(e.a, ir.Variable) and e.a.name in rvars:
        c = ir.const_value(e.b)
        if isinstance(c, int):
            return e.a.name, c
    return None


def reachable(funcs) -> list:
    """The Functions the given Functions call, themselves included, each once."""
    return [fn for fn, _ in func_closure(
        funcs, lambda fn: ir.find_calls([e for d in fn.definitions() for e in definition_exprs(d)]))]


def definition_exprs(d) -> list:
    exprs = list(d.args) + list(d.values) + list(d.predicates)
    exprs += [x for rv in d.schedule.rvars for x in (rv.min, rv.extent)]
    if d.exit is not None:
        exprs.append(d.exit)
    return exprs


def rewrite_definition(d, m: ir.Mutator):
    d.args = tuple(m.mutate(a) for a in d.args)
    d.values = tuple(m.mutate(v) for v in d.values)
    d.predicates = [m.mutate(p) for p in d.predicates]
    if d.exit is not None:
        d.exit = m.mutate(d.exit)
    d.schedule.rvars = [ir.ReductionVariable(rv.name, m.mutate(rv.min), m.mutate(rv.extent))
                        for rv in d.schedule.rvars]


class Window:
    """A fresh specialization of `pf` for argument key `key`, rewritten to
    compute in global coordinates on windows of its array arguments
    (`arrays`: the parameter names of the Dask arguments)."""

    def __init__(self, pf, key, arrays):
        self.pf = pf
        # the default schedule: the blocks, not a schedule, split the loops on Dask
        from .frontend_ast.specialize import Specialization
        self.spec = Specialization(pf.parsed(), key, schedule=None)
        self.arrays = list(arrays)
        b = self.spec.builder
        self.images = {}              # name -> (ImageParam, offsets, extents)
        for name in self.arrays:
            inp = b.inputs.get(name)
            image = getattr(inp, "image", None)
            if image is None:
                raise TypeError(f"argument {name!r} of {pf.__name__} is not an array the "
                                f"compiled code reads as a whole")
            dims = image.dimensions()
            offsets = [Param(ir.INDEX, f"{image.name()}$dask_o{k}", 0) for k in range(dims)]
            extents = [Param(ir.INDEX, f"{image.name()}$dask_n{k}", 0) for k in range(dims)]
            self.images[name] = (image, offsets, extents)
        self.lock = threading.RLock()     # guards the bound inputs and parameters
        self.last_env = None
        self._pending = None
        self.spec.bind = self._bind_pending       # Specialization.run binds through it
        self.spec.in_window = True
        self.functions = reachable([f.function() for _, f, _ in b.funcs if f.defined()])
        shift = Shift({id(img): (o, n) for img, o, n in self.images.values()})
        for fn in self.functions:
            for d in fn.definitions():
                rewrite_definition(d, shift)

    def func_named(self, function):
        """The user-level Func of a Function of this specialization."""
        for _, f, _ in self.spec.builder.funcs:
            if f.function() is function:
                return f
        from .autoschedule.funcapi import func_of
        return func_of(function)

    def bind(self, args: list, shapes: dict, windows: dict):
        """Bind the call's arguments (`args`, in parameter order, each array
        argument a placeholder), the whole arrays' shapes (name -> shape) and
        the windows (name -> (offsets in NumPy axis order, block array));
        returns the specialization's static environment."""
        whole = list(args)
        for i, name in enumerate(self.spec.pf.params):
            if name in shapes:
                dtype = self.images[name][0].type().to_numpy()
                whole[i] = np.broadcast_to(np.zeros((), dtype), shapes[name])
        env = type(self.spec).bind(self.spec, whole)
        self.last_env = env
        for name, (image, o_params, n_params) in self.images.items():
            nd = image.dimensions()
            offsets, block = windows.get(name, ((0,) * nd, None))
            if block is None:        # read nowhere: an empty window
                block = np.zeros((0,) * nd, image.type().to_numpy())
            image.set(wrap_array(np.require(block, requirements="CA"), name))
            for axis in range(nd):
                o_params[nd - 1 - axis].set(int(offsets[axis]))
                n_params[nd - 1 - axis].set(int(shapes[name][axis]))
        return env

    def _bind_pending(self, args):
        return self.bind(*self._pending)

    def run_kernel(self, call):
        """call() (a bound kernel), its errors in the user's terms; a read
        outside the windows raises OutsideWindow."""
        from .errors import CompileError
        try:
            call()
        except CompileError as e:
            raise self.spec.located(e) from None
        except (IndexError, ValueError) as e:
            out = outside_window(e)
            if out is not None:
                raise out from None
            if isinstance(e, IndexError):
                raise self.spec.translate(e, self.last_env) from None
            raise

    def run(self, args, shapes, windows):
        """The specialization's result (as the function returns it) computed
        on the windows; a read outside them raises OutsideWindow."""
        with self.lock:
            self._pending = (args, shapes, windows)
            try:
                return self.spec.run(args)
            except IndexError as e:
                out = outside_window(e)
                if out is not None:
                    raise out from None
                raise
            finally:
                self._pending = None
