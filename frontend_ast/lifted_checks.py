"""Run-time checks inside array code lifted over loops (lifted.py) gated by
the conditions Python evaluates them under: a lifted Func is computed for
every iteration, also those where an enclosing `if` of data does not hold
(`for i: if x[i] > 5: s += (x * y[k + i]).sum()` with k out of range
raised IndexError where no x[i] > 5). Each check image read in a
definition whose condition changes with the iteration is made to pass
where the conditions recorded when the check was made (CheckImage.assumed:
the enclosing `if`s and lazy operands) do not hold.
A check the same in every iteration (its position reads parameters only:
`y[k]` in `for i: if x[i] > 5: s += (x * y[k]).sum()`) is not gated (that
would make the Func one value per iteration) but moved: it is stripped from
the lifted definition (whose read is clamped into the array) and recorded
in the statement's log (ScalarLog.moved), and Builder.exec_stmt stores it
at each iteration where its conditions hold (array_scalar_sinks.
moved_values, a hidden 0-d store like an unused assignment's).
Where the conditions cannot be read by a lifted Func (they read a scalar
the loop carries: `for k: if s > 2.5: t = a * b[k]`), a check whose
position reads parameters and the loops' variables is moved the same way;
any other is left as it is (raised in every iteration: a false error,
never a lost one)."""
from __future__ import annotations

import ast
import dataclasses

from pyhalide import checks, ir
from pyhalide.ir.mutator import Mutator

from . import ops
from .errors import CompileError


def gate_lifted_checks(cx, nodes, check, placeholders):
    """nodes with each check image read whose check was made under
    conditions of data passing where they do not hold; `check(nodes)`:
    the lifted Func's check of what it may read (arraycode.check_lifted).
    Only checks whose condition reads a loop's placeholder (`placeholders`:
    the names) are gated: their Func is computed per iteration anyway. A
    check the same in every iteration (`y[k]`) is moved instead
    (_move_checks), so that the Func stays one value for all iterations
    (lifted_pins.py; gated by a condition of the iteration it would be
    computed per iteration: 2.4 ms instead of 4 µs for 2,000 iterations)."""
    if cx.typing or not cx.check_images:
        return nodes
    held, reached = {}, {}
    for call in ir.find_calls(list(nodes)):
        c = cx.check_named.get(call.name)
        if c is None or call.name in held or call.name in reached:
            continue
        if c.assumed:
            held[call.name] = ops.assumed_conjunction(cx, c.assumed)
        if c.assumed or c.alive:
            reached[call.name] = _reached(cx, c, check)
    held = {k: r for k, r in held.items() if r is not None}
    reached = {k: r for k, r in reached.items() if r is not None}
    if not held and not reached:
        return nodes
    readable = {k: r for k, r in held.items() if _readable(r, check)}
    nodes = _move_checks(cx, nodes, held, readable, frozenset(placeholders))
    if not reached:
        return nodes
    m = _Gate(reached, frozenset(placeholders))
    return [m.mutate(n) for n in nodes]


# statements whose log's moved checks Builder.exec_stmt stores at their end
# (not an `if`'s or a loop's: a branch that leaves the iteration, or a loop
# run in phases, would come first)
_STORED_AT = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)


def _move_checks(cx, nodes, held, readable, loop_vars):
    """nodes without the eager checks made in this statement under
    conditions of data (`held`: image name -> their conjunction) whose
    position reads parameters only, or parameters and the loops' variables
    (`loop_vars`) where a lifted Func cannot read the conditions (not in
    `readable`: they read a scalar the loop carries, `if s > 2.5`, so the
    check cannot be gated), and without those inside lazy branches whose
    conditions are fixed for a call (checks.eager_where: `b[k]` of an
    operand read only where it has elements); each is appended, with its
    conditions (and those lazy ones), to the statement's log
    (ScalarLog.moved) to be stored where the statement runs, in the scalar
    loop, where the conditions and the loops' variables are values of the
    iteration."""
    log = cx.scalar_log
    if log is None or cx.carried_loops or cx.in_loop_header or \
            not isinstance(cx.stmt, _STORED_AT):
        return nodes
    moved, where = [], []
    for n in nodes:
        for cond, lazy in checks.eager_where(n):
            read = cond.a
            c = cx.check_named.get(read.name)
            if read.name not in held or c is None or c.limit or c.stmt is not cx.stmt or \
                    any(m.a.name == read.name for m in moved):
                continue
            if _position_reads(read, frozenset() if read.name in readable else loop_vars):
                moved.append(cond)
                where.append(ir.conjunction([held[read.name], *lazy]))
    if not moved:
        return nodes
    log.moved.extend(zip(moved, where))
    return [checks.without(n, moved) for n in nodes]


def _position_reads(read, loop_vars) -> bool:
    """Whether a check read's position reads only parameters, inputs and
    the variables named in `loop_vars` (no other loop variable, pure Var
    or Func)."""
    if any(v.kind != "param" and name not in loop_vars
           for name, v in ir.free_vars(list(read.args)).items()):
        return False
    return all(c.call_type != ir.FUNC for c in ir.find_calls(list(read.args)))


def _readable(cond, check) -> bool:
    """Whether a lifted Func can read the condition (no scalar a loop
    carries, no array the nest writes)."""
    try:
        check([cond])
    except CompileError:
        return False
    return True


def _reached(cx, c, check):
    """The conjunction (bool node) of check c's conditions: those of its
    `if`s (c.assumed; left out where one is not a bool node or cannot be
    read by a lifted Func) and each `no continue ran` Val (c.alive: after
    a `break` or `continue` of the iteration; each left out where it cannot
    be read); None where none is left."""
    terms = []
    if c.assumed:
        terms.append(ops.assumed_conjunction(cx, c.assumed))
    for a in c.alive:
        t = ops.truth(cx, a)
        terms.append(None if t.is_const else _projected(cx, t.node, check))
    kept = []
    for t in terms:
        if t is None or not t.type.is_bool():
            continue
        try:
            check([t])
        except CompileError:
            continue
        kept.append(t)
    return ir.conjunction(kept)


def _projected(cx, node, check):
    """A `no continue ran` condition as a lifted Func can read it, implied
    by it wherever the statement runs: its check reads made to pass (the
    statement runs only where the tests they check passed: `if k >= lim[i]:
    break` raised otherwise) and each bool the loops carry that a lifted
    Func cannot read (a `break`'s stop flag) projected out, as `node[v :=
    true] || node[v := false]`. None where another name cannot be read or
    more than three flags would be projected."""
    if node is None or not node.type.is_bool():
        return None
    node = _PassChecks(cx.check_named).mutate(node)
    flags = []
    for name, v in ir.free_vars(node).items():
        try:
            check([v])
        except CompileError:
            if not v.type.is_bool():
                return None
            flags.append(v)
    if len(flags) > 3:
        return None
    for v in flags:
        node = ir.Or(ir.substitute(node, {v.name: ir.const(v.type, True)}),
                     ir.substitute(node, {v.name: ir.const(v.type, False)}))
    return node


class _PassChecks(Mutator):
    """Check image reads replaced by 0 (the check passing)."""

    def __init__(self, named):
        super().__init__()
        self.named = named

    def visit_Call(self, e):
        if e.name in self.named:
            return ir.zero(e.type)
        return self.mutate_children(e)


class _Gate(Mutator):
    """A check read `img(likely(select(ok, 0, bad)))` of a gated check made
    `img(likely(select(ok || !reached, 0, bad)))`."""

    def __init__(self, reached, placeholders):
        super().__init__()
        self.reached, self.placeholders = reached, placeholders

    def visit_Call(self, e):
        e = self.mutate_children(e)
        r = self.reached.get(e.name)
        sel = check_select(e) if r is not None else None
        if sel is None or self.placeholders.isdisjoint(ir.free_vars([sel.condition])):
            return e
        return passing_where_not(e, sel, r)


def check_select(e):
    """The select of a check image read `img(likely(select(ok, 0, bad)))`,
    or None where e is not one."""
    if len(e.args) != 1:
        return None
    arg = e.args[0]
    if not (isinstance(arg, ir.Call) and arg.name == "likely" and len(arg.args) == 1 and
            isinstance(arg.args[0], ir.Select)):
        return None
    return arg.args[0]


def passing_where_not(e, sel, cond):
    """The check image read e (its select `sel`) passing where cond does not
    hold: `img(likely(select(ok || !cond, 0, bad)))`."""
    ok = ir.Or(sel.condition, ir.Not(cond))
    likely = dataclasses.replace(e.args[0],
                                 args=(ir.Select(ok, sel.true_value, sel.false_value),))
    return dataclasses.replace(e, args=(likely,))
