"""Integer expressions as linear forms: sum of coef * atom + constant.

Rewriting an integer Add/Sub/Mul-by-constant tree through its linear form is
exact under wrap-around (it only uses ring identities), so the simplifier uses
it on every integer expression."""
from __future__ import annotations

import itertools

from pyhalide import ir
from pyhalide.ir.printer import ExprPrinter

# Linear forms and atom keys by node identity, shared by every call (the
# simplifier asks for the linear form of the same subexpressions again and
# again). Entries hold their node, so an id is never reused while it is in a
# table; both are cleared when they grow past _MEMO_MAX entries. Cached
# Linear objects are never modified: `plus` and `scaled` return new ones.
_MEMO_MAX = 50_000
_FORMS: dict = {}


# a key longer than this is replaced by a short one: the text of a DAG of
# shared subexpressions grows with its tree, not its DAG
_KEY_MAX = 1000
_SHORT = itertools.count()


class _KeyPrinter(ExprPrinter):
    """The IR printer with its memo kept across calls (holding each node).
    A text over _KEY_MAX characters gets a short key, the same for the same
    text while the memo lasts; numbers are never reused, so a structure seen
    again after the memo was cleared gets a new key (it is then a different
    atom to the forms cached before: less cancellation, never a wrong one)."""

    def __init__(self):
        super().__init__()
        self.short = {}

    def p(self, e) -> str:
        hit = self.memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        s = self._p(e)
        if len(s) > _KEY_MAX:
            key = self.short.get(s)
            if key is None:
                key = self.short[s] = f"<atom {next(_SHORT)}>"
            s = key
        self.memo[id(e)] = (e, s)
        return s


_PRINTER = _KeyPrinter()


def atom_key(atom) -> str:
    """The key of an atom in a linear form: its printed text."""
    if len(_PRINTER.memo) > _MEMO_MAX:
        _PRINTER.memo.clear()
        _PRINTER.short.clear()
        _CANONICAL.clear()      # (its order was by the keys forgotten)
    return _PRINTER.p(atom)


def clear_caches():
    """Forget every memoized form and key (tests, timing)."""
    _FORMS.clear()
    _CANONICAL.clear()
    _PRINTER.memo.clear()
    _PRINTER.short.clear()


# Nodes known to be their own canonical form (`linear_form(e).to_expr()` is
# structurally e), by id, holding the node: the simplifier returns them as
# they are instead of building their form's expression again to compare.
# Emptied with the atom keys (the canonical order of terms is their keys').
_CANONICAL: dict = {}


def is_canonical(e: ir.Expr) -> bool:
    hit = _CANONICAL.get(id(e))
    return hit is not None and hit is e


def mark_canonical(e: ir.Expr) -> None:
    if len(_CANONICAL) > _MEMO_MAX:
        _CANONICAL.clear()
    _CANONICAL[id(e)] = e


class Linear:
    __slots__ = ("type", "terms", "const")

    def __init__(self, t: ir.Type):
        self.type = t
        self.terms: dict = {}   # key -> [atom, coef]
        self.const = 0

    def add_atom(self, atom, coef: int):
        key = atom_key(atom)
        slot = self.terms.get(key)
        if slot is None:
            self.terms[key] = [atom, coef]
        else:
            slot[1] += coef

    def scaled(self, k: int) -> "Linear":
        out = Linear(self.type)
        out.const = self.const * k
        for key, (atom, c) in self.terms.items():
            out.terms[key] = [atom, c * k]
        return out

    def plus(self, other: "Linear", sign: int = 1) -> "Linear":
        out = self.scaled(1)
        out.const += sign * other.const
        for key, (atom, c) in other.terms.items():
            slot = out.terms.get(key)
            if slot is None:
                out.terms[key] = [atom, sign * c]
            else:
                slot[1] += sign * c
        return out

    def nonconst_key(self) -> tuple:
        t = self.type
        return tuple(sorted((k, t.wrap(c)) for k, (a, c) in self.terms.items() if t.wrap(c) != 0))

    def to_expr(self) -> ir.Expr:
        """The canonical expression of the form: its terms ordered by
        (negative coefficient, atom key), then the constant. The nodes made
        are marked canonical (is_canonical) where the form of the result is
        this form again: no atom is a sum too long to expand (an opaque
        atom, see _MAX_TERMS), at most _MAX_TERMS terms, and no
        coefficient's magnitude wraps (INT_MIN)."""
        t = self.type
        signed = t.is_int()
        out = None
        made, markable = [], len(self.terms) <= _MAX_TERMS
        def negative(key):
            return signed and t.wrap(self.terms[key][1]) < 0

        for key in sorted(self.terms, key=lambda k: (negative(k), k)):
            atom, c = self.terms[key]
            c = t.wrap(c)
            if c == 0:
                continue
            neg = signed and c < 0
            mag = -c if neg else c
            if isinstance(atom, (ir.Add, ir.Sub)) or (neg and t.wrap(mag) < 0):
                markable = False
            term = atom
            if mag != 1:
                term = ir.Mul(atom, ir.Const(t, mag))
                made.append(term)
            if out is None:
                out = ir.Sub(ir.Const(t, 0), term) if neg else term
            else:
                out = ir.Sub(out, term) if neg else ir.Add(out, term)
            if out is not term:
                made.append(out)
        k = t.wrap(self.const)
        if out is None:
            return ir.Const(t, k)
        if k != 0:
            out = ir.Sub(out, ir.Const(t, -k)) if signed and k < 0 else \
                ir.Add(out, ir.Const(t, k))
            made.append(out)
        if markable:
            for x in made:
                mark_canonical(x)
        return out


# A sum of more atoms than this is itself an atom of the sums around it: a
# chain of n additions then costs O(n) copies of bounded forms instead of
# O(n^2) (terms beyond the cap cannot cancel across it, which only loses
# simplifications, never exactness).
_MAX_TERMS = 16


def _opaque(e: ir.Expr) -> Linear:
    lf = Linear(e.type)
    lf.add_atom(e, 1)
    return lf


def linear_form(e: ir.Expr) -> Linear:
    """The linear form of an integer scalar expression (atoms are the
    maximal non-linear subexpressions). The result is shared: do not modify
    it."""
    hit = _FORMS.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    if len(_FORMS) > _MEMO_MAX:
        _FORMS.clear()
    lf = _linear_form(e)
    _FORMS[id(e)] = (e, lf)
    return lf


def _linear_form(e: ir.Expr) -> Linear:
    t = e.type
    if isinstance(e, ir.Const):
        lf = Linear(t)
        lf.const = e.value
        return lf
    if isinstance(e, (ir.Add, ir.Sub)):
        a, b = linear_form(e.a), linear_form(e.b)
        if len(a.terms) + len(b.terms) > _MAX_TERMS:
            return _opaque(e)
        return a.plus(b, 1 if isinstance(e, ir.Add) else -1)
    if isinstance(e, ir.Mul):
        if isinstance(e.b, ir.Const):
            return linear_form(e.a).scaled(e.b.value)
        if isinstance(e.a, ir.Const):
            return linear_form(e.b).scaled(e.a.value)
    lf = Linear(t)
    lf.add_atom(e, 1)
    return lf


def is_linear_candidate(e: ir.Expr) -> bool:
    t = e.type
    return t.is_scalar() and t.is_integer() and isinstance(e, (ir.Add, ir.Sub, ir.Mul))


def constant_difference(a: ir.Expr, b: ir.Expr):
    """a - b as a Python int when it is a constant (as linear forms), else None.
    Exact only if the integer arithmetic does not overflow."""
    if not (a.type.is_integer() and a.type.is_scalar()):
        return None
    la, lb = linear_form(a), linear_form(b)
    if la.nonconst_key() != lb.nonconst_key():
        return None
    return la.const - lb.const
