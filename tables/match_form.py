"""The matching form of expressions: chains flattened, x-free parts marked.

Both sides of a match are converted to `M` trees:

- an update value (x = the Variables of kind SELF): every maximal x-free
  subtree becomes a `free` node holding the IR expression (what a wildcard may
  bind); it is expanded one level on demand when a pattern looks inside it;
- a table operator (x = Variables x0.., wildcards y0.., k0): its variables
  become `x` and `leaf` nodes, its literals `const` nodes.

Chains of Add/Sub (terms with signs), Mul, Min, Max, bitwise and logical
operations are flattened into `ac` nodes, so matching does not depend on how
a chain is associated. Comparisons are LT/LE only (`a > b` is `b < a`).

An x-free `select(a < b, a, b)` of integers is read as `min(a, b)` (as the
canonical form writes it where it has x), so a pattern may look inside it.

`skeleton` is the shape that only x-containing parts determine (every
x-free part is "Y", operands of commutative nodes sorted, a select taken in
whichever of its two spellings `select(c, a, b)` / `select(!c, b, a)` sorts
first; the negation of an && or || chain is its De Morgan dual). A table
operator can match an update only if their skeletons are
equal, so the table is indexed by skeleton.
"""
from __future__ import annotations

from pyhalide import ir

from .match_canon import SELF, negate

AC_KINDS = {"Add": "Add", "Sub": "Add", "Mul": "Mul", "Min": "Min", "Max": "Max",
            "BitAnd": "BitAnd", "BitOr": "BitOr", "BitXor": "BitXor", "And": "And", "Or": "Or"}
COMMUTATIVE_OPS = {"EQ", "NE"}
_FLIP = {"GT": "LT", "GE": "LE"}
_NEG = {"LT": "LE", "LE": "LT", "EQ": "NE", "NE": "EQ"}
_DUAL = {"And": "Or", "Or": "And"}


class M:
    """kind: x | leaf | const | free | ac | op.
    x: key = element index; leaf: key = wildcard name; const/free: expr = IR;
    ac: key = chain kind, kids = ((sign, M), ...); op: key = node key
    (class name, or "Cast:<type>" / "Call:<name>"), kids = (M, ...)."""

    __slots__ = ("kind", "key", "kids", "expr", "has_x", "type", "_skel")

    def __init__(self, kind, key=None, kids=(), expr=None, has_x=False, type=None):
        self.kind, self.key, self.kids, self.expr = kind, key, kids, expr
        self.has_x, self.type, self._skel = has_x, type, None

    def __repr__(self):
        return f"M({self.kind}, {self.key}, {self.kids or self.expr})"


def _op_key(e) -> str:
    if isinstance(e, ir.Cast):
        return f"Cast:{e.type}"
    if isinstance(e, ir.Call):
        return f"Call:{e.name}"
    return type(e).__name__


def _expr_kids(e) -> list:
    return [c for c in ir.children(e)]


class Converter:
    """IR -> M. `x_of(var)` gives the element index of an x Variable (or
    None); `wild(var)` says whether a Variable is a pattern wildcard."""

    def __init__(self, x_of, pattern: bool):
        self.x_of, self.pattern = x_of, pattern
        self.memo = {}

    def __call__(self, e) -> M:
        hit = self.memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        out = self._convert(e)
        self.memo[id(e)] = (e, out)
        return out

    def _convert(self, e) -> M:
        if isinstance(e, ir.Variable):
            i = self.x_of(e)
            if i is not None:
                return M("x", i, has_x=True, type=e.type)
            if self.pattern:
                return M("leaf", e.name, type=e.type)
            return M("free", expr=e, type=e.type)
        if self.pattern and isinstance(e, ir.Const):
            return M("const", expr=e, type=e.type)
        if not self.pattern and not self._has_x(e):
            return M("free", expr=e, type=e.type)
        return self.structure(e)

    def _has_x(self, e) -> bool:
        stack = [e]
        seen = set()
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            if isinstance(n, ir.Variable) and self.x_of(n) is not None:
                return True
            stack.extend(ir.children(n))
        return False

    def structure(self, e) -> M:
        """One level of structure of `e`, children converted."""
        name = type(e).__name__
        if name in _FLIP:
            return self.structure(getattr(ir, _FLIP[name])(e.b, e.a))
        if isinstance(e, ir.Not) and type(e.a).__name__ in ("LT", "LE", "GT", "GE", "EQ", "NE"):
            return self.structure(negate(e.a))
        if not self.pattern and name == "Select":
            e = _select_as_min_max(e)
            name = type(e).__name__
        if name in AC_KINDS:
            kind = AC_KINDS[name]
            terms = []
            _flatten(e, kind, 1, terms)
            kids = tuple((s, self(t)) for s, t in terms)
            return M("ac", kind, kids, expr=e, has_x=any(k.has_x for _, k in kids), type=e.type)
        kids = tuple(self(c) for c in _expr_kids(e))
        return M("op", _op_key(e), kids, expr=e, has_x=any(k.has_x for k in kids), type=e.type)


def _select_as_min_max(e):
    """An x-free `select(a < b, a, b)` of integers as `min(a, b)` (and the
    other spellings, and max), as the canonical form writes those with x:
    a pattern's `min(y0, k0)` then binds a and b."""
    c, a, b = e.condition, e.true_value, e.false_value
    if a.type.is_float() or a.type.is_bool():
        return e
    if isinstance(c, (ir.GT, ir.GE)):
        c = (ir.LT if isinstance(c, ir.GT) else ir.LE)(c.b, c.a)
    if isinstance(c, (ir.LT, ir.LE)):
        if ir.equal(c.a, a) and ir.equal(c.b, b):
            return ir.Min(a, b)
        if ir.equal(c.a, b) and ir.equal(c.b, a):
            return ir.Max(a, b)
    return e


def _flatten(e, kind, sign, out):
    name = type(e).__name__
    if AC_KINDS.get(name) == kind:
        _flatten(e.a, kind, sign, out)
        _flatten(e.b, kind, -sign if name == "Sub" else sign, out)
    else:
        out.append((sign, e))


def expand(m: M, conv: Converter) -> M:
    """The structure of a free node (its children free nodes), or m itself
    when it has none (a variable, a constant, a call without arguments)."""
    if m.kind != "free" or not any(True for _ in ir.children(m.expr)):
        return m
    return conv.structure(m.expr)


def negate_m(m: M, conv: Converter) -> M:
    """The M of `!c` for a condition `c`."""
    if m.kind == "op" and m.key in _NEG:
        kids = m.kids if m.key in COMMUTATIVE_OPS else (m.kids[1], m.kids[0])
        return M("op", _NEG[m.key], kids, has_x=m.has_x, type=m.type)
    if m.kind == "op" and m.key == "Not":
        return m.kids[0]
    if is_logical_chain(m):                         # De Morgan
        kids = tuple((s, negate_m(k, conv)) for s, k in m.kids)
        return M("ac", _DUAL[m.key], kids, has_x=m.has_x, type=m.type)
    if m.kind == "free":
        return M("free", expr=negate(m.expr), type=m.type)
    return M("op", "Not", (m,), has_x=m.has_x, type=m.type)


def skeleton(m: M, rename=None) -> str:
    """The x-shape of m; x indices mapped through `rename` (a dict) if given."""
    if not m.has_x:
        return "Y"
    if rename is None and m._skel is not None:
        return m._skel
    if m.kind == "x":
        out = f"x{m.key if rename is None else rename[m.key]}"
    elif m.kind == "ac":
        parts = sorted(("-" if s < 0 else "+") + skeleton(k, rename) for s, k in m.kids if k.has_x)
        tail = ";Y" if any(not k.has_x for _, k in m.kids) else ""
        out = f"{m.key}[{','.join(parts)}{tail}]"
    elif m.key == "Select":
        c, a, b = m.kids
        direct = f"Select({skeleton(c, rename)},{skeleton(a, rename)},{skeleton(b, rename)})"
        flipped = f"Select({_neg_skeleton(c, rename)},{skeleton(b, rename)},{skeleton(a, rename)})"
        out = min(direct, flipped)
    elif m.key == "Not" and is_logical_chain(m.kids[0]):
        out = _neg_skeleton(m.kids[0], rename)      # !(a && b) is !a || !b
    else:
        kids = [skeleton(k, rename) for k in m.kids]
        if m.key in COMMUTATIVE_OPS:
            kids.sort()
        out = f"{m.key}({','.join(kids)})"
    if rename is None:
        m._skel = out
    return out


def is_logical_chain(m: M) -> bool:
    return m.kind == "ac" and m.key in _DUAL


def _neg_skeleton(c: M, rename) -> str:
    if not c.has_x:
        return "Y"
    if c.kind == "op" and c.key in _NEG:
        kids = [skeleton(k, rename) for k in c.kids]
        if c.key in COMMUTATIVE_OPS:
            kids.sort()
        else:
            kids.reverse()
        return f"{_NEG[c.key]}({','.join(kids)})"
    if c.kind == "op" and c.key == "Not":
        return skeleton(c.kids[0], rename)
    if is_logical_chain(c):                         # De Morgan, as negate_m
        parts = sorted("+" + _neg_skeleton(k, rename) for _, k in c.kids if k.has_x)
        tail = ";Y" if any(not k.has_x for _, k in c.kids) else ""
        return f"{_DUAL[c.key]}[{','.join(parts)}{tail}]"
    return f"Not({skeleton(c, rename)})"


def expression_converter() -> Converter:
    """Converter for update values (x = Variables of kind SELF)."""
    return Converter(lambda v: int(v.name[1:]) if v.kind == SELF else None, pattern=False)


def pattern_converter() -> Converter:
    """Converter for table operators (x = Variables x0, x1, ...)."""
    def x_of(v):
        n = v.name
        return int(n[1:]) if n[0] == "x" and n[1:].isdigit() else None
    return Converter(x_of, pattern=True)
