"""Split a loop that visits its range "all but j*, then j*" into affine pieces.

frontend_ast/hoisted_order.py runs the iteration j* of an inner loop last
(LU's row update from column k, row normalisation): the update's index is

    S = select(C && v == E, A, select(Q, B, v))

for the loop variable v over [min, E], with Q either invariant conjuncts
or those and `v >= X`, and B `min(v + 1, E)` or `v + 1` (A, the position
j*, is the value at the last iteration). A load or store at S is not
affine in v, so neither this compiler nor LLVM vectorizes the loop. Where
every select of the (innermost) loop body that reads v in its condition
is such an S, with the same E and X, the loop becomes

    if (G) {
      for (v, min, X - min)  body with S -> v
      for (v, X, E - X)      body with S -> v + 1
      let v = E in           body with S -> A
    } else { the loop as it was }

with G the conjunction of every S's invariant conjuncts (C and those of
Q), `min <= X`, `X <= E` and `E == min + extent - 1` (X = min where Q does
not read v). Under G each piece's replacement is S's value at each of its
iterations (v < X <= E: both tests false; X <= v < E: the first false, Q
true, min(v + 1, E) = v + 1; v = E: C true), and the pieces run the
iterations min..E in order, so the result is the loop's. G reads no
memory and no name bound in the loop (the body's lets are substituted
into it), so it is evaluated once before the loop."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.ops import reads_memory

from .branch_facts import conjuncts
from .hoist_piece_loads import LetWalk, ReplaceById, hoist_invariant_loads, inline_lets
from .piece_checks import split_at_checks
from .simplify import simplify


def split_permuted_loops(stmt: ir.Stmt) -> ir.Stmt:
    return _Split().mutate(stmt)


class _Split(ir.Mutator):
    stmts_only = True

    def visit_For(self, op):
        body = self.mutate(op.body)
        loop = op if body is op.body else ir.For(op.name, op.min, op.extent, op.kind, body)
        if op.kind != ir.ForKind.SERIAL:
            return loop
        got = _plan(loop)
        return loop if got is None else _pieces(loop, *got)


class _Lets(LetWalk):
    """The body's let bindings (LetWalk) and its selects."""

    def __init__(self):
        super().__init__()
        self.selects = []

    def visit_Select(self, op):
        self.selects.append(op)
        self.visit_children(op)


def _plan(loop):
    """(G, E, X, {id(S): (S, A, v + 1)}) or None."""
    walk = _Lets()
    walk.visit(loop.body)
    if not walk.ok:
        return None
    v = loop.name

    def inline(e):
        return inline_lets(e, walk.lets)

    def invariant(e):
        e = inline(e)
        return e is not None and v not in ir.free_vars(e) and not reads_memory(e)

    guards, found, ends = [], {}, []
    for s in walk.selects:
        got = _match(s, v, invariant)
        if got is None:
            continue                    # (left as it is: its value is the loop's)
        conds, e, x, step = got
        guards += conds
        ends.append((inline(e), inline(x) if x is not None else None))
        found[id(s)] = (s, s.true_value, step)
    if not found:
        return None
    e, x = ends[0]
    if any(not ir.equal(e2, e) or (x2 is None) != (x is None) or
           x is not None and not ir.equal(x2, x) for e2, x2 in ends[1:]):
        return None
    x = loop.min if x is None else x
    if e.type != loop.min.type or x.type != loop.min.type:
        return None
    last = ir.Sub(ir.Add(loop.min, loop.extent), ir.Const(loop.min.type, 1))
    g = [inline(c) for c in guards] + [ir.LE(loop.min, x), ir.LE(x, e), ir.EQ(e, last)]
    out = []
    for c in g:
        if not any(ir.equal(c, d) for d in out):
            out.append(c)
    return ir.conjunction(out), e, x, found


def _match(s, v, invariant):
    """(invariant conjuncts, E, X or None, the node `v + 1`) of
    S = select(C && v == E, A, select(Q, B, v)), or None."""
    f = s.false_value
    if not isinstance(f, ir.Select) or not _is_var(f.false_value, v) or \
            not any(_eq_v(c, v) is not None for c in conjuncts(s.condition)):
        return None                     # (the cheap tests first: most selects fail them)
    e = None
    conds = []
    for c in conjuncts(s.condition):
        got = _eq_v(c, v)
        if got is not None and e is None:
            e = got
        elif invariant(c):
            conds.append(c)
        else:
            return None
    if e is None or not invariant(e) or not invariant(s.true_value) or \
            not isinstance(f, ir.Select) or not _is_var(f.false_value, v):
        return None
    x = None
    for c in conjuncts(f.condition):
        got = _ge_v(c, v)
        if got is not None and x is None and invariant(got):
            x = got
        elif invariant(c):
            conds.append(c)
        else:
            return None
    b = f.true_value
    if isinstance(b, ir.Min) and ir.equal(b.b, e):
        b = b.a
    if not (isinstance(b, ir.Add) and _is_var(b.a, v) and isinstance(b.b, ir.Const)
            and b.b.value == 1):
        return None
    return conds, e, x, b


def _is_var(e, v) -> bool:
    return isinstance(e, ir.Variable) and e.name == v


def _eq_v(c, v):
    if isinstance(c, ir.EQ):
        if _is_var(c.a, v):
            return c.b
        if _is_var(c.b, v):
            return c.a
    return None


def _ge_v(c, v):
    if isinstance(c, ir.GE) and _is_var(c.a, v):
        return c.b
    if isinstance(c, ir.LE) and _is_var(c.b, v):
        return c.a
    return None


def _pieces(loop, guard, e, x, found):
    def body(pick):
        return ReplaceById({k: pick(s, a, step) for k, (s, a, step) in found.items()}).mutate(
            loop.body)

    v = ir.Variable(loop.min.type, loop.name)
    first = ir.For(loop.name, loop.min, simplify(ir.Sub(x, loop.min)), loop.kind,
                   body(lambda s, a, step: v))
    middle = ir.For(loop.name, x, simplify(ir.Sub(e, x)), loop.kind,
                    body(lambda s, a, step: step))
    last = ir.LetStmt(loop.name, e, body(lambda s, a, step: a))
    pieces = [] if _is_zero(first.extent) else [_affine(first, "first")]
    pieces += [] if _is_zero(middle.extent) else [_affine(middle, "middle")]
    return ir.IfThenElse(simplify(guard), ir.block(*pieces, last), loop)


def _is_zero(e) -> bool:
    return isinstance(e, ir.Const) and e.value == 0


def _affine(piece, tag):
    """A piece with its index checks' range split off and its loads of
    elements it never stores made once before it."""
    out = split_at_checks(piece)
    if out is piece:
        return hoist_invariant_loads(piece, tag)
    return _Hoist(tag).mutate(out)


class _Hoist(ir.Mutator):
    def __init__(self, tag):
        super().__init__()
        self.tag, self.k = tag, 0

    def visit_For(self, op):
        self.k += 1
        return hoist_invariant_loads(op, f"{self.tag}{self.k}")
