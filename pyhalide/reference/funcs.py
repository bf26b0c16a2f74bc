"""`Realizer`: values of Funcs at arbitrary points, input images and params.

A Func's value at a point is independent of any region: its pure definition
at that point, then each update in order. Pure-only Funcs are evaluated over
whole index grids; Funcs with updates run each update for the points asked
(updates.py). A request for many nearby points is served from the Func's
bounding box of them, kept in a per-Func cache (consumers of a stencil ask
for overlapping boxes, which grow the cached box instead of recomputing per
tap); a request for a few scattered points (a lookup table indexed by data)
evaluates just those points.
"""
from __future__ import annotations

import math
import re

import numpy as np

from ..ir import nodes as N
from ..ir.errors import counted
from ..ir.function import Function
from .exprs import Context
from .points import PointSet
from .updates import UpdateInfo, run_update, walk

# Boxes up to twice the number of points asked plus this many are realized whole.
BOX_SLACK = 4096

_GEOMETRY = re.compile(r"^(.+)\.(min|extent|stride)\.(\d+)$")


def _volume(box) -> int:
    return math.prod(e for _, e in box)


def _hull(a, b):
    out = []
    for (am, ae), (bm, be) in zip(a, b):
        lo, hi = min(am, bm), max(am + ae, bm + be)
        out.append((lo, hi - lo))
    return out


def _contains(outer, inner) -> bool:
    return all(om <= im and im + ie <= om + oe for (om, oe), (im, ie) in zip(outer, inner))


def _crop(values, outer, inner):
    """The part `inner` of arrays over box `outer` (NumPy axes reversed)."""
    index = tuple(slice(im - om, im - om + ie) for (om, _), (im, ie) in reversed(list(zip(outer, inner))))
    return [v[index] for v in values]


def _grids(args, box) -> dict:
    """Each pure Var bound to its coordinates along its own (reversed) axis."""
    nd = len(box)
    out = {}
    for d, (m, e) in enumerate(box):
        shape = [1] * nd
        shape[nd - 1 - d] = e
        out[args[d]] = np.arange(m, m + e, dtype=np.int64).reshape(shape)
    return out


def _read_by_address(name: str, arr: np.ndarray, coords: list):
    """The elements of a contiguous array at the addresses `coords`
    (dimension 0 first) give with its strides (a flat_index read)."""
    if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
        raise IndexError(f"image {name} is read by address but is not contiguous")
    steps = [s // arr.itemsize for s in reversed(arr.strides)]
    pos = sum(c * s for c, s in zip(coords, steps))
    bad = (pos < 0) | (pos >= arr.size)
    if np.any(bad):
        raise IndexError(f"image {name} read by address outside its {arr.size} elements")
    return arr.ravel(order="K")[pos]


def _int_coords(what: str, args: list) -> list:
    """Integer coordinates as int64 arrays broadcast together."""
    for a in args:
        if np.asarray(a).dtype.kind not in "iu":
            raise TypeError(f"{what} read at a coordinate of type {np.asarray(a).dtype}")
    return np.broadcast_arrays(*[np.asarray(a).astype(np.int64) for a in args])


def _scalar(t, raw):
    """A parameter value as a NumPy scalar of type t (integers wrap)."""
    dt = t.to_numpy()
    if t.is_float():
        return dt.type(float(raw))
    if t.is_bool():
        return np.bool_(bool(raw))
    return dt.type(t.wrap(int(raw)))


def check_function(f: Function):
    """Reject definitions the evaluator cannot give a meaning to."""
    if f.pure is None:
        raise ValueError(f"Func {f.name} has no pure definition")
    types = [v.type for v in f.pure.values]
    if f.output_types and tuple(f.output_types) != tuple(types):
        raise TypeError(f"Func {f.name}: output types {list(f.output_types)} differ from "
                        f"the pure definition's {types}")
    for n in walk(f.pure.values):
        if isinstance(n, N.Call) and n.call_type == N.FUNC and n.name == f.name:
            raise ValueError(f"the pure definition of {f.name} calls {f.name}")
    for i, u in enumerate(f.updates):
        where = f"update {i} of {f.name}"
        if len(u.args) != len(f.args):
            raise ValueError(f"{where} has {counted(len(u.args), 'coordinate')}, {f.name} has {counted(len(f.args), 'dimension')}")
        if [v.type for v in u.values] != types:
            raise TypeError(f"{where} has value types {[v.type for v in u.values]}, not {types}")
        for a in u.args:
            if not a.type.is_integer():
                raise TypeError(f"{where} has a coordinate of type {a.type}")
        for p in u.predicates:
            if not p.type.is_bool():
                raise TypeError(f"{where} has a predicate of type {p.type}")


class Realizer:
    """Evaluates Funcs over points for one set of inputs and params."""

    def __init__(self, funcs: dict, inputs: dict, params: dict):
        self.funcs = funcs
        self.inputs = inputs
        self.params = params
        self._infos: dict = {}       # Func name -> [UpdateInfo] once checked
        self._boxes: dict = {}       # Func name -> (box, values over it)
        self._scalars: dict = {}     # (name, type) -> NumPy scalar

    # ---- leaves ---------------------------------------------------------------
    def function(self, name: str) -> Function:
        f = self.funcs.get(name)
        if f is None:
            raise KeyError(f"unknown Func {name!r}")
        if name not in self._infos:
            check_function(f)
            self._infos[name] = [UpdateInfo(f, u) for u in f.updates]
        return f

    def param(self, var: N.Variable):
        """The value of an unbound variable: a scalar param from `params`, or
        an input buffer's `<buf>.min.<d>`, `.extent.<d>` or `.stride.<d>`."""
        key = (var.name, var.type)
        v = self._scalars.get(key)
        if v is None:
            if var.name in self.params:
                raw = self.params[var.name]
            else:
                m = _GEOMETRY.match(var.name)
                if m is None or m.group(1) not in self.inputs:
                    raise KeyError(f"unbound variable or param {var.name!r}")
                arr = np.asarray(self.inputs[m.group(1)])
                d = int(m.group(3))
                if d >= arr.ndim:
                    raise IndexError(f"{var.name}: input {m.group(1)} has {counted(arr.ndim, 'dimension')}")
                axis = arr.ndim - 1 - d
                raw = {"min": 0, "extent": arr.shape[axis],
                       "stride": arr.strides[axis] // max(arr.itemsize, 1)}[m.group(2)]
            v = self._scalars[key] = _scalar(var.type, raw)
        return v

    def image(self, call: N.Call, args: list, flat=False):
        """Read input `call.name` at the coordinates `args` (dimension 0
        first); `flat`: at the address they give (ir/flat_index.py), in a
        C- or Fortran-contiguous array."""
        if call.name not in self.inputs:
            raise IndexError(f"unknown input image {call.name!r}")
        arr = np.asarray(self.inputs[call.name])
        if len(args) != arr.ndim:
            raise IndexError(f"image {call.name} has {counted(arr.ndim, 'dimension')}, read with {len(args)}")
        if arr.dtype != call.type.to_numpy():
            raise TypeError(f"image {call.name} holds {arr.dtype}, read as {call.type}")
        coords = _int_coords(f"image {call.name}", args)
        if flat:
            return _read_by_address(call.name, arr, coords)
        for d, c in enumerate(coords):
            extent = arr.shape[arr.ndim - 1 - d]
            bad = (c < 0) | (c >= extent)
            if bad.any():
                i = np.unravel_index(np.flatnonzero(bad)[0], c.shape)
                point = ", ".join(str(int(x[i])) for x in coords)
                raise IndexError(f"image {call.name} read at ({point}): coordinate {d} is "
                                 f"outside [0, {extent})")
        return arr[tuple(reversed(coords))]

    # ---- Funcs ------------------------------------------------------------------
    def func_at(self, name: str, args: list) -> list:
        """Every value of Func `name` at the points `args` (one array or scalar
        per dimension, broadcast together)."""
        f = self.function(name)
        nd = len(f.args)
        if len(args) != nd:
            raise IndexError(f"{name} has {counted(nd, 'dimension')}, called with {counted(len(args), 'coordinate')}")
        if nd == 0:
            return self.realize(name, [])
        coords = _int_coords(f"Func {name}", args)
        shape, n = coords[0].shape, coords[0].size
        if n == 0:
            return [np.empty(shape, v.type.to_numpy()) for v in f.pure.values]
        box = [(int(c.min()), int(c.max()) - int(c.min()) + 1) for c in coords]
        if _volume(box) <= 2 * n + BOX_SLACK:
            values = self.realize(name, box)
            index = tuple(coords[d] - box[d][0] for d in reversed(range(nd)))
            return [v[index] for v in values]
        points = PointSet(nd)
        slots, _ = points.add([c.reshape(-1) for c in coords], n)
        values = self.stage_at(f, len(f.updates), points.cols, points.size)
        return [v[slots].reshape(shape) for v in values]

    def realize(self, name: str, box) -> list:
        """Every value of Func `name` over `box` ([(min, extent)] per dimension),
        as arrays with reversed axes. The returned arrays may be shared."""
        f = self.function(name)
        box = [(int(m), int(e)) for m, e in box]
        if any(e <= 0 for _, e in box):
            shape = tuple(max(e, 0) for _, e in reversed(box))
            return [np.empty(shape, v.type.to_numpy()) for v in f.pure.values]
        cached = self._boxes.get(name)
        target = box
        if cached is not None:
            if _contains(cached[0], box):
                return _crop(cached[1], cached[0], box)
            hull = _hull(cached[0], box)
            if _volume(hull) <= 2 * (_volume(cached[0]) + _volume(box)) + BOX_SLACK:
                target = hull
        values = self._compute(f, target)
        if cached is None or _volume(target) >= _volume(cached[0]):
            self._boxes[name] = (target, values)
        return _crop(values, target, box)

    def _compute(self, f: Function, box) -> list:
        shape = tuple(e for _, e in reversed(box))
        grids = _grids(f.args, box)
        if not f.updates:
            ctx = Context(self, grids)
            return [np.broadcast_to(ctx.ev(v), shape) for v in f.pure.values]
        cols = [np.broadcast_to(g, shape).reshape(-1) for g in grids.values()]
        values = self.stage_at(f, len(f.updates), cols, math.prod(shape))
        return [v.reshape(shape) for v in values]

    def stage_at(self, f: Function, k: int, cols: list, n: int) -> list:
        """The values of f after its first k updates (k == 0: the pure
        definition) at n points given as 1-D coordinate arrays."""
        if k == 0:
            ctx = Context(self, dict(zip(f.args, cols)))
            return [np.broadcast_to(ctx.ev(v), (n,)) for v in f.pure.values]
        self.function(f.name)
        return run_update(self, f, k, self._infos[f.name][k - 1], cols, n)
