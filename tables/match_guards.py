"""Guards hidden in an update's conditions, taken out before table matching.

    split_guards(values) -> values

An update such as `if b[i] > 0 and a[i] > m: m = a[i]` arrives as
`select(x0 < a && 0 < b, a, x0)`: the condition mixes the previous value
with a condition free of it, so the value is neither a table operator nor
the guarded form `select(P, core, x0)` the matcher folds (`core` with y
replaced by `select(P, y, identity)`). Here a boolean subterm P free of
every x is set to false and to true in all of the update's values
(Shannon's expansion: `v == select(P, v[P:=true], v[P:=false])` for every
expression v); when every value the update changes becomes its own previous
value x_i with P false, the update does nothing where P fails and is
rewritten as

    select(P, v[P:=true], x_i)

per changed element (`!P` and `v[P:=false]` when P true is the no-op).
This is exact: it is the expansion itself, with the no-op branch written as
x_i. The substituted values are folded by the exact rules of `_Fold`
(constant conditions, `and`/`or`/`not` of constants, a select whose
branches are equal, the lazy `c and k`/`c or k` with k constant). Guards
are taken out one at a time until none is left, and combined into one condition (a lazy
`and` where a later one holds a run-time check: it was evaluated only where
the earlier ones hold).

A guard is evaluated at every point afterwards: only conditions evaluated
at every point already (outside the branches of a lazy `if_then_else`) or
holding no run-time check are candidates (reads are clamped; a check that
stays inside a lazy branch raises only where that branch is taken, see
pyhalide.checks), so only the work changes, never where the code raises.
The rewritten element is lazy itself (`if_then_else(P, core, x_i)`) when its value held an
`if_then_else`, so a folded y is evaluated only where P holds, as before.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.check_images import is_check_read
from pyhalide.ir.ops import substitute_exprs

from .match_canon import XInfo, is_self, negate, self_index, self_var

MAX_CANDIDATES = 8


def _true():
    return ir.Const(ir.Bool(), True)


def _false():
    return ir.Const(ir.Bool(), False)


def _const_bool(e):
    """True/False for a boolean constant, else None."""
    if isinstance(e, ir.Const) and e.type.is_bool():
        return bool(e.value)
    return None


class _Fold(ir.Mutator):
    """Replace subtrees equal to `guard` by a constant and fold the result."""

    def __init__(self, guard, value: bool):
        super().__init__()
        self.guard, self.value = guard, value

    def mutate(self, n):
        if isinstance(n, ir.Expr) and n.type.is_bool() and ir.equal(n, self.guard):
            return ir.Const(ir.Bool(), self.value)
        return super().mutate(n)

    def visit_Not(self, n):
        a = self.mutate(n.a)
        c = _const_bool(a)
        return ir.Const(ir.Bool(), not c) if c is not None else ir.Not(a)

    def visit_And(self, n):
        return _and(self.mutate(n.a), self.mutate(n.b))

    def visit_Or(self, n):
        return _or(self.mutate(n.a), self.mutate(n.b))

    def visit_Select(self, n):
        return _select(self.mutate(n.condition), self.mutate(n.true_value),
                       self.mutate(n.false_value), ir.Select)

    def visit_Call(self, n):
        if not ir.is_lazy_select(n):
            return self.mutate_children(n)
        c, a, b = (self.mutate(x) for x in n.args)
        # the frontend's lazy `and`/`or`: folded only where a constant decides
        # it (a branch it makes lazy stays lazy)
        if _const_bool(a) is not None and ir.equal(b, c):     # c ? a : c == c && a
            return c if _const_bool(a) else _false()
        if _const_bool(b) is not None and ir.equal(a, c):     # c ? c : b == c || b
            return _true() if _const_bool(b) else c
        return _select(c, a, b, ir.lazy_select)


def _and(a, b):
    return _logical(a, b, False, ir.And)


def _or(a, b):
    return _logical(a, b, True, ir.Or)


def _logical(a, b, absorbing: bool, make):
    """`make(a, b)` (And: absorbing False; Or: True) with constants folded."""
    ca, cb = _const_bool(a), _const_bool(b)
    if absorbing in (ca, cb):
        return ir.Const(ir.Bool(), absorbing)
    if ca is not None:
        return b
    if cb is not None:
        return a
    return make(a, b)


def _select(c, a, b, make):
    k = _const_bool(c)
    if k is not None:
        return a if k else b
    if ir.equal(a, b):
        return a
    return make(c, a, b)


def _candidates(values, info: XInfo) -> list:
    """The maximal x-free, non-constant boolean subterms of the values (in
    order of appearance, without repeats) that may be evaluated at every
    point the values are: outside the branches of a lazy `if_then_else`, or
    holding no run-time check (pyhalide.checks: a check inside a lazy branch
    raises only where that branch is taken)."""
    out = []
    stack = [(v, False) for v in reversed(values)]
    while stack and len(out) < MAX_CANDIDATES:
        n, lazy = stack.pop()
        if not isinstance(n, ir.Expr):
            continue
        if not info.has_x(n):
            if n.type.is_bool() and n.type.lanes == 1 and not isinstance(n, ir.Const) \
                    and not (lazy and _has_check(n)) and not any(ir.equal(n, o) for o in out):
                out.append(n)
            continue
        kids = ir.children(n)
        branch = ir.is_lazy_select(n)
        stack.extend(reversed([(k, lazy or (branch and j > 0)) for j, k in enumerate(kids)]))
    return out


def _has_check(e) -> bool:
    return any(is_check_read(c) for c in ir.find_calls([e]))


def _is_own(v, i) -> bool:
    return is_self(v) and self_index(v) == i


def _has_lazy(e) -> bool:
    return any(ir.is_lazy_select(c) for c in ir.find_calls([e]))


def _split_once(values, changed, info):
    """(guard, {element: value with the guard true}) or None."""
    for p in _candidates([values[i] for i in changed], info):
        for guard, keep in ((p, True), (negate(p), False)):
            off = {i: _Fold(p, not keep).mutate(values[i]) for i in changed}
            if all(_is_own(v, i) for i, v in off.items()):
                return guard, {i: _Fold(p, keep).mutate(values[i]) for i in changed}
    return None


def split_guards(values) -> tuple:
    """The update's values (SELF Variables x<i>) with x-free guards taken
    out of mixed conditions, as above; `values` itself (a tuple) when there
    is none."""
    info = XInfo()
    changed = [i for i, v in enumerate(values) if info.has_x(v) and not _is_own(v, i)]
    if not changed:
        return values
    guards, cores = [], {i: values[i] for i in changed}
    while True:
        found = _split_once(cores, changed, info)
        if found is None:
            break
        guard, cores = found
        guards.append(guard)
    if not guards or all(_already_guarded(values[i], guards, info) for i in changed):
        return values
    cond = guards[0]
    for g in guards[1:]:        # a later guard was evaluated only where the earlier hold
        cond = ir.lazy_select(cond, g, _false()) if _has_check(g) else ir.And(cond, g)
    out = list(values)
    for i in changed:
        make = ir.lazy_select if _has_lazy(values[i]) else ir.Select
        out[i] = make(cond, cores[i], self_var(values[i].type, i))
    return tuple(out)


def _already_guarded(v, guards, info) -> bool:
    """Whether v is written `select(P, core, x)` with the one guard P found:
    kept as written (the matcher takes it apart)."""
    if len(guards) != 1:
        return False
    if isinstance(v, ir.Select):
        c = v.condition
    elif ir.is_lazy_select(v):
        c = v.args[0]
    else:
        return False
    return not info.has_x(c) and (ir.equal(c, guards[0]) or ir.equal(negate(c), guards[0]))


class _Rename(ir.Mutator):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def visit_Variable(self, v):
        return self.fn(v)


def unguarded(values, states: list, elements, split: bool) -> tuple:
    """`values` (reading f's element i as the nodes `states` pairs with i)
    with the guard taken off the `elements` the matcher folded one into
    (`split_guards` first where the matcher used it, then the branch that
    applies the operator), f's elements as Variables X<i>: the update where
    its guard holds."""
    selves = [(node, self_var(node.type, i)) for node, i in states]
    own = tuple(substitute_exprs(v, selves) for v in values)
    if split:
        own = split_guards(own)
    info, out = XInfo(), []
    for i, v in enumerate(own):
        if i in elements:
            v = _core(v, i, info)
        out.append(_Rename(lambda u: ir.Variable(u.type, "X" + u.name[1:])
                           if is_self(u) else u).mutate(v))
    return tuple(out)


def _core(v, i, info):
    """The operator's branch of a guarded element `select(P, core, x_i)`
    (or with the branches swapped), as the matcher takes it apart."""
    if isinstance(v, ir.Select):
        c, a, b = v.condition, v.true_value, v.false_value
    elif ir.is_lazy_select(v):
        c, a, b = v.args
    else:
        return v
    if info.has_x(c):
        return v
    if _is_own(b, i):
        return a
    if _is_own(a, i):
        return b
    return v


MAX_LEAVES = 8


def guard_tree(value):
    """An element's value as a decision tree over x-free conditions (an
    `if`/`elif` chain): ("leaf", expr) or ("select", P, tree if P, tree if
    not P, lazy), by Shannon's expansion on each x-free boolean subterm in
    turn (exact, as in split_guards); None when it has no such condition or
    more than MAX_LEAVES leaves."""
    info = XInfo()
    lazy = _has_lazy(value)
    count = [0]

    def build(v):
        cands = _candidates([v], info)
        if not cands:
            count[0] += 1
            return ("leaf", v) if count[0] <= MAX_LEAVES else None
        p = cands[0]
        yes, no = build(_Fold(p, True).mutate(v)), build(_Fold(p, False).mutate(v))
        if yes is None or no is None:
            return None
        return ("select", p, yes, no, lazy)

    tree = build(value)
    return None if tree is None or tree[0] == "leaf" else tree


def tree_leaves(tree) -> list:
    if tree[0] == "leaf":
        return [tree[1]]
    return tree_leaves(tree[2]) + tree_leaves(tree[3])


def tree_value(tree, leaf_value):
    """The tree with each leaf replaced by leaf_value(leaf expr)."""
    if tree[0] == "leaf":
        return leaf_value(tree[1])
    _, p, yes, no, lazy = tree
    a, b = tree_value(yes, leaf_value), tree_value(no, leaf_value)
    if ir.equal(a, b):
        return a
    return (ir.lazy_select if lazy else ir.Select)(p, a, b)
