"""The reduction domain of an update as its schedule has reshaped it.

`project(definition)` applies the stage's splits, fuses and renames of RVars
to its RDom: every RVar loop of the stage (after them) gets a (min, extent);
every original RVar becomes an expression of those loops (`r.x` split by 2 is
`min + rxo * 2 + rxi`), and a split whose factor may not divide the extent
adds the guard that keeps the point inside the RDom (`rxo * 2 + rxi <
extent`), exactly as loop synthesis does for GuardWithIf. rfactor rebuilds
both the intermediate's RDom (the loops it keeps) and the merge's RDom (the
loops it preserves) from it. Splits of pure Vars are returned apart: they stay
schedule directives of both stages.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import ir


class FusedVarError(Exception):
    """A pure Var and an RVar were fused into one loop."""


def _const(e):
    return e.value if isinstance(e, ir.Const) else None


def _add(a, b):
    ca, cb = _const(a), _const(b)
    if ca is not None and cb is not None:
        return ir.index(ca + cb)
    if ca == 0:
        return b
    if cb == 0:
        return a
    return ir.Add(a, b)


def _mul(a, b):
    ca, cb = _const(a), _const(b)
    if ca is not None and cb is not None:
        return ir.index(ca * cb)
    if cb == 1:
        return a
    if ca == 1:
        return b
    return ir.Mul(a, b)


def _max(a, b):
    ca, cb = _const(a), _const(b)
    if ca is not None and cb is not None:
        return ir.index(max(ca, cb))
    return ir.Max(a, b)


def _ceil_div(a, b):
    ca, cb = _const(a), _const(b)
    if ca is not None and cb is not None and cb > 0:
        return ir.index(-(-ca // cb))
    return ir.Div(ir.Add(a, ir.Sub(b, ir.index(1))), b)


@dataclass
class Projection:
    ranges: dict = field(default_factory=dict)      # RVar loop name -> (min, extent)
    var_splits: list = field(default_factory=list)  # splits of pure Vars
    _tokens: dict = field(default_factory=dict)     # RVar loop name -> token
    _defs: dict = field(default_factory=dict)       # token -> Expr over tokens
    _originals: dict = field(default_factory=dict)  # original RVar name -> token
    _guards: list = field(default_factory=list)     # Exprs over tokens
    _bounds: dict = field(default_factory=dict)     # original RVar name -> (min, extent)
    _guarded: set = field(default_factory=set)      # originals a guard keeps in range

    def loops(self) -> list:
        return list(self.ranges)

    def _expand(self, e, final: dict):
        """e with every token defined by a split replaced, then the loop
        tokens replaced by `final` (loop name -> Expr)."""
        for _ in range(len(self._defs) + 1):
            names = {n for n in ir.free_vars(e) if n in self._defs}
            if not names:
                break
            e = ir.substitute(e, {n: self._defs[n] for n in names})
        by_token = {tok: final[name] for name, tok in self._tokens.items()}
        return ir.substitute(e, by_token)

    def substitution(self, final: dict) -> dict:
        """Original RVar name -> its value over the loops, the loops given by
        `final` (loop name -> Expr: an RVar of the new RDom or a pure Var).

        Where a guard (see `guards`) keeps the value inside the RDom, the
        value is also clamped to the RDom's last point: a no-op wherever the
        guard holds, and it tells bounds inference what is read. The clamp
        is `min(e, max(last, min))`, so an empty RDom (last < min) still
        reads an empty region: the loops give e the interval [min, min - 1]
        there, which the clamp keeps."""
        out = {}
        for name, tok in self._originals.items():
            e = self._expand(_tok(tok), final)
            if name in self._guarded:
                lo, ext = self._bounds[name]
                e = ir.Min(e, _max(_add(lo, _add(ext, ir.index(-1))), lo))
            out[name] = e
        return out

    def guards(self, final: dict) -> list:
        return [self._expand(g, final) for g in self._guards]

    def first_point_guards(self, final: dict, rest: list):
        """The guards at the first point of a slice: the loops `rest` at
        their minimum, the others given by `final`. A guard that holds
        nowhere else in the slice fails there first when it is `offset <
        extent` with the offset a sum of non-negative multiples of the loops
        (what splits write); None if some guard is not of that form (a fuse
        of loops split with a tail), where the first point need not have the
        smallest offset."""
        loops = {name: _tok(name) for name in self.ranges}
        at_first = {name: self.ranges[name][0] for name in rest}
        out = []
        for g in self._guards:
            e = self._expand(g, loops)
            if not (isinstance(e, ir.LT) and _monotone(e.a) and
                    not set(ir.free_vars(e.b)) & set(loops)):
                return None
            out.append(ir.substitute(ir.substitute(e, at_first), final))
        return out


def _monotone(e) -> bool:
    """Whether `e` is a sum of non-negative constant multiples of variables
    and non-negative constants (non-decreasing in each variable)."""
    if isinstance(e, ir.Variable):
        return True
    if isinstance(e, ir.Const):
        return e.value >= 0
    if isinstance(e, ir.Add):
        return _monotone(e.a) and _monotone(e.b)
    if isinstance(e, ir.Mul):
        ca, cb = _const(e.a), _const(e.b)
        return (ca is not None and ca >= 0 and _monotone(e.b)) or \
            (cb is not None and cb >= 0 and _monotone(e.a))
    return False


def _tok(name: str) -> ir.Variable:
    return ir.Variable(ir.INDEX, name)


def project(d: ir.Definition) -> Projection:
    p = Projection()
    counter = [0]

    def new() -> str:
        counter[0] += 1
        return f"rfactor${counter[0]}$"

    rng, origin = {}, {}
    for rv in d.schedule.rvars:
        t = new()
        p._tokens[rv.name] = t
        p._originals[rv.name] = t
        p._bounds[rv.name] = (rv.min, rv.extent)
        rng[t] = (rv.min, rv.extent)
        origin[t] = {rv.name}
    for sp in d.schedule.splits:
        if sp.kind == "split":
            if sp.old not in p._tokens:
                p.var_splits.append(sp)
                continue
            t_old = p._tokens.pop(sp.old)
            lo, ext = rng[t_old]
            to, ti = new(), new()
            p._tokens[sp.outer], p._tokens[sp.inner] = to, ti
            f = sp.factor
            rng[to] = (ir.index(0), _ceil_div(ext, f))
            rng[ti] = (ir.index(0), f)
            origin[to] = origin[ti] = origin[t_old]
            offset = _add(_mul(_tok(to), f), _tok(ti))
            p._defs[t_old] = _add(lo, offset)
            ce, cf = _const(ext), _const(f)
            if not (ce is not None and cf is not None and ce % cf == 0):
                p._guards.append(ir.LT(offset, ext))
                p._guarded |= origin[t_old]
        elif sp.kind == "fuse":
            inner_r, outer_r = sp.inner in p._tokens, sp.outer in p._tokens
            if inner_r != outer_r:
                raise FusedVarError(f"{sp.inner} and {sp.outer} were fused into {sp.old}, "
                                    f"a pure Var with an RVar")
            if not inner_r:
                p.var_splits.append(sp)
                continue
            ti, to = p._tokens.pop(sp.inner), p._tokens.pop(sp.outer)
            tf = new()
            p._tokens[sp.old] = tf
            (ilo, iext), (olo, oext) = rng[ti], rng[to]
            rng[tf] = (ir.index(0), _mul(iext, oext))
            origin[tf] = origin[ti] | origin[to]
            p._defs[ti] = _add(ilo, ir.Mod(_tok(tf), iext))
            p._defs[to] = _add(olo, ir.Div(_tok(tf), iext))
        elif sp.kind == "rename":
            if sp.old not in p._tokens:
                p.var_splits.append(sp)
                continue
            t = p._tokens.pop(sp.old)
            tn = new()
            p._tokens[sp.outer] = tn
            rng[tn] = rng[t]
            origin[tn] = origin[t]
            p._defs[t] = _tok(tn)
    p.ranges = {name: rng[tok] for name, tok in p._tokens.items()}
    return p
