"""Var, RVar, RDom and Range."""
from __future__ import annotations

import itertools

from . import ir
from .errors import CompileError
from .expr import Expr, cast_node, to_node
from .ir.errors import counted

_counter = itertools.count()
_var_counter = itertools.count()     # Var() is v0, v1, ... as in Halide


def unique_name(prefix: str) -> str:
    return f"{prefix}{next(_counter)}"


class Var(Expr):
    """A pure variable: one dimension of a Func's domain."""

    __slots__ = ("_name",)

    def __init__(self, name: str | None = None):
        self._name = name or f"v{next(_var_counter)}"
        self.node = ir.Variable(ir.INDEX, self._name)

    def name(self) -> str:
        return self._name

    def same_as(self, other) -> bool:
        """Whether both are the same variable (Vars are equal by name, as in Halide)."""
        return isinstance(other, Var) and other._name == self._name

    @staticmethod
    def implicit(i: int) -> "Var":
        """Halide's implicit variable _i."""
        return Var(f"_{int(i)}")

    def is_implicit(self) -> bool:
        return self.implicit_index() >= 0

    def implicit_index(self) -> int:
        n = self._name
        return int(n[1:]) if n.startswith("_") and n[1:].isdigit() else -1

    def is_placeholder(self) -> bool:
        return self._name == "_"

    @staticmethod
    def outermost() -> "Var":
        return Var("__outermost")

    def __repr__(self) -> str:
        return f"<halide.Var '{self._name}'>"

    __hash__ = Expr.__hash__


# Halide's placeholder `_` (f[x, _] stands for the dimensions left: _0, _1, ...)
# and its implicit variables _0 .. _9
_ = Var("_")
_0, _1, _2, _3, _4, _5, _6, _7, _8, _9 = (Var.implicit(i) for i in range(10))


def implicit_count(nodes) -> int:
    """1 + the largest index i of an implicit variable _i in `nodes`, else 0."""
    found = [int(n[1:]) for n, v in ir.free_vars(list(nodes)).items()
             if v.kind == "" and n.startswith("_") and n[1:].isdigit()]
    return max(found) + 1 if found else 0


def placeholder_position(items) -> int:
    """Where `_` is among a call's arguments, -1 if it is not."""
    for i, a in enumerate(items):
        if isinstance(a, Var) and a.is_placeholder():
            return i
    return -1


def expand_placeholder(items: tuple, n: int) -> tuple:
    """The arguments with `_` replaced by the implicit variables _0 .. _{n-1}."""
    pos = placeholder_position(items)
    if pos < 0:
        return items
    return items[:pos] + tuple(Var.implicit(i) for i in range(n)) + items[pos + 1:]


class RVar(Expr):
    """A reduction variable: one dimension of an RDom (or the result of
    splitting/fusing RVars in a schedule)."""

    __slots__ = ("_name", "_rdom", "_index")

    def __init__(self, name: str | None = None, _rdom=None, _index: int = 0):
        self._name = name or unique_name("rv")
        self._rdom = _rdom
        self._index = _index
        self.node = ir.Variable(ir.INDEX, self._name, "rvar", _rdom)

    def name(self) -> str:
        return self._name

    def min(self) -> Expr:
        if self._rdom is None:
            raise CompileError(f"RVar {self._name} belongs to no RDom")
        return Expr.wrap(self._rdom._bounds[self._index][0])

    def extent(self) -> Expr:
        if self._rdom is None:
            raise CompileError(f"RVar {self._name} belongs to no RDom")
        return Expr.wrap(self._rdom._bounds[self._index][1])

    def __repr__(self) -> str:
        if self._rdom is None:
            return f"<halide.RVar {self._name}>"
        return f"<halide.RVar {self._rdom._dim_text(self._index)}>"

    __hash__ = Expr.__hash__


class Range:
    """An interval given as (min, extent)."""

    def __init__(self, min, extent):
        self.min = min
        self.extent = extent

    def __iter__(self):
        return iter((self.min, self.extent))


def _index_expr(v, what: str) -> ir.Expr:
    n = to_node(v)
    if not (n.type.is_integer() or n.type.is_bool()):
        raise TypeError(f"{what} must be an integer, not {n.type}")
    return cast_node(ir.INDEX, n)


_DIM_NAMES = "xyzw"


class RDom(Expr):
    """A reduction domain: nested loops, the first dimension innermost.

    RDom([(min0, extent0), (min1, extent1)], "r"), RDom(Range(...), ...),
    or RDom(buffer) spanning a Buffer's or ImageParam's domain."""

    __slots__ = ("_name", "_bounds", "_vars", "_predicates")

    def __init__(self, region=None, name: str | None = None, *more):
        self._name = name if isinstance(name, str) else unique_name("r")
        if region is None and not more:    # Halide's undefined RDom()
            self._bounds, self._vars, self._predicates, self.node = [], [], [], None
            return
        items = self._region_items(region, name, more)
        if not items:
            raise CompileError("an RDom needs at least one dimension")
        self._bounds = []
        self._vars = []
        for i, item in enumerate(items):
            try:
                lo, ext = item
            except (TypeError, ValueError):
                raise TypeError(f"RDom dimension {i}: expected (min, extent), got {item!r}") from None
            self._bounds.append((_index_expr(lo, "RDom min"), _index_expr(ext, "RDom extent")))
            suffix = _DIM_NAMES[i] if i < 4 else str(i)
            self._vars.append(RVar(f"{self._name}${suffix}", self, i))
        self._predicates = []
        self.node = self._vars[0].node

    @staticmethod
    def _region_items(region, name, more):
        if hasattr(region, "dim"):          # a Buffer or an ImageParam: its domain
            return [(region.dim(i).min(), region.dim(i).extent())
                    for i in range(region.dimensions())]
        if isinstance(region, Range):
            extra = [name] if isinstance(name, Range) else []
            return [region] + extra + [m for m in more if isinstance(m, Range)]
        return list(region)

    # access ---------------------------------------------------------------
    @property
    def x(self) -> RVar:
        return self._vars[0]

    @property
    def y(self) -> RVar:
        return self._dim(1)

    @property
    def z(self) -> RVar:
        return self._dim(2)

    @property
    def w(self) -> RVar:
        return self._dim(3)

    def _dim(self, i) -> RVar:
        if i >= len(self._vars):
            raise CompileError(f"RDom {self._name} has {counted(len(self._vars), 'dimension')}; "
                               f"dimension {i} does not exist")
        return self._vars[i]

    def __getitem__(self, i) -> RVar:
        """r[i], 0 <= i < r.dimensions(); KeyError otherwise (as in Halide: no
        negative indices)."""
        if not 0 <= i < len(self._vars):
            raise KeyError(f"RDom {self._name} has {counted(len(self._vars), 'dimension')}; "
                           f"r[{i}] does not exist")
        return self._vars[i]

    def __iter__(self):
        return iter(list(self._vars))

    def __len__(self) -> int:
        return len(self._vars)

    def dimensions(self) -> int:
        return len(self._vars)

    def name(self) -> str:
        return self._name

    def where(self, cond) -> "RDom":
        """Restrict the domain to points where `cond` holds (ANDed)."""
        n = to_node(cond)
        if not n.type.is_bool():
            n = ir.NE(n, ir.zero(n.type))
        self._predicates.append(n)
        return self

    def predicates(self) -> list:
        """The conditions `where` added (bool IR nodes, ANDed)."""
        return list(self._predicates)

    def reduction_variables(self) -> list:
        return [ir.ReductionVariable(v.name(), lo, ext)
                for v, (lo, ext) in zip(self._vars, self._bounds)]

    def __repr__(self) -> str:
        if not self._vars:
            return "<halide.RDom RDom()>"
        dims = "".join(f"  {self._dim_text(i)}\n" for i in range(len(self._vars)))
        return f"<halide.RDom RDom(\n{dims})>"

    __str__ = __repr__                       # Halide 21: str(RDom) is its repr

    def _dim_text(self, i: int) -> str:
        """Halide's text of dimension i: `r$x(min, extent)`."""
        lo, ext = self._bounds[i]
        return f"{self._vars[i].name()}({ir.expr_to_str(lo)}, {ir.expr_to_str(ext)})"

    __hash__ = Expr.__hash__
