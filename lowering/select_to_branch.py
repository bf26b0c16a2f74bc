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
hand-written argmin's value and index share one branch. Only scalar stores
are rewritten: vector code keeps its selects."""
from __future__ import annotations

from pyhalide import ir


def _is_old(e, store: ir.Store) -> bool:
    return isinstance(e, ir.Load) and e.name == store.name and ir.equal(e.index, store.index)


def _keeps_old(value, store: ir.Store):
    """(condition, new value) if value keeps the stored location's old value
    unless a condition holds, else None."""
    if value.type.is_vector():
        return None
    if isinstance(value, ir.Select) and _is_old(value.false_value, store):
        return value.condition, value.true_value
    if isinstance(value, (ir.Min, ir.Max)) and value.type.is_integer():
        cmp = ir.LT if isinstance(value, ir.Min) else ir.GT
        for old, new in ((value.a, value.b), (value.b, value.a)):
            if _is_old(old, store):
                return cmp(new, old), new
    return None


class _SelectToBranch(ir.Mutator):
    """Rewrites tuple updates only: a single running min/max or select stays a
    select, which LLVM keeps in a register and vectorizes as a reduction."""

    def visit_For(self, s):
        if s.kind == ir.ForKind.VECTORIZED:      # vector code keeps its selects
            return s
        return self.mutate_children(s)

    def visit_LetStmt(self, s):
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
            hit = _keeps_old(value, st)
            if hit is None:
                plain.append(st)
                values[st.value.name] = value
                continue
            values[st.value.name] = hit[1]
            for cond, members in groups:
                if ir.equal(cond, hit[0]):
                    members.append(st)
                    break
            else:
                groups.append((hit[0], [st]))
        if not groups:
            return None
        conds = [(f"{lets[0].name}.cond{k}", c) for k, (c, _) in enumerate(groups)]
        branches = [ir.IfThenElse(ir.Variable(ir.Bool(), name), ir.block(*members))
                    for (name, _), (_, members) in zip(conds, groups)]
        inner = ir.block(*plain, *branches)
        for let in reversed(lets):
            inner = ir.LetStmt(let.name, values[let.name], inner)
        for name, c in reversed(conds):
            inner = ir.LetStmt(name, c, inner)
        return inner


def select_to_branch(stmt: ir.Stmt) -> ir.Stmt:
    return _SelectToBranch().mutate(stmt)
