"""Turn conditional self-updates into branches.

`buf[i] = select(c, a, buf[i])` stores the old value back when c is false;
`if (c) buf[i] = a` is the same computation, and in a serial reduction loop
(argmin, a running max with an index) it turns a select chain through every
iteration into a branch that is rarely taken. Tuple updates (a LetStmt per
element, then the stores) are rewritten when every element is selected by
conditions: all values are computed first (they read the old state), the
unconditional stores follow, then one branch per distinct condition. An
integer `min(old, v)` / `max(old, v)` counts as `select(v < old, v, old)` /
`select(v > old, v, old)` (ties store the same value either way), so a
hand-written argmin's value and index share one branch.

Before vectorization only scalar stores are rewritten. After it
(`vectors=True`), a tuple update of vector accumulators (an rfactor
intermediate's argmin lanes: `acc = min(acc, v); at = select(v < acc, i,
at)`) becomes `if (any lane of c) { the stores }` for each condition c that
selects an index or payload (a group of plain integer mins/maxes stays a
vector min: one instruction, cheaper than the test). Where no lane's
condition holds every selected lane keeps its old value, so skipping the
stores changes nothing; over many rows the test is rarely true (codegen marks
it so: ops.running_extreme_update) and the loop runs a load, a compare and a
mask test per vector instead of a min and a select per tuple element.

A single scalar store `buf[i] = select(c, a, buf[i])` whose c reads through
a loop_invariant mark (ir/loop_invariant.py) becomes `if (c) buf[i] = a`
too: hoist_invariant_if can then move the test out of the loop."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.loop_invariant import is_loop_invariant


def _is_old(e, store: ir.Store) -> bool:
    return isinstance(e, ir.Load) and e.name == store.name and ir.equal(e.index, store.index)


def _keeps_old(value, store: ir.Store, vectors: bool):
    """(condition, new value) if value keeps the stored location's old value
    unless a condition holds, else None. Only vector values when `vectors`,
    only scalar ones otherwise."""
    if value.type.is_vector() != vectors:
        return None
    if isinstance(value, ir.Select) and _is_old(value.false_value, store):
        return value.condition, value.true_value
    if isinstance(value, (ir.Min, ir.Max)) and value.type.is_integer():
        cmp = ir.LT if isinstance(value, ir.Min) else ir.GT
        for old, new in ((value.a, value.b), (value.b, value.a)):
            if _is_old(old, store):
                return cmp(new, old), new
    return None


def _all_stores(body) -> bool:
    stores = body.stmts if isinstance(body, ir.Block) else (body,)
    return all(isinstance(x, ir.Store) for x in stores)


class _SelectToBranch(ir.Mutator):
    """Rewrites tuple updates only: a single running min/max or select stays a
    select, which LLVM keeps in a register and vectorizes as a reduction.
    Statements only (expressions are never rewritten)."""

    stmts_only = True

    def __init__(self, vectors: bool):
        super().__init__()
        self.vectors = vectors

    def visit_For(self, s):
        if s.kind == ir.ForKind.VECTORIZED:      # vector code keeps its selects
            return s
        return self.mutate_children(s)

    def visit_Store(self, s):
        # a single store whose select tests a marked read (ir/loop_invariant.py)
        # becomes a branch, which hoist_invariant_if may move out of the loop
        hit = None if self.vectors else _keeps_old(s.value, s, False)
        if hit is None or not isinstance(s.value, ir.Select) or \
                not any(is_loop_invariant(c) for c in ir.find_calls(hit[0])):
            return s
        return ir.IfThenElse(hit[0], ir.Store(s.name, hit[1], s.index), None)

    def visit_LetStmt(self, s):
        lets, body = [], s
        while isinstance(body, ir.LetStmt):
            lets.append(body)
            body = body.body
        if not _all_stores(body):
            # no LetStmt of the chain opens a tuple update: its body is
            # mutated once, not once per LetStmt above it
            inner = self.mutate(body)
            if inner is body:
                return s
            for let in reversed(lets):
                inner = ir.LetStmt(let.name, let.value, inner)
            return inner
        rewritten = self._tuple_update(s)
        if rewritten is not None:
            return rewritten
        return self.mutate_children(s)

    def _tuple_update(self, s):
        lets, body = [], s
        while isinstance(body, ir.LetStmt):
            lets.append(body)
            body = body.body
        stores = body.stmts if isinstance(body, ir.Block) else (body,)
        if len(lets) < 2 or len(stores) != len(lets) or \
                not all(isinstance(x, ir.Store) for x in stores):
            return None
        by_name = {let.name: let for let in lets}
        groups = []                      # [(condition, [stores])]
        plain, values = [], {}
        for st in stores:
            if not (isinstance(st.value, ir.Variable) and st.value.name in by_name):
                return None
            value = by_name[st.value.name].value
            hit = _keeps_old(value, st, self.vectors)
            if hit is None:
                plain.append(st)
                values[st.value.name] = value
                continue
            # a vector branch is taken when any lane's condition holds: its
            # stores keep the selects (the other lanes keep their old values)
            values[st.value.name] = value if self.vectors else hit[1]
            for cond, members in groups:
                if ir.equal(cond, hit[0]):
                    members.append(st)
                    break
            else:
                groups.append((hit[0], [st]))
        if self.vectors:
            groups = self._selecting_groups(groups, plain, values)
        if not groups:
            return None
        conds = [(f"{lets[0].name}.cond{k}", c) for k, (c, _) in enumerate(groups)]
        branches = [ir.IfThenElse(self._any(ir.Variable(c.type, name)), ir.block(*members))
                    for (name, c), (_, members) in zip(conds, groups)]
        inner = ir.block(*plain, *branches)
        for let in reversed(lets):
            inner = ir.LetStmt(let.name, values[let.name], inner)
        for name, c in reversed(conds):
            inner = ir.LetStmt(name, c, inner)
        return inner


    def _selecting_groups(self, groups, plain, values):
        """The groups with a select among their values; the others' stores
        (mins/maxes) stay unconditional (moved to plain)."""
        kept = []
        for cond, members in groups:
            if any(isinstance(values[st.value.name], ir.Select) for st in members):
                kept.append((cond, members))
            else:
                plain.extend(members)
        return kept

    def _any(self, cond):
        if not self.vectors:
            return cond
        return ir.VectorReduce("or", cond, 1)


def select_to_branch(stmt: ir.Stmt, vectors: bool = False) -> ir.Stmt:
    return _SelectToBranch(vectors).mutate(stmt)
