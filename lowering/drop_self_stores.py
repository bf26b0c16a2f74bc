"""Drop the stores of a tuple update that write a member back unchanged.

Storage flattening makes a tuple Provide

    let f.value0 = f.0[i]  ...  let f.value2 = <v>
    f.0[i] = f.value0; ...; f.2[i] = f.value2

(every value computed before any is stored). A phase of a loop that
carries arrays (frontend_ast/carried_phases.py: one tuple update, one
copy per phase once its selects on the phase fold) writes one or two
members and stores the others back as it read them. Such a store
`f.k[i] = f.valuek` with `f.valuek = f.k[j]`, j the same index as i
structurally, where no other store of the block writes `f.k`, changes
nothing: it is dropped, with its let where nothing else uses it. A later
pass then sees the loop leave `f.k` untouched (hoist_invariant_if can move
a test of it out of the loop; promote_accumulators keeps no copy of it).

The walk visits statements only: a kernel without such a block costs one
walk of its statements."""
from __future__ import annotations

from pyhalide import ir


def drop_self_stores(stmt: ir.Stmt) -> ir.Stmt:
    return _Drop().mutate(stmt)


class _Drop(ir.Mutator):
    stmts_only = True

    def visit_LetStmt(self, s: ir.LetStmt):
        lets, body = [], s
        while isinstance(body, ir.LetStmt):
            lets.append(body)
            body = body.body
        stores = body.stmts if isinstance(body, ir.Block) else (body,)
        if not all(isinstance(x, ir.Store) for x in stores):
            return self.mutate_children(s)
        bound = {x.name: x.value for x in lets}
        names = [x.name for x in stores]
        kept = tuple(x for x in stores if not _copies_itself(x, bound, names))
        if len(kept) == len(stores):
            return s
        out = ir.block(*kept) if kept else ir.Evaluate(ir.index(0))
        for x in reversed(lets):
            if not isinstance(x.value, ir.Load) or ir.uses_var(out, x.name):
                out = ir.LetStmt(x.name, x.value, out)
        return out


def _copies_itself(st: ir.Store, bound: dict, names: list) -> bool:
    """Whether st stores buffer st.name's own element at st.index, read
    before the block's stores (a let of the block), into it, and no other
    store of the block writes that buffer."""
    v = st.value
    if isinstance(v, ir.Variable):
        v = bound.get(v.name)
    return isinstance(v, ir.Load) and v.name == st.name and names.count(st.name) == 1 and \
        ir.equal(v.index, st.index)
