"""Whether a call-time check's statement runs in this call, as far as the
call's arguments tell (a call-time check of a statement Python does not run
is a false error: `if flag: a = a + b` with unequal shapes and flag False)."""
from __future__ import annotations


def call_time_reach(cx):
    """fn(StaticEnv) -> bool, or None (always): the enclosing loops with
    call-time bounds run (Context.loops_run_at_call, the carried-array loops
    included) and, where every enclosing condition is known at call time
    (Context.reached_at_call), those conditions hold. Under a condition
    known only at run time (a test of data) only the loops count: such a
    branch's arrays may be computed whole and selected, their reads sized by
    the check."""
    loops = cx.loops_run_at_call()
    reached = cx.reached_at_call()
    if not callable(reached):
        return loops
    if loops is None:
        return reached
    return lambda env: loops(env) and reached(env)


class IfReached:
    """A call-time check made only where the statement runs in this call
    (reached: Context.loops_run_at_call, the enclosing loops with
    call-time bounds run at least once): a loop of no iteration evaluates
    nothing, as in Python."""

    def __init__(self, check, reached):
        self.check, self.reached = check, reached

    def __call__(self, env):
        if self.reached(env):
            self.check(env)


def add_loop_gated(cx, check, reads_inside=False) -> None:
    """Appends the call-time check to cx.static_checks, made only where the
    enclosing loops with call-time bounds run (IfReached; a shape check of
    np.dot, np.gradient, np.stack, ... in `for k in range(n)` with n = 0 is
    no error in Python). Conditions do not gate it: a branch's arrays may be
    computed whole and selected, their reads sized by the check. With
    `reads_inside` (the operation reads its operands only inside them even
    where the check fails: clamped indices) the enclosing conditions known
    at call time gate it too (call_time_reach: `if n > 2: s = np.dot(a, b)`
    with n = 1 and unequal sizes is no error)."""
    reached = call_time_reach(cx) if reads_inside else cx.loops_run_at_call()
    cx.static_checks.append(check if reached is None else IfReached(check, reached))


def run_time_gated(cx) -> bool:
    """Whether a shape check of an operation that reads its operands only
    inside them (clamped indices) is made at run time where the statement
    runs (cx.run_check): under an `if` whose condition only the data tells
    (`if x[0] > 100: x = np.maximum(x, y)`), also inside loops (`for i: if
    x[i] > 5: s += np.dot(A, B)`: an assert of the iterations where the `if`
    holds; Context.loop_run_checks_made records it: where such a build is
    refused, specialize builds again with Context.loop_run_checks off). In a
    loop that carries arrays (Context.carried_loops), or in loops with
    loop_run_checks off, it stays a call-time check of the loops that run (a
    false error where the `if` does not hold)."""
    if cx.run_check is None or cx.carried_loops or cx.in_loop_header or \
            cx.reached_at_call() is not False:
        return False
    if not cx.in_loops():
        return True
    if cx.loop_run_checks:
        cx.loop_run_checks_made = True
    return cx.loop_run_checks


def add_shape_check(cx, check, ok, node, message: str, sizes=(), part=0) -> None:
    """The shape check of an operation that reads its operands only inside
    them: at run time where the statement runs under an `if` of data
    (run_time_gated: ok() the bool Val that holds where it passes, raising
    ValueError(message)), else the call-time `check` gated by the loops that
    run and the call-time conditions (add_loop_gated, reads_inside).
    `sizes`: the sizes (Vals) of the operands read at clamped indices. Where
    one is 0, a clamped read is still outside it (input bounds checks raise
    IndexError before any run-time check), so the call-time check is made
    then too (ungated by the `if`: a false error where it does not hold,
    never an IndexError where Python raises ValueError). `part`: a key
    telling apart the checks made at one node (each an assert of its own:
    asserts.shape_check)."""
    if run_time_gated(cx):
        cx.run_check(node, ok(), "ValueError", message, part)
        if sizes:
            add_loop_gated(cx, IfEmpty(check, sizes))
    else:
        add_loop_gated(cx, check, reads_inside=True)


class IfEmpty:
    """The call-time check made only where one of the sizes is 0."""

    def __init__(self, check, sizes):
        self.check, self.sizes = check, sizes

    def __call__(self, env):
        if any(s.static(env) == 0 for s in self.sizes):
            self.check(env)
