"""hl.BoundaryConditions: a Func over an unbounded domain from a Buffer,
ImageParam or Func defined on a box, with Halide 21's index mappings
(repeat_edge, constant_exterior, repeat_image, mirror_image,
mirror_interior). A bound given as (hl.Expr(), hl.Expr()) or None leaves its
dimension unbounded; dimensions past the bounds list are unbounded too."""
from __future__ import annotations

from . import ir
from .buffer import Buffer, ImageParam
from .errors import CompileError
from .expr import Expr, cast, clamp, is_python_number, logical_or, select, to_node
from .expr import abs as _abs
from .func import Func
from .source import at, user_location
from .var import Range, Var, unique_name


def _bound(b):
    """(min, extent) as Exprs, or None for an unbounded dimension."""
    if b is None:
        return None
    lo, ext = (b.min, b.extent) if isinstance(b, Range) else tuple(b)
    undefined = [v is None or (isinstance(v, Expr) and not v.defined()) for v in (lo, ext)]
    if all(undefined):
        return None
    if any(undefined):
        raise CompileError(f"a boundary condition's bound needs both a min and an extent, or "
                           f"neither (an unbounded dimension){at(user_location())}")
    return Expr(lo), Expr(ext)


def _setup(source, bounds, what: str):
    """(vars, types, bounds per dimension, call(args)) for a boundary condition."""
    loc = user_location()
    if isinstance(source, Func):
        if not source.defined():
            raise CompileError(f"{what}: Func {source.name()} is not defined{at(loc)}")
        if bounds is None:
            raise CompileError(f"{what} of a Func needs its bounds: {what}(f, [(min, extent), "
                               f"...]){at(loc)}")
        vs, types = source.args(), source.types()
    elif isinstance(source, (Buffer, ImageParam)):
        vs = [Var(unique_name("_i")) for _ in range(source.dimensions())]
        types = [source.type()]
        if bounds is None:
            bounds = [(source.dim(i).min(), source.dim(i).extent())
                      for i in range(source.dimensions())]
    else:
        raise TypeError(f"{what} needs a Buffer, ImageParam or Func, not {type(source).__name__}")
    bounds = [_bound(b) for b in bounds]
    if len(bounds) > len(vs):
        raise CompileError(f"{what}: {len(bounds)} bounds for a source of {len(vs)} "
                           f"dimensions{at(loc)}")
    bounds += [None] * (len(vs) - len(bounds))

    def call(args):
        ref = source[tuple(args)]
        return tuple(ref) if len(types) > 1 else ref

    return vs, types, bounds, call


def _outside(v, b) -> Expr:
    lo, ext = b
    return logical_or(v < lo, v >= lo + ext)


def _define(name: str, vs, value) -> Func:
    out = Func(name)
    out[tuple(vs)] = value
    return out


def _mapped(source, bounds, what: str, coord) -> Func:
    """f[x...] = source[coord(x, min, extent)...] in the bounded dimensions."""
    vs, _, bs, call = _setup(source, bounds, what)
    args = [v if b is None else coord(v, *b) for v, b in zip(vs, bs)]
    return _define(what, vs, call(args))


def _edge(v, lo, ext) -> Expr:
    return clamp(v, lo, lo + ext - 1)


def repeat_edge(f, bounds=None) -> Func:
    """Outside the bounds, the value at the nearest edge."""
    return _mapped(f, bounds, "repeat_edge", _edge)


def repeat_image(f, bounds=None) -> Func:
    """The image tiled over the plane."""
    def coord(v, lo, ext):
        return select(_outside(v, (lo, ext)), (v - lo) % ext + lo, _edge(v, lo, ext))
    return _mapped(f, bounds, "repeat_image", coord)


def mirror_image(f, bounds=None) -> Func:
    """The image reflected at its edges, the edge pixels repeated."""
    def coord(v, lo, ext):
        c = (v - lo) % (2 * ext)
        c = select(c >= ext, 2 * ext - 1 - c, c) + lo
        return select(_outside(v, (lo, ext)), _edge(c, lo, ext), _edge(v, lo, ext))
    return _mapped(f, bounds, "mirror_image", coord)


def mirror_interior(f, bounds=None) -> Func:
    """The image reflected at its edges, the edge pixels not repeated."""
    def coord(v, lo, ext):
        limit = ext - 1
        c = (v - lo) % (2 * limit) - limit
        c = cast(c.type(), _abs(c))
        c = limit - c + lo
        return select(_outside(v, (lo, ext)), c, _edge(v, lo, ext))
    return _mapped(f, bounds, "mirror_interior", coord)


def _exterior_value(value, t: ir.Type) -> Expr:
    if is_python_number(value) or isinstance(to_node(value), ir.Const):
        return cast(t, value)
    e = Expr(value)
    if e.type() != t:
        raise CompileError(f"constant_exterior's value has type {e.type()}, the source holds "
                           f"{t}{at(user_location())}")
    return e


def constant_exterior(f, exterior, bounds=None) -> Func:
    """Outside the bounds, the value `exterior` (a Tuple for a Tuple-valued Func)."""
    vs, types, bs, call = _setup(f, bounds, "constant_exterior")
    inner = call([v if b is None else _edge(v, *b) for v, b in zip(vs, bs)])
    outs = [_outside(v, b) for v, b in zip(vs, bs) if b is not None]
    if not outs:
        return _define("constant_exterior", vs, inner)
    oob = outs[0]
    for o in outs[1:]:
        oob = logical_or(oob, o)
    if len(types) > 1:
        ext = tuple(exterior) if isinstance(exterior, (tuple, list)) else (exterior,) * len(types)
        value = tuple(select(oob, _exterior_value(e, t), i) for e, t, i in zip(ext, types, inner))
    else:
        value = select(oob, _exterior_value(exterior, types[0]), inner)
    return _define("constant_exterior", vs, value)


class BoundaryConditions:
    """The namespace hl.BoundaryConditions."""

    repeat_edge = staticmethod(repeat_edge)
    repeat_image = staticmethod(repeat_image)
    mirror_image = staticmethod(mirror_image)
    mirror_interior = staticmethod(mirror_interior)
    constant_exterior = staticmethod(constant_exterior)
