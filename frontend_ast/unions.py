"""Values whose Python/NumPy type depends on run-time data.

In plain Python the type of a value can depend on the data: `s = 0` stays a
Python int if the loop that adds uint8 elements to it never runs, `min(m,
a[i])` returns whichever operand won, `k < n and a[k] > 0` is a Python bool
or a NumPy bool. Such a value is a UnionVal: one alternative per type, each
under its condition. Operations apply to every alternative (`distribute`) and
alternatives of one type merge into one value (`make_union`), so a union
lasts only while the types really differ: storing into an array, a
condition, an index or a conversion to a fixed type resolves it, and a
union returned from the function comes back with the type of the
alternative that holds at run time.

The value modules import one way: types -> values -> unions -> convert -> ops.
Conversions and operators apply to unions through `over_alternatives`, so
this module sits below them and merges alternatives of one type with its own
select (`choose`; ops.select adds constant conditions and unions on top)."""
from __future__ import annotations

import functools

from pyhalide import ir
from pyhalide.expr import cast_node as cast
from pyhalide.simplify import simplify

from .ranges import n_union
from .types import PY_BOOL
from .values import NO_CONST, UnionVal, Val, const_val, negated_facts, node_of


def alternatives(v):
    """[(condition Val or None, Val)] of any value (None: always)."""
    if isinstance(v, Val) and v.union:
        return list(v.union)
    return [(None, v)]


def is_union(v) -> bool:
    return isinstance(v, UnionVal)


def distribute(cx, fn, *args):
    """fn applied to each combination of the alternatives of its (union)
    arguments; the results merged by type."""
    if not any(is_union(a) for a in args):
        return fn(*args)
    combos = [(None, [])]
    for a in args:
        nxt = []
        for c, vals in combos:
            for c2, v in alternatives(a):
                cc = both(cx, c, c2)
                if cc is not None and cc.is_const and not cc.const:
                    continue
                nxt.append((cc, vals + [v]))
        combos = nxt
    return make_union(cx, [(c, fn(*vals)) for c, vals in combos])


def over_alternatives(fn):
    """Decorates fn(cx, *args): union arguments are distributed over."""
    @functools.wraps(fn)
    def wrapper(cx, *args, **kw):
        idx = [i for i, a in enumerate(args) if isinstance(a, UnionVal)]
        if not idx:
            return fn(cx, *args, **kw)

        def call(*vals):
            a = list(args)
            for i, v in zip(idx, vals):
                a[i] = v
            return fn(cx, *a, **kw)
        return distribute(cx, call, *[args[i] for i in idx])
    return wrapper


def make_union(cx, alts):
    """The value that is alts[i][1] where alts[i][0] holds (conditions
    exclusive; one None condition means "in every other case"). Alternatives
    of one type merge into one value (`choose`); a single type gives a plain Val."""
    flat = []
    for c, v in alts:
        for c2, v2 in alternatives(v):
            flat.append((both(cx, c, c2), v2))
    if sum(1 for c, _ in flat if c is None) > 1:
        raise AssertionError("make_union: several unconditional alternatives")
    explicit = [c for c, _ in flat if c is not None]
    alts2 = []
    for c, v in flat:
        if c is None:
            c = negate(cx, any_of(cx, explicit)) if explicit else None
        if c is not None and c.is_const:
            if not c.const:
                continue
            return v
        alts2.append((c, v))
    if not alts2:
        raise AssertionError("make_union: no alternative can hold")
    if len(alts2) == 1:
        return alts2[0][1]
    groups = {}
    for c, v in alts2:
        groups.setdefault(v.ty, []).append((c, v))
    merged = []
    for ty, members in groups.items():
        # the last member is taken where no other member of its type holds,
        # also where an alternative of another type holds: its checks must
        # not fire there
        value = lazy_alternative(*members[-1])
        for c, v in reversed(members[:-1]):
            value = choose(cx, c, v, value)
        cond = any_of(cx, [c for c, _ in members])
        merged.append((cond, value))
    if len(merged) == 1:
        return merged[0][1]
    return UnionVal(merged)


def choose(cx, cond: Val, a: Val, b: Val, lazy=None) -> Val:
    """`a if cond else b` for two values of one type (cond a bool Val, not
    constant). Branches that may raise at run time (checked reads, overflow
    checks) are evaluated lazily unless `lazy` says otherwise."""
    if a is b:
        return a
    ty = a.ty
    if ty.is_complex():     # a complex value (complex_values.ComplexVal): part by part
        return a.choose(cx, cond, b, lazy)
    x, y = node_of(cx, a), node_of(cx, b)
    if x.type != y.type:
        x, y = cast(ir.Int(64), x), cast(ir.Int(64), y)
    risky = a.risky or b.risky
    if lazy is None:
        lazy = risky
    if lazy:
        node = ir.Call(x.type, "if_then_else", (cond.node, x, y), ir.INTRINSIC)
    else:
        node = ir.Select(cond.node, x, y)
    rng = n_union(a.rng, b.rng)
    static = None
    if cond.is_static and a.is_static and b.is_static:
        fc, fa, fb = cond.static, a.static, b.static

        def static(env):
            return fa(env) if fc(env) else fb(env)
    out = Val(node, ty, risky=risky or cond.risky, static=static)
    if ty.is_int() or ty.is_bool():
        out.set_range(rng[0], rng[1], merge_bounds(a.lbs, b.lbs, False, cx.syms),
                      merge_bounds(a.ubs, b.ubs, True, cx.syms))
    return out


def merge_bounds(xs, ys, upper: bool, syms=None) -> list:
    """Affine bounds holding for both branches: for each pair, the one that
    is provably the looser (by a constant, or by the symbols' ranges); a
    pair that neither proves gives the looser of their bounds over the
    enclosing loops' whole ranges (`syms.expand`), if two of those compare."""
    out = []
    hulls = {}

    def hull(a):
        if a not in hulls:
            hulls[a] = syms.expand(a, upper)[:_HULL_FORMS]
        return hulls[a]
    for u in xs:
        for v in ys:
            w = _looser(u, v, upper, syms)
            if w is None and syms is not None:
                w = _looser_in_loops(u, v, upper, syms)
            if w is None and syms is not None:
                w = next((w for ue in hull(u) for ve in hull(v)
                          for w in [_looser(ue, ve, upper, syms)] if w is not None), None)
            if w is not None and w not in out:
                out.append(w)
    return out[:6]


_HULL_FORMS = 8         # bounds over the enclosing loops' ranges compared per branch bound


def _looser(u, v, upper: bool, syms):
    """The looser of two bounds (upper: the larger) if provable, else None."""
    d = u - v
    if d.is_const():
        return u if (d.c >= 0) == upper else v
    if syms is not None and syms.nonneg(d):
        return u if upper else v
    if syms is not None and syms.nonneg(v - u):
        return v if upper else u
    return None


def _looser_in_loops(u, v, upper: bool, syms):
    """The looser of two bounds that differ by enclosing loop variables,
    compared over those loops' ranges (max(1, N - i) in `for i in
    range(N)`: N - i >= 1 there, so N - i bounds it above), else None."""
    d = u - v
    if not any(s in syms.loops for s in d.terms):
        return None
    if syms.prove_le([v], [u]):         # v <= u
        return u if upper else v
    if syms.prove_le([u], [v]):
        return v if upper else u
    return None


# conditions ------------------------------------------------------------------------------
def both(cx, a, b):
    if a is None:
        return b
    if b is None:
        return a
    return cx.logical_and(a, b)


def any_of(cx, conds):
    out = None
    for c in conds:
        out = c if out is None else cx.logical_or(out, c)
    return out


def negate(cx, c):
    if c.is_const:
        return const_val(not c.const)
    out = Val(ir.Not(c.node), PY_BOOL, risky=c.risky,
              static=(lambda env, f=c.static: not f(env)) if c.is_static else None,
              const=NO_CONST, facts=negated_facts(c.facts))
    return out


def describe_types(v) -> str:
    return " or ".join(t.describe() for t in v.types())


def lazy_alternative(cond, v):
    """v, evaluated only where cond holds (its run-time checks must not
    fire for an alternative that Python does not take)."""
    if cond is None or not v.risky:
        return v
    if v.ty.is_complex():       # a complex value (complex_values.ComplexVal): part by part
        return v.map_parts(lambda part: lazy_alternative(cond, part))
    if v.node is None:
        return v
    n = v.node
    zero = ir.Const(n.type, False if n.type.is_bool() else 0)
    out = Val(ir.Call(n.type, "if_then_else", (cond.node, n, zero), ir.INTRINSIC), v.ty,
              risky=True)
    out.set_range(v.lo, v.hi, v.lbs, v.ubs)
    return out


def fold_constants(e):
    """e simplified: what remains after substituting a tag by a constant
    (selects, if_then_else and logic with constant conditions) folds away."""
    return simplify(e)
