"""Small helpers over IR nodes: constants, structural equality, substitution,
free variables."""
from __future__ import annotations

import dataclasses
import math

from . import nodes as N
from .mutator import Mutator, Visitor, children, node_fields
from .types import INDEX, Type


def const(t: Type, value) -> N.Expr:
    if t.is_vector():
        return N.Broadcast(N.Const(t.element_of(), value), t.lanes)
    return N.Const(t, value)


def zero(t: Type) -> N.Expr:
    return const(t, 0)


def one(t: Type) -> N.Expr:
    return const(t, 1)


def index(v: int) -> N.Const:
    return N.Const(INDEX, v)


def const_value(e):
    """The Python value of a scalar Const (or Broadcast of one), else None."""
    if isinstance(e, N.Broadcast):
        e = e.value
    if isinstance(e, N.Const):
        return e.value
    return None


def is_const(e, value=None) -> bool:
    v = const_value(e)
    if v is None:
        return False
    return value is None or v == value


# node classes whose fields are exactly the operands a and b
BINARY_NODES = frozenset(c for c in vars(N).values() if isinstance(c, type) and
                    issubclass(c, N.BinaryOp) and dataclasses.is_dataclass(c) and
                    node_fields(c) == ("a", "b"))


def _equal_values(a, b) -> bool:
    """Equality of two non-IR field values of the same type."""
    if isinstance(a, tuple):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        if a != a and b != b:
            return True
        # 0.0 == -0.0 in Python, but they are different constants
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def equal(a, b, _memo=None) -> bool:
    """Structural equality of two IR trees."""
    if a is b:
        return True
    cls = type(a)
    if cls is not type(b):
        return False
    if cls is N.Const:
        return a.type == b.type and _equal_values(a.value, b.value)
    if not isinstance(a, N.IRNode):
        if isinstance(a, tuple):
            return len(a) == len(b) and all(equal(x, y, _memo) for x, y in zip(a, b))
        return _equal_values(a, b)
    memo = _memo if _memo is not None else set()
    key = (id(a), id(b))
    if key in memo:
        return True
    if cls in BINARY_NODES:
        if not (equal(a.a, b.a, memo) and equal(a.b, b.b, memo)):
            return False
    else:
        for name in node_fields(cls):
            if not equal(getattr(a, name), getattr(b, name), memo):
                return False
    memo.add(key)
    return True


class _Substitute(Mutator):
    def __init__(self, mapping, names=None):
        super().__init__()
        self.mapping = mapping
        self.names = names

    def mutate(self, n):
        if self.names is not None and n is not None and \
                self.mapping.keys().isdisjoint(mentioned_names(n, self.names)):
            return n                # no Variable below n is replaced
        return super().mutate(n)

    def visit_Variable(self, v):
        r = self.mapping.get(v.name)
        return v if r is None else r

    def visit_Let(self, e):
        value = self.mutate(e.value)
        if e.name in self.mapping:
            inner = _Substitute({k: v for k, v in self.mapping.items() if k != e.name},
                                self.names)
            body = inner.mutate(e.body)
        else:
            body = self.mutate(e.body)
        if value is e.value and body is e.body:
            return e
        return N.Let(e.name, value, body)


def substitute(e, mapping: dict, names: dict | None = None):
    """Replace Variables by name (mapping: name -> Expr). `names`, when
    given, is a memo of mentioned_names kept by the caller across calls: the
    walk then skips every subtree that mentions no name of `mapping`."""
    if not mapping:
        return e
    return _Substitute(mapping, names).mutate(e)


class _SubstituteExprs(Mutator):
    def __init__(self, pairs):
        super().__init__()
        self.pairs = pairs
        # a node of a class no pattern has equals none of them
        self.kinds = {type(pat) for pat, _ in pairs if isinstance(pat, N.Expr)}

    def mutate(self, n):
        if type(n) in self.kinds:
            for pat, rep in self.pairs:
                if equal(n, pat):
                    return rep
        return super().mutate(n)


def substitute_exprs(e, mapping: dict):
    """Replace whole subtrees that are structurally equal to a key.
    mapping: list of (pattern Expr, replacement Expr)."""
    return _SubstituteExprs(list(mapping)).mutate(e)


class _FreeVars(Visitor):
    def __init__(self):
        super().__init__()
        self.names = {}

    def visit_Variable(self, v):
        self.names.setdefault(v.name, v)


def free_vars(e) -> dict:
    """name -> Variable for every Variable mentioned in `e` (let-bound
    names included; callers that care filter them)."""
    v = _FreeVars()
    if isinstance(e, (list, tuple)):
        for x in e:
            v.visit(x)
    else:
        v.visit(e)
    return v.names


# mentioned_names' memo for uses_var, kept across calls (the passes ask about
# the same conditions and atoms for each loop variable): emptied past
# _USES_MAX entries and by clear_uses_memo (lowering empties its memos after
# each compile; entries hold their nodes)
_USES: dict = {}
_USES_MAX = 50_000


def uses_var(e, name: str) -> bool:
    if e is None:
        return False
    if isinstance(e, (list, tuple)):
        return any(uses_var(x, name) for x in e)
    if len(_USES) > _USES_MAX:
        _USES.clear()
    return name in mentioned_names(e, _USES)


def clear_uses_memo() -> None:
    _USES.clear()


_NO_NAMES = frozenset()


def mentioned_names(e, memo: dict) -> frozenset:
    """The names of the Variables below expression `e`. `memo` (id(expr) ->
    (expr, names)) is the caller's, kept across calls, so asking about every
    node of a DAG costs time linear in its size, shared subexpressions
    included. A node whose children's names are all among one child's
    shares that child's set (no new set: `x + 1`, or a sum whose other
    operand reads the same names)."""
    cls = type(e)
    if cls is N.Const:
        return _NO_NAMES
    hit = memo.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    if cls is N.Variable:
        out = frozenset((e.name,))
    else:
        out = _NO_NAMES
        for c in children(e):
            s = mentioned_names(c, memo)
            if s is out or not s:
                continue
            if not out or out < s:
                out = s
            elif not s <= out:
                out = out | s
    memo[id(e)] = (e, out)
    return out


class _Calls(Visitor):
    def __init__(self):
        super().__init__()
        self.calls = []

    def visit_Call(self, c):
        self.calls.append(c)
        self.visit_children(c)


def find_calls(e) -> list:
    v = _Calls()
    if isinstance(e, (list, tuple)):
        for x in e:
            v.visit(x)
    else:
        v.visit(e)
    return v.calls


class _Found(Exception):
    pass


class _Reads(Visitor):
    """Stops (raises _Found) at the first call or load."""

    def visit_Call(self, n):
        raise _Found

    def visit_Load(self, n):
        raise _Found


def reads_memory(e) -> bool:
    """Whether e calls anything (a Func, an image, an intrinsic) or loads:
    its value may depend on data. The walk stops at the first one."""
    try:
        _Reads().visit(e)
    except _Found:
        return True
    return False


def is_lazy_select(e) -> bool:
    """Whether e is the lazy `if_then_else(c, a, b)` intrinsic: a select
    that evaluates only the branch its condition picks."""
    return isinstance(e, N.Call) and e.call_type == N.INTRINSIC and e.name == "if_then_else"


def lazy_select(c, a, b) -> N.Call:
    return N.Call(a.type, "if_then_else", (c, a, b), N.INTRINSIC)


def conjunction(conds) -> N.Expr | None:
    out = None
    for c in conds:
        out = c if out is None else N.And(out, c)
    return out


def replace_fields(n, **kw):
    return dataclasses.replace(n, **kw)


_shared_ids = iter(range(1, 1 << 62))


def shared_bindings(exprs, min_uses: int = 2, only_if_larger: int = 0):
    """(bindings, new exprs): each non-trivial subexpression that `exprs`
    use `min_uses` times or more (the same node object: they form a DAG) is
    bound once, [(Variable, value)] in dependency order (a value uses only
    earlier Variables), and replaced by its Variable in the new exprs and
    in later values. Subexpressions inside a lazy `if_then_else` branch or
    a Let stay where they are (hoisting would evaluate them where the branch
    is not taken). With `only_if_larger` k > 0, nothing is bound unless the
    exprs, written out as trees, have more than k times as many nodes as
    distinct ones (and more than 64 * k)."""
    exprs = list(exprs)
    if only_if_larger:
        tree, dag = _sizes(exprs)
        if tree <= only_if_larger * max(dag, 64):
            return [], exprs
    uses, order = {}, []
    roots = {id(e) for e in exprs}
    stack = [(e, False) for e in reversed(exprs)]
    while stack:
        x, done = stack.pop()
        if done:
            order.append(x)
            continue
        k = id(x)
        if k in uses:
            uses[k][1] += 1
            continue
        uses[k] = [x, 1]
        stack.append((x, True))
        if is_lazy_select(x) or isinstance(x, N.Let):
            continue
        for c in reversed(list(children(x))):
            stack.append((c, False))
    shared = [x for x in order if uses[id(x)][1] >= min_uses and id(x) not in roots
              and isinstance(x, N.Expr) and not isinstance(x, (N.Variable, N.Const))
              and any(True for _ in children(x))]
    if not shared:
        return [], exprs
    names = {id(x): N.Variable(x.type, f"cse.{next(_shared_ids)}") for x in shared}

    class _Bind(Mutator):
        def __init__(self, root):
            super().__init__()
            self.root = root

        def mutate(self, n):
            v = names.get(id(n))
            if v is not None and n is not self.root:
                return v
            return super().mutate(n)

        def visit_Call(self, n):
            return n if is_lazy_select(n) else self.mutate_children(n)

        def visit_Let(self, n):
            return n

    bindings = [(names[id(x)], _Bind(x).mutate(x)) for x in shared]
    return bindings, [_Bind(e).mutate(e) for e in exprs]


def _sizes(exprs) -> tuple:
    """(node count of exprs written out as trees, count of distinct nodes)."""
    memo = {}
    stack = [(e, False) for e in exprs]
    while stack:
        x, done = stack.pop()
        if id(x) in memo:
            continue
        kids = list(children(x))
        if done:
            memo[id(x)] = 1 + sum(memo[id(c)] for c in kids)
            continue
        stack.append((x, True))
        stack.extend((c, False) for c in kids if id(c) not in memo)
    return sum(memo[id(e)] for e in exprs), len(memo)
