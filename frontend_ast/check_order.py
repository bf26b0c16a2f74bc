"""Exceptions in program order.

Python raises the exception of the first statement that fails. A compiled
call checks in three places, none of them in program order: call-time checks
(broadcasting, shapes, loop bounds: Context.static_checks), call-time values
(static parameters) and the kernel's checks (check images), which fire in
the order the kernel computes its Funcs. So when a check of the function's
top-level statement k fails, a statement before k may still fail first in
Python. Then the function cut before statement k (its prefix, compiled like
the function, `Specialization.prefix`) runs on the same arguments: what it
raises is the exception; if it raises nothing, the check's own is. The
prefix also makes the argument writes of those statements, as Python does
before it raises.

Inside one loop nest the compiled order is not Python's either: the
statements of a loop body become Funcs computed one after another (and
call-time checks of the nest run before the kernel), so a check of the
second statement can fail at iteration 3 before the first statement's
fails at iteration 1, and the argument writes the nest makes before its
failing iteration are not made (a failed kernel writes no argument). When
the failing check's statement holds a loop that has more than one place
that can fail, or the function writes arguments, the call cannot tell which
failure Python meets first: the plain function (the kernel left the
arguments as they were passed) runs on the same arguments and what it
raises is the exception, with its argument writes. This is the error path
only: a call that raises nothing never runs Python code.

A scalar assigned outside loops is computed where Python computes it, even
if nothing uses it (or only code that does not run, a Func over no points):
its checks are outputs of their own (`risky_assigned`, Builder.sinks).

A failure is tagged with its location (`tag`) where it is raised; one
without a location (a kernel error no check names) is raised as it is.
"""
from __future__ import annotations

import ast
import copy
from collections import Counter
from types import SimpleNamespace

from pyhalide import checks, ir
from pyhalide.errors import CompileError

from . import deps
from .errors import FrontendError
from .loop_state import Group
from .ops import select
from .start_checks import start_checked
from .static_sinks import statement_values
from .types import np_ty
from .unions import lazy_alternative
from .values import Arr, TupleVal, Val, node_of
from .written_names import written_names

_ATTR = "_pyhalide_loc"
_RAISING_OPS = (ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift)
_LOOP = "loop"          # a _maybe_unread entry of a loop statement: its results are stored
_CALL_TIME = "_pyhalide_call_time"


def tag(e: BaseException, loc, call_time=False) -> BaseException:
    """e, marked as raised by a check of the statement at `loc` (a Loc or
    None); `call_time`: by a call-time check or value, which the call makes
    before the kernel runs."""
    if loc is not None and getattr(e, _ATTR, None) is None:
        try:
            setattr(e, _ATTR, loc)
            setattr(e, _CALL_TIME, call_time)
        except AttributeError:        # pragma: no cover (exceptions take attributes)
            pass
    return e


def loc_of(e: BaseException):
    return getattr(e, _ATTR, None)


def statement_index(pf, loc):
    """The index of the top-level statement of pf (a ParsedFunction) whose
    lines hold loc, or None (loc in another file: an inlined function)."""
    if loc is None or loc.file != pf.smap.file:
        return None
    for k, s in enumerate(pf.tree.body):
        first = pf.smap.loc(s)
        if first is None or first.file != pf.smap.file:
            continue
        last = s.end_lineno + pf.smap.first_line - 1
        if first.line <= loc.line <= last:
            return k
    return None


def prefix_tree(tree: ast.FunctionDef, k: int) -> ast.FunctionDef:
    """The function with only its first k top-level statements (it returns None)."""
    out = copy.copy(tree)
    out.body = list(tree.body[:k])
    return out


def earlier_failures(spec, pf, k: int) -> bool:
    """Whether anything before top-level statement k can raise or write an
    argument: a check (call-time or in the kernel) or a call-time value
    located there, or any argument write."""
    if spec.written is not None:
        return True
    for loc in check_sites(spec):
        i = statement_index(pf, loc)
        if i is not None and i < k:
            return True
    return False


def check_sites(spec) -> list:
    """The locations of everything of the compiled call that can raise: the
    kernel's checks, the call-time checks and the call-time values."""
    cx = spec.builder.cx
    return [c.loc for c in cx.check_images] + list(cx.static_checks.locs) + \
        [sp.loc for sp in cx.static_params]


def _has_loop(node) -> bool:
    return any(isinstance(n, (ast.For, ast.While)) for n in ast.walk(node))


def _same_statement(pf, k) -> list:
    """The top-level statements of pf made from the source statement of
    statement k: a `while` loop becomes `?stopN = False` and a `for` loop,
    both located at the `while` (loop_forms.py)."""
    def at(s):
        loc = pf.smap.loc(s)
        return None if loc is None else (loc.file, loc.line, loc.col)
    body = pf.tree.body
    return [body[k]] + [s for s in body[k + 1:] if at(s) is not None and at(s) == at(body[k])]


def order_unknown(spec, k) -> bool:
    """Whether a failure of top-level statement k (None: a failure located
    in an inlined function) may not be the first one Python meets: the
    statement holds a loop or an `if` (whose statements' checks, run-time
    ones of an `if` of data among them, the kernel makes in its own order:
    `if t[0] > 1: assert n == m; s = x[k]`) and can fail in more than one
    place, or it writes arguments (made by Python up to the failing
    iteration)."""
    pf = spec.pf
    if k is None:
        if not _has_loop(pf.tree):
            return False
        sites = check_sites(spec)
    else:
        if not any(_has_loop(s) or isinstance(s, ast.If) for s in _same_statement(pf, k)):
            return False
        sites = [loc for loc in check_sites(spec) if statement_index(pf, loc) in (k, None)]
    if spec.written is not None:
        return True
    return len({(loc.file, loc.line, loc.col) if loc is not None else None
                for loc in sites}) > 1


def raise_plain(spec, e: BaseException, given):
    """Raise what the plain function raises on the arguments: e itself
    where that is the same failure (its type, at e's line or with e's
    message: e's names the array), else Python's exception; the arguments
    keep Python's writes up to its failure. If it raises nothing, e (a
    limit of the compiled code) with the arguments as they were: the run
    is on the caller's own arrays (arguments that share memory stay
    aliased), each writeable ndarray argument copied before it and copied
    back after it (arg_snapshots)."""
    from .arg_snapshots import restore, snapshot
    saved = snapshot(given)
    try:
        spec.pf.fn(*given)
    except Exception as plain:
        loc = loc_of(e)
        if type(plain) is type(e) and loc is not None and \
                ((loc.file, loc.line) in _raising_lines(plain) or
                 str(e).startswith(str(plain) + " (")):
            raise e from None
        raise
    except BaseException:         # an interrupt: neither call's writes
        restore(saved)
        raise
    restore(saved)
    raise e


def index_wrap(e: BaseException) -> bool:
    """Whether e is the kernel's OverflowError that its int32 index
    arithmetic would wrap (lowering/index_overflow.py): a limit of the
    compiled code, not Python's failure. Python may raise another error
    first (`a[j - 1]` with j near 2**31 past a small array's end:
    IndexError), so the plain function tells (raise_plain; e if it raises
    nothing)."""
    return type(e) is OverflowError and str(e).startswith("index arithmetic of ")


def input_bounds_untold(spec, e: BaseException) -> bool:
    """Whether e is bounds inference's IndexError that an input is read
    outside it (no statement named: the whole region a Func reads, made
    before the kernel's checks) in a function that has other places that
    can fail: Python may meet one of those first (`if t[0] > 1: x =
    np.maximum(x, y); s = x[k]` with x empty: ValueError), so the plain
    function tells (raise_plain)."""
    return type(e) is IndexError and \
        str(e).startswith("index out of bounds: input buffer ") and bool(check_sites(spec))


def _raising_lines(exc) -> set:
    """(file, line) of each frame of exc's traceback."""
    out = set()
    tb = exc.__traceback__
    while tb is not None:
        out.add((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    return out


def raise_first(spec, e: BaseException, args, given):
    """Raise the exception Python raises first: e's, unless a statement
    before e's raises (the prefix run on the same arguments, which keeps
    Python's writes up to that failure) or the order inside e's loop nest
    is unknown (the plain function run). Where e is a limit of the compiled
    code (limits.py) and the prefix raises nothing, or a limit of its own,
    the arguments get back what they held before the prefix ran."""
    from .arg_snapshots import restore, snapshot
    from .limits import is_limit
    pf = spec.pf
    k = statement_index(pf, loc_of(e))
    if order_unknown(spec, k) or _kernel_check_before(spec, e, k):
        raise_plain(spec, e, args if given is None else given)
    if not k or not earlier_failures(spec, pf, k):
        raise e
    prefix = spec.prefix(k)
    if prefix is not None:
        saved = snapshot(list(args) + list(given or ())) if is_limit(e) else []
        try:
            prefix.run(args, given)
        except CompileError:        # the prefix does not lower: e is what is known
            pass
        except BaseException as p:  # Python's failure keeps Python's writes
            if is_limit(p) or not isinstance(p, Exception):
                restore(saved)
            raise
        restore(saved)
    raise e


def _kernel_check_before(spec, e: BaseException, k) -> bool:
    """Whether e, raised by a call-time check of top-level statement k, has
    a kernel check of that statement to its left in the source, which
    Python evaluates first and the kernel (run after the call-time checks)
    did not: `int(b[1]) // int(a[0] * x) % int(a[i] * x)` with a[0] * x NaN
    and i past a's end raises ValueError in Python, the call-time index
    check IndexError. The plain function then tells (raise_plain)."""
    loc = loc_of(e)
    if k is None or not getattr(e, _CALL_TIME, False):
        return False
    pf = spec.pf
    return any(c.loc is not None and statement_index(pf, c.loc) == k and
               (c.loc.line, c.loc.col) < (loc.line, loc.col)
               for c in spec.builder.cx.check_images)


def outside_loops(tree: ast.FunctionDef) -> set:
    """ids of the function's statements outside loops (in its body and the
    branches of `if`s there): Python runs each at most once, where it stands."""
    out = set()
    todo = list(tree.body)
    while todo:
        s = todo.pop()
        out.add(id(s))
        if isinstance(s, ast.If):
            todo.extend(s.body + s.orelse)
    return out


def risky_assigned(cx, scope, stmt, expr_value=None) -> list:
    """The scalar values that `stmt` (outside loops) assigns to names, or
    computes as an expression statement (`expr_value`: its value), and
    whose computation may raise (Val.risky), each computed only where the
    enclosing `if`s hold (as Python computes it)."""
    return _risky(cx, scope, statement_values(scope, stmt, expr_value))


def risky_operands(bld, vals) -> list:
    """The scalar operands of array code of a statement outside loops
    (array_scalar_sinks.values), each computed only where the enclosing
    `if`s hold, also under an `if` whose own test may raise (`if x[0] > 2
    and x[0] < 100:` with x maybe empty): their conjunction is lazy
    (Context.logical_and), so a test is evaluated only where the outer ones
    hold, as Python evaluates it; where the test raises, its check fails
    with the operand's, and the test's comes first in the source
    (check_order's order of sites). Without the operand's own store, its
    check sat in the elements of the array code only, none computed where
    the array is empty: `(a * b[k]).sum()` with a empty and k out of range
    returned 0.0 where Python raises IndexError."""
    if not vals:
        return []
    return _risky(bld.cx, bld.scope, vals)


def operand_flags(bld, v: Val) -> Val:
    """v's checks only (_flags: the value's own reads, such as `b[k:k +
    1][0]`, may lie outside the array where a check fails), or v where
    its checks cannot be taken apart."""
    return _flags(v, bld.loop_sinks.written, bld) or v


def _risky(cx, scope, vals) -> list:
    """Those of `vals` that may raise, each computed only where the
    enclosing `if`s hold."""
    cond = None
    for c in scope.path:
        cond = c if cond is None else cx.logical_and(cond, c)
    out = []
    for v in vals:
        if not v.risky or any(v is w for w, _ in out):
            continue
        if not v.union and not v.ty.is_complex() and v.node is None:
            if cond is None or cond.static is not None:
                continue    # computed at call time where cond holds: static_sinks.py
            node_of(cx, v)  # under a test of data: a node that raises where computed
        if cond is not None and (v.union or v.ty.is_complex() or v.node is None):
            continue        # not made lazy here: left out
        out.append((v, cond))
    return [_within_python(cx, v) if c is None else lazy_alternative(c, _within_python(cx, v))
            for v, c in out]


def _within_python(cx, v):
    """v without the checks of the compiled code's limits (CheckImage.limit:
    a Python int kept in int64), which Python does not have: an unused
    `int(k * 1.0)` with k = 1e300 is a big int, no OverflowError (where the
    value is used, its own checks stay)."""
    if v.union or v.ty.is_complex() or v.node is None:
        return v
    (node,), found = checks.strip([v.node])
    kept = [c for c in found if not getattr(cx.check_named.get(c.a.name), "limit", False)]
    if len(kept) == len(found):
        return v
    return Val(checks.apply(kept, node), v.ty, risky=True)


class LoopSinks:
    """Scalars assigned inside loops to names read nowhere in the function,
    whose computation may raise (`t = s // 0` in a loop body): Python computes
    them at every iteration, so each is stored into a hidden 0-d array at
    each iteration (the array's checks make it an unreturned output:
    unrealized_checked). Where the value's checks are all in its own node
    (it reads no Func with checks of its own), only the checks are stored
    (_flags), not the value."""

    def __init__(self, tree: ast.FunctionDef):
        self.read = {n.id for n in ast.walk(tree)
                     if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
        self.arrays = {}        # (id of the statement, name) -> its hidden Arr
        self.tails = _tail_ifs(tree)
        # (id of an assignment in a loop body, name) whose value a later
        # statement of that body may leave unread (it reads the name only
        # inside a loop, an `if` or a short-circuit part): stored as well
        # (-> True: only its checks, _flags)
        self.maybe_unread = _maybe_unread(tree)
        self.written = written_names([tree])
        self.output_reads = _output_reads(tree)

    def store_test(self, bld, stmt: ast.If, test: Val):
        """The test of an `if` inside a loop, where it may raise and nothing
        the statement does keeps it (its branches hold only `pass`, or
        `continue` with no statement after the `if` in the loop body):
        stored like an unused assignment, so that its checks run where
        Python evaluates it."""
        branches = stmt.body + stmt.orelse
        if not test.risky or test.union or test.node is None or \
                not all(isinstance(b, (ast.Pass, ast.Continue)) for b in branches) or \
                (any(isinstance(b, ast.Continue) for b in branches) and
                 id(stmt) not in self.tails):
            return
        self._sink(bld, stmt, (id(stmt), "?if"), "if_test_unused", test)

    def store(self, bld, stmt):
        if isinstance(stmt, (ast.For, ast.While)):
            self._store_results(bld, stmt)
            return
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets = [stmt.target]
        elif isinstance(stmt, ast.AugAssign):
            targets = [stmt.target]
        elif isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Constant):
            targets = []        # an expression statement: its value, dropped
        else:
            return
        names = [t.id for t in targets if isinstance(t, ast.Name) and
                 (t.id not in self.read or (id(stmt), t.id) in self.maybe_unread)]
        named = [(n, bld.scope.env.get(n)) for n in names]
        if isinstance(stmt, ast.Expr):
            v = bld.last_expr_value
            named = [(f"expr{i}", x) for i, x in
                     enumerate(v.items if isinstance(v, TupleVal) else [v])]
        for n, v in named:
            if isinstance(v, Val) and v.union:
                self._store_alternatives(bld, stmt, n, v)
                continue
            if not isinstance(v, Val) or not v.risky or v.ty.is_complex():
                continue
            if v.node is None:
                node_of(bld.cx, v)      # a call-time value: raises where the kernel stores it
            key = (id(stmt), n)
            if self.maybe_unread.get(key) and n in self.read:
                v = _flags(v, self.written, bld)
                if v is None:
                    continue
            elif v.node is not None and not _reads_checked(v.node):
                v = _flags(v, self.written, bld) or v     # its checks: cheaper than the value
            self._sink(bld, stmt, key, f"{n}_unused", v)

    def _sink(self, bld, stmt, key, name, v):
        """v stored into the hidden 0-d array of `key` (made at its first
        store; a value of another dtype there is not stored)."""
        arr = self.arrays.get(key)
        if arr is None:
            arr = self.arrays[key] = Arr(name, np_ty(v.ty.dtype), [], "local",
                                         bld.cx.smap.loc(stmt))
            arr.sink = True
        if arr.ty.dtype == v.ty.dtype:
            bld.arrays.write(arr, [], v, stmt)

    def store_operands(self, bld, stmt, vals):
        """The scalar operands of array code of `stmt` that may raise
        (array_scalar_sinks.values: `a * b[k + i]`, whose elements are not
        computed where a is empty), each stored at each iteration as an
        unused assignment is, so that its checks run where Python
        evaluates it."""
        for k, v in enumerate(vals):
            if not v.risky or v.node is None or v.ty.is_complex():
                continue
            self._sink(bld, stmt, (id(stmt), "?operand", k), "operand_unused", v)

    def _store_alternatives(self, bld, stmt, n, v):
        """A value of several types (`d = 0.0`, then `d = x[j + 1]` after a
        `continue`: a float or a float64 as the iteration runs): each
        alternative that may raise, where its condition holds (a lazy
        select: its checks run only there), stored as store() stores a
        value of one type."""
        for k, (c, w) in enumerate(v.union):
            if c is None or c.node is None or not isinstance(w, Val) or \
                    not w.risky or w.union or w.node is None or w.ty.is_complex():
                continue
            s = w
            if self.maybe_unread.get((id(stmt), n)) and n in self.read:
                s = _flags(w, self.written, bld)    # the value reads the nest's writes
                if s is None:
                    continue
            elif not _reads_checked(w.node):
                s = _flags(w, self.written, bld) or w
            s = select(bld.cx, c, s, Val(ir.Const(s.node.type, 0), s.ty))
            key = (id(stmt), n, "alternative", k)
            arr = self.arrays.get(key)
            if arr is None:
                arr = self.arrays[key] = Arr(f"{n}_unused", np_ty(s.ty.dtype), [], "local",
                                             bld.cx.smap.loc(stmt))
                arr.sink = True
            if arr.ty.dtype == s.ty.dtype:
                bld.arrays.write(arr, [], s, stmt)

    def _store_results(self, bld, loop):
        """The values an inner loop leaves in names that no later statement
        of the enclosing loop body surely reads (`c += x[jj]` in the loop,
        `c` read after it only inside another loop or an `if`): each
        alternative computed by a Func whose definition checks a read is
        stored at each iteration of the enclosing loops, so the inner
        loop's checks run where Python runs it. Under an `if` the store is
        made where its condition holds; the inner loop's updates carry that
        condition themselves (computed over the whole region, their checks
        fire only where Python runs the loop), and so does a start value
        that reads with a check (`c = x[j + 1]` before the loop) when
        define_group could put the condition on it (state.guarded_starts);
        a value whose Funcs start with another checked read is not stored
        there (it would raise where Python does not run it), unless Python
        computes that start in every iteration (state.unconditional_starts)."""
        kept = self._funcs_output_reads(bld, loop)
        for (sid, n), how in self.maybe_unread.items():
            if sid != id(loop) or how != _LOOP:
                continue
            v = bld.scope.env.get(n)
            if not isinstance(v, Val):
                continue
            alts = [w for _, w in v.union] if v.union else [v]
            for k, w in enumerate(alts):
                if w.union or w.ty.is_complex() or w.node is None or \
                        not _reads_checked(w.node) or not _at_enclosing(bld, w.node) or \
                        _func_names(w.node) <= kept or \
                        (bld.scope.path and start_checked(w.node, bld.state.guarded_starts |
                                                          bld.state.unconditional_starts)):
                    continue
                key = (id(loop), n, k)
                arr = self.arrays.get(key)
                if arr is None:
                    arr = self.arrays[key] = Arr(f"{n.lstrip('?')}_unused", np_ty(w.ty.dtype), [],
                                                 "local",
                                                 bld.cx.smap.loc(loop))
                    arr.sink = True
                if arr.ty.dtype == w.ty.dtype:
                    bld.arrays.write(arr, [], w, loop)

    def _funcs_output_reads(self, bld, loop) -> set:
        """Names of the Funcs read by the running values of `loop` that a
        later statement of the enclosing body surely reads to store into an
        argument or returned array (`out[p] = i` after `while ...: i +=
        1`): an output reads them at each iteration, so their definitions'
        checks run there and a value reading only them (the exit flag, a
        running value read nowhere) needs no store."""
        out = set()
        for n in _assigned_names(loop) & self.output_reads.get(id(loop), set()):
            v = bld.scope.env.get(n)
            if not isinstance(v, Val):
                continue
            for w in ([w for _, w in v.union] if v.union else [v]):
                if isinstance(w, Val) and not w.union and not w.ty.is_complex() and \
                        w.node is not None:     # (a complex value's node raises)
                    out |= _func_names(w.node)
        return out


def _output_reads(tree) -> dict:
    """{id of a loop in a loop body: the names that later statements of
    that body surely read to store into an element of an argument or of a
    name the function returns (`out[p] = i`), neither bound twice}."""
    stores = Counter(n.id for n in ast.walk(tree)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    params = {a.arg for a in tree.args.args}
    outputs = {n for n in params if not stores[n]} | {
        n.id for r in ast.walk(tree) if isinstance(r, ast.Return) and r.value is not None
        for n in ast.walk(r.value) if isinstance(n, ast.Name) and stores[n.id] == 1 and
        n.id not in params}     # rebound, an earlier array may be dead (not realized)
    out = {}
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        body = loop.body
        for k, st in enumerate(body):
            if isinstance(st, (ast.For, ast.While)):
                out[id(st)] = set().union(*[_sure_reads(o) for o in body[k + 1:]
                                            if _stores_into(o, outputs)])
    return out


def _stores_into(st, names) -> bool:
    """Whether st assigns an element of one of `names` (`out[p] = ...`)."""
    targets = st.targets if isinstance(st, ast.Assign) else \
        [st.target] if isinstance(st, ast.AugAssign) else []
    return any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and
               t.value.id in names for t in targets)


def _func_names(node) -> set:
    """Names of the Funcs node reads."""
    return {c.name for c in ir.find_calls(node) if c.call_type == ir.FUNC}


def _at_enclosing(bld, node) -> bool:
    """Whether node names no loop variable but those of the loops around
    the statement being run (a value assigned in an inner loop and not
    carried names that loop's variable); the running values of the groups
    of those loops (`if s > flag:` around the inner loop) are read at the
    running iteration where the value is stored (a cell's reads make them
    scans)."""
    syms = {l.sym for l in bld.state.loops}
    owner = bld.state.ph_owner
    return all(not n.startswith("%") or n in syms or
               (n in owner and owner[n] in bld.state.active_groups) for n in ir.free_vars(node))


def _reads_checked(node) -> bool:
    """Whether node reads a Func one of whose definitions reads with a
    run-time check."""
    return any(c.call_type == ir.FUNC and c.func is not None and _has_check(c.func)
               for c in ir.find_calls(node))


def _flags(v: Val, written: set, bld):
    """v's eager checks on a one of its type (a Val that raises where v
    does and reads no element of an array the function writes; not on a
    zero, which the checks' own zero would make a constant to simplify
    away), or None when v has none, a check's position reads the image of
    a name in `written` (`a[i, k[i]]` keeps the read of k), or it reads a
    Func that the hidden store, a definition of its own, may not read
    where Python reads it (_reads_hold: `t = a[i, int(a[i, 0])]` before
    `for j in range(1, m): a[i, j] = t` keeps its read of a[i, 0])."""
    _, found = checks.strip([v.node])
    calls = [c for c in ir.find_calls(list(found)) if not checks.is_check_read(c)]
    if not found or any(c.call_type == ir.IMAGE and c.name in written for c in calls) or \
            not _reads_hold(bld, [c for c in calls if c.call_type == ir.FUNC]):
        return None
    one = ir.Const(v.node.type, True if v.node.type.is_bool() else 1)
    return Val(checks.apply(found, one), v.ty, risky=True)


def _reads_hold(bld, calls) -> bool:
    """Whether a definition other than the reading statement's may make
    the Func reads `calls` (deps.check_reads finds no write of the loop
    nest that Python makes before them and the definition would not see)."""
    if not calls:
        return True
    errs = []
    deps.check_reads(SimpleNamespace(typing=bld.cx.typing, nest_id=bld.state.nest_id,
                                     read_sites=bld.defs.read_sites,
                                     nest_writes=bld.state.nest_writes,
                                     smap_error=bld.cx.smap_error),
                     calls, None, lambda arr, err, pos: errs.append(err))
    return not errs


def _maybe_unread(tree) -> dict:
    """{(id of an assignment in a loop body, name): whether only its checks
    are stored} for each name it assigns that no later statement of the
    same body surely reads (see _sure_reads). Only assignments whose value
    indexes or divides (an IndexError or ZeroDivisionError Python raises
    there, _may_raise; also an augmented one, `t /= s`, after an assignment
    of the name in the same body: not a running value). One whose value reads a
    name whose elements the loop nest writes (`a[i, j] = ...`) stores only
    its checks (LoopSinks._flags): a hidden store of the value would read
    the array the nest writes, which deps.py refuses."""
    out = {}
    for nest in _outer_loops(tree):
        written = written_names([nest])
        for loop in ast.walk(nest):
            if isinstance(loop, (ast.For, ast.While)):
                out.update(_unread_in(loop.body, written))
    return out


def _outer_loops(tree) -> list:
    """The loops of the function not inside another loop."""
    out, todo = [], list(ast.iter_child_nodes(tree))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.For, ast.While)):
            out.append(n)
        else:
            todo += ast.iter_child_nodes(n)
    return out


def _unread_in(body, written, after=None, rest=()) -> dict:
    """_maybe_unread's entries of one loop body, and of the branches of the
    `if`s in it (`written`: the names whose elements its nest writes;
    `after`: the names the statements after an `if`'s branch surely read;
    `rest`: those statements, which may assign the name again first).
    A running value (`c = c * 3 + x[j]`, `t = t + a[j] * i`: carried to the
    next iteration, which reads it) is left out: stored under an `if` it made
    a Func read at data-dependent positions that does not lower
    (test_frontend_loop_bounds.py's descending_window), stored in an inner
    loop of a stepped range it was read outside its computed region
    (test_loop_forms19.py's argument_step_in_a_nest). An inner loop of the
    body (also in an `if`'s branch) that reads no name the nest writes maps
    each name it assigns that the later statements may leave unread, if
    that loop carries it (a running value), to _LOOP
    (LoopSinks._store_results); reading one (`s += A[i, j] * x[j]` with
    `x[i] = ...` in the nest, Cholesky's `t -= L[i, k] * L[j, k]`), the
    store's read would be refused by deps.check_reads."""
    out = {}
    # reads_after[k]: the names the statements after body[k] surely read (each
    # statement's _sure_reads taken once: linear in the body's length)
    reads_after = [set() for _ in body]
    for k in range(len(body) - 2, -1, -1):
        reads_after[k] = reads_after[k + 1] | _sure_reads(body[k + 1])
    for k, st in enumerate(body):
        later = set(after or ()) | reads_after[k]
        if isinstance(st, ast.If):
            out.update(_unread_in(st.body, written, later, body[k + 1:] + list(rest)))
            out.update(_unread_in(st.orelse, written, later, body[k + 1:] + list(rest)))
            continue
        if isinstance(st, (ast.For, ast.While)):
            if any(isinstance(n, ast.Name) and n.id in written for n in ast.walk(st)):
                continue        # its Func reads the nest's writes: a store would be refused
            out.update({(id(st), n): _LOOP for n in _assigned_names(st) - later})
            continue
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and \
                _reset_before(st.target.id, body[:k]) and \
                (isinstance(st.op, _RAISING_OPS) or any(_may_raise(n) for n in ast.walk(st.value))):
            # `t = 2.0` then `t /= s`: not a running value (the body assigns
            # it first), its own division may raise
            reads = {n.id for n in ast.walk(st.value) if isinstance(n, ast.Name)}
            if st.target.id not in later or _killed(st.target.id, body[k + 1:] + list(rest)):
                out[(id(st), st.target.id)] = bool(reads & written)
            continue
        if not isinstance(st, (ast.Assign, ast.AnnAssign)) or st.value is None or \
                not any(_may_raise(n) for n in ast.walk(st.value)):
            continue
        reads = {n.id for n in ast.walk(st.value) if isinstance(n, ast.Name)}
        flags = bool(reads & written)
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        out.update({(id(st), t.id): flags for t in targets
                    if isinstance(t, ast.Name) and t.id not in reads and
                    (t.id not in later or _killed(t.id, body[k + 1:] + list(rest)))})
    return out


def _may_raise(node) -> bool:
    """Whether an expression node is one whose evaluation may raise in
    Python: a subscript (IndexError), a division, modulo or power
    (ZeroDivisionError: `t = 1.0 / s`), a shift (a negative count:
    ValueError) or a call (`math.sqrt(s)`: ValueError)."""
    return isinstance(node, (ast.Subscript, ast.Call)) or (
        isinstance(node, ast.BinOp) and isinstance(node.op, _RAISING_OPS))


def _reset_before(name, earlier) -> bool:
    """Whether a statement of `earlier` (the statements before one in the
    same loop body) assigns `name` a value that does not read it, so that
    an augmented assignment after it carries nothing between iterations."""
    return any(isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None and
               any(isinstance(t, ast.Name) and t.id == name
                   for t in (st.targets if isinstance(st, ast.Assign) else [st.target])) and
               name not in {n.id for n in ast.walk(st.value) if isinstance(n, ast.Name)}
               for st in earlier)


def _killed(name, rest) -> bool:
    """Whether a statement of `rest` (the later statements of a loop body)
    assigns `name` again before any of them surely reads it (`t = a[i, 3 *
    i]` then `t = a[i, i]`: the first value is read nowhere)."""
    for st in rest:
        if name in _sure_reads(st):
            return False
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None and any(
                isinstance(t, ast.Name) and t.id == name
                for t in (st.targets if isinstance(st, ast.Assign) else [st.target])):
            return True
    return False


def _assigned_names(loop) -> set:
    """The running values of a loop statement's body: the names it assigns
    by `+=` and the like, or by a value that reads the name (`c = c * 3 +
    x[j]`), and its exit flags (`?stopN`, loop_exits.py)."""
    out = set()
    for n in ast.walk(loop):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            out.add(n.target.id)
        elif isinstance(n, ast.Assign):
            reads = {r.id for r in ast.walk(n.value) if isinstance(r, ast.Name)}
            out |= {t.id for t in n.targets if isinstance(t, ast.Name) and
                    (t.id in reads or t.id.startswith("?stop"))}
    return {n for n in out if not n.startswith("?") or n.startswith("?stop")}


def _sure_reads(node) -> set:
    """Names a statement reads whenever it runs: not inside a nested loop's
    body, an `if`'s branches, a conditional expression's arms, the operands
    after the first of `and` / `or`, a comprehension or a lambda."""
    if isinstance(node, ast.Name):
        return {node.id} if not isinstance(node.ctx, ast.Store) else set()
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return _sure_reads(node.iter)
    if isinstance(node, (ast.While, ast.If, ast.IfExp)):
        return _sure_reads(node.test)
    if isinstance(node, ast.BoolOp):
        return _sure_reads(node.values[0])
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                         ast.FunctionDef, ast.Try, ast.With)):
        return set()
    out = set()
    for child in ast.iter_child_nodes(node):
        out |= _sure_reads(child)
    return out


def _tail_ifs(tree) -> set:
    """ids of the `if` statements after which nothing runs in their loop's
    iteration (the last statement of a loop body, or of a branch of such an
    `if`)."""
    out = set()
    todo = [n.body for n in ast.walk(tree) if isinstance(n, ast.For)]
    while todo:
        body = todo.pop()
        if body and isinstance(body[-1], ast.If):
            out.add(id(body[-1]))
            todo += [body[-1].body, body[-1].orelse]
    return out


def unrealized_checked(b, out_funcs) -> list:
    """[(Func, shape fns)] of the versions of local arrays that have run-time
    checks and that no output reads (an array written in a loop and never
    used, or overwritten before any use): Python computes every element
    written, so they are realized as unreturned outputs and their checks
    fire. Versions read by an output are computed with it (an update runs
    over its whole loop domain). Likewise the checked state Func of a loop
    chain nothing reads (see below)."""
    reached = set()

    def reach(fns):
        stack = list(fns)
        while stack:
            fn = stack.pop()
            if id(fn) in reached:
                continue
            reached.add(id(fn))
            for d in fn.definitions():
                stack.extend(c.func for c in ir.find_calls(list(d.values) + list(d.args) +
                                                           list(d.predicates))
                             if c.call_type == ir.FUNC and c.func is not None)

    reach([f.function() for f, _ in out_funcs])
    out = []
    seen = set()
    sinks = {id(a) for a in b.loop_sinks.arrays.values()}
    for _, _, owner in b.funcs:
        if not isinstance(owner, Arr) or owner.kind != "local" or id(owner) in seen or \
                not all(s.static is not None for s in owner.shape):
            continue
        seen.add(id(owner))
        for f in reversed(owner.versions):
            fn = f.function()
            if id(fn) in reached or not (_has_check(fn) or (
                    id(owner) in sinks and any(_reads_checked(n) for n in _def_nodes(fn)))):
                continue
            out.append((f, [s.static for s in owner.shape]))
            reach([fn])
    for _, f, owner in b.funcs:
        # the carried state of a loop chain nothing reads (`for i in range(6):
        # if a[i] == 7: break` and nothing else): a top-level chain's is realized,
        # so that its checks stop the call as Python's loop does; a nested chain's
        # would need the enclosing loops' iterations (refused)
        if not isinstance(owner, Group) or owner.scan or owner.merged or not f.defined() or \
                id(f.function()) in reached or not _has_check(f.function()):
            continue
        if owner.ctx:
            raise FrontendError(
                "this loop's results are never used, and it reads elements with run-time "
                "checks: the compiler runs such a loop only at the top level of the function",
                owner.loc, "use a value the loop computes, or move the loop out of the "
                "enclosing loop")
        out.append((f, []))
        reach([f.function()])
    return out


def _has_check(fn) -> bool:
    """Whether a definition of Function fn reads with a run-time check."""
    return any(checks.is_check_read(c) for c in ir.find_calls(_def_nodes(fn)))


def _def_nodes(fn) -> list:
    """The values, arguments and predicates of Function fn's definitions."""
    return [n for d in fn.definitions() for n in list(d.values) + list(d.args) +
            list(d.predicates)]
