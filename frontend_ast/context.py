"""The state every part of the interpreter shares (frontend_ast/__init__.py
names the parts): where in the source a value is being built (errors and
run-time checks are located there), whether a typing pass is running, the
symbols that bound integer values, and the run-time and call-time checks
collected so far. This is the context `cx` that ops.py, convert.py and
unions.py receive: they read the symbols and may only raise located errors
and add checks (guard, static_param)."""
from __future__ import annotations

import dataclasses
import itertools

from pyhalide import checks, ir
from pyhalide.buffer import ImageParam, Param
from pyhalide.expr import Expr

from . import ops, unions
from .errors import FrontendError
from .loop_bounds import BoundCheck
from .loop_trip_reach import runs_somewhere
from .ranges import INT32, Aff, Symbols
from .values import Val


class CheckImage:
    """A run-time check: reading `image` (one zero byte) anywhere but index 0
    raises `exc` with `message` at `loc`. An index check (`index` set to
    (axis, size Val)) reads at the encoded offending index instead, so the
    message can name it as NumPy does. A `limit` check is of a limit of the
    compiled code (a Python int kept in int64), not an error of Python's."""

    def __init__(self, image, exc, message, loc, index=None, limit=False):
        self.image, self.exc, self.message, self.loc = image, exc, message, loc
        self.index = index
        self.limit = limit
        self.assumed = None     # in loops: Context.assumed where it was made
        self.alive = ()         # in loops: the Vals `no continue ran` there (Scope.alive)
        self.stmt = None        # in loops: the statement it was made in (Context.stmt)


class StaticParam:
    """A value computed exactly in Python at call time (fn(StaticEnv)),
    passed to the pipeline as `param` of IR type `type`."""

    def __init__(self, param, fn, t, loc=None):
        self.param, self.fn, self.type = param, fn, t
        self.loc = loc          # the code that computes it (exceptions in program order)


class CallTimeChecks(list):
    """Call-time checks (fn(StaticEnv)), each appended with the location
    of the code being evaluated (`locs`: exceptions in program order)."""

    def __init__(self, cx):
        super().__init__()
        self.cx = cx
        self.locs = []

    def append(self, check):
        super().append(check)
        self.locs.append(self.cx.smap.loc(self.cx.cur_node))


class Context:
    """Location, mode, symbols and checks of one specialization's build.

    Fields (changed only by the owners named):
      smap          the source map: turns AST nodes into file:line:col
      cur_node      the AST node being evaluated (set by the interpreter and
                    the array and loop code before work that may fail)
      stmt_pos      (line, col) of the statement being executed
      stmt          the statement being executed (its AST node)
      epoch         the number of top-level statements started (array versions)
      typing        > 0 while a typing pass runs (loops.py): nothing is
                    emitted and no check is made
      syms          Symbols: argument symbols, loop variables and the facts
                    of enclosing conditions (scope.Scope pushes and pops them)
      assumed       [(bool Val, bool)] the conditions the code being evaluated
                    runs under, each with the value it has there: the tests of
                    the enclosing `if`s and of lazy operands (`x if c else y`,
                    `and`/`or`, chained comparisons; scope.Scope.push_facts)
      sym_nodes     argument symbol -> its IR node (shape extents, int params)
      sym_static    argument symbol -> fn(StaticEnv) computing it at call time
      zero_d_args   0-d array argument name -> its Val (builder): computed with
                    as scalars, they are arrays to attribute access and indexing
      zero_d_results id -> Val of scalars that NumPy makes 0-d arrays (np.where
                    of scalars; zero_d_args.mark): arrays where returned
      check_images  [CheckImage] run-time checks (guard)
      check_named   check image name -> its CheckImage (guard)
      limit_names   the names of its limit checks (CheckImage.limit; guard)
      static_params [StaticParam] values computed at call time (static_param)
      static_checks CallTimeChecks: call-time checks (require, and the array
                    and loop code's index and bound checks)
      scheduled     whether a schedule will be applied (array_scan keeps scans in
                    their own order, which parallel_scan needs)
      loop_state    the builder's LoopState (its `loops`: the loops being run)
      in_loop_header > 0 while a `for` header is evaluated (its bounds' checks
                    are placed by loop_bound_reach.py)
      run_check     fn(node, ok Val, exception name, message, part=0): a check
                    of ok made at run time where the statement runs (the
                    builder's asserts.shape_check; call_time_reach.
                    run_time_gated); `part` tells apart the checks of one node
    """

    def __init__(self, smap, root):
        self.smap = smap
        self.cur_node = root
        self.stmt_pos = (0, 0)
        self.stmt = None
        self.epoch = 0
        self.typing = 0
        self.syms = Symbols()
        self.assumed = []
        self.alive_parts = tuple    # () -> the Scope's `no continue ran` Vals (Builder)
        self.scalar_log = None      # array_scalar_sinks.ScalarLog of the statement (Builder)
        self.sym_nodes = {}
        self.sym_static = {}
        self.shape_syms = set()     # the symbols of array argument sizes (builder._input_shape)
        self.zero_d_args = {}
        self.zero_d_results = {}
        self.run_check = None
        self.loop_run_checks = True  # run_check also inside loops (call_time_reach)
        self.loop_run_checks_made = False   # one was made there (specialize retries without)
        self.check_images = []
        self.check_named = {}       # check image name -> its CheckImage (guard)
        self.limit_names = set()    # the names of the limit checks among them
        self.minmax_parts = {}      # id of an integer Min/Max node -> (node, its operand Vals)
        self.loop_bounds = {}       # loop symbol -> (start Val, stop Val, step) of its latest Loop
        self.sum_parts = {}         # id of a Python-int Add node -> (node, its operand Vals)
        self.static_params = []
        self.static_checks = CallTimeChecks(self)
        self.scheduled = False     # True: a user schedule; "auto": an automatic one
        self.block_nests = frozenset()  # top-level loops run with Blocks (specialize._build)
        self.loop_state = None
        self.carried_loops = []     # the Loops whose body carried_arrays.py runs outside
        #                             loop_state (array_masks.call_time_check reads them)
        self.in_loop_header = 0     # > 0 while a `for` header is evaluated (loops.py)
        self._counter = itertools.count()
        self._bare = {}             # check image name -> a read of it (_after_inner)

    def is_zero_d_arg(self, v) -> bool:
        """Whether v is the value of a 0-d array argument."""
        return any(v is z for z in self.zero_d_args.values())

    # errors --------------------------------------------------------------------------------
    def err(self, node, msg, hint=""):
        """A located CompileError at `node`."""
        return self.smap.error(node, msg, hint)

    def error(self, msg, hint=""):
        """A located CompileError at the node being evaluated."""
        return self.smap.error(self.cur_node, msg, hint)

    def smap_error(self, loc, msg, hint=""):
        """A CompileError at an already computed location."""
        return FrontendError(msg, loc, hint)

    def union_error(self, node, v):
        return self.err(node, f"the type of this value depends on run-time data (it is "
                              f"{unions.describe_types(v)}, as in plain Python), and this "
                              f"operation needs one type",
                        hint="convert it to one type first (int(...), float(...), "
                             "np.float64(...)), or start the variable with a value of the "
                             "type it ends with")

    # checks --------------------------------------------------------------------------------
    def reached_at_call(self):
        """Whether the code being evaluated runs, as a function of StaticEnv
        (None: always), or False where an enclosing condition is not known
        at call time (only a run-time check knows it). The enclosing loops
        whose bounds are known at call time must run at least once (a
        bound of a loop nested in one that runs no iteration is never
        computed); the others are taken to run."""
        tests = []
        for c, when in self.assumed:
            if c is None:               # (push_facts of no condition)
                continue
            if c.is_const:
                if bool(c.const) != when:
                    return lambda env: False
                continue
            if not c.is_static:
                return False
            tests.append((c.static, when))
        for loop in self.loop_state.loops if self.loop_state is not None else ():
            if loop.start.is_static and loop.stop.is_static and \
                    not (loop.start.is_const and loop.stop.is_const):
                tests.append((_runs(loop.start.static, loop.stop.static, loop.step), True))
        if not tests:
            return None

        def reached(env):
            try:
                return all(bool(f(env)) == when for f, when in tests)
            except Exception:       # a test that raises: its own check reports it
                return True
        return reached

    def guard(self, v: Val, cond, exc: str, message: str, index=None, limit=False,
              after=None) -> Val:
        """v, raising `exc` at run time where cond is false. With `index`
        ((axis, size Val, the offending index as an integer node)), the
        check reports that index. `limit`: a limit of the compiled code
        (CheckImage.limit), which an unused value does not check
        (check_order._risky). Outside loops the check fails only where the
        checks v holds pass, and those of `after` (a node of an operand
        Python computes before this check, not part of v: the shifted value
        of a checked shift count), in Python's order (_after_inner)."""
        if isinstance(cond, ir.Const) and cond.value:
            return v
        node = v.node
        if not self.typing:
            cond = self._unless_unreached(cond)
            n = next(self._counter)
            loc = self.smap.loc(self.cur_node)
            bad = ir.index(1) if index is None else encode_bad_index(index[2])
            idx = _check_read(cond, bad)
            node = ops.node_of(self, v)
            if not self._checked_by(node, idx, exc):
                outside = not self.in_loops()
                raw = cond
                if outside:
                    inner = [node] if after is None else [node, after]
                    cond = _after_inner(inner, cond, self.check_named, self._bare)
                    idx = _check_read(cond, bad)
                img = ImageParam(ir.UInt(8), 1, checks.image_name(n))
                self.check_images.append(CheckImage(img, exc, message, loc,
                                                    index[:2] if index is not None else None,
                                                    limit))
                guarded = checks.guarded(img[Expr.wrap(idx)].node, node)
                if outside and self.limit_names:
                    guarded = _limits_after(node, guarded, raw, cond, self.limit_names)
                self.check_named[img.name()] = self.check_images[-1]
                if not outside:
                    # (lifted_checks.py gates its reads in lifted array code)
                    self.check_images[-1].assumed = list(self.assumed)
                    self.check_images[-1].alive = tuple(self.alive_parts())
                    self.check_images[-1].stmt = self.stmt
                if limit:
                    self.limit_names.add(img.name())
                node = guarded
        out = Val(node, v.ty, risky=True, static=v.static, const=v.const, facts=v.facts)
        return out.set_range(v.lo, v.hi, v.lbs, v.ubs)

    def limits_before(self, v: Val, checked: Val) -> Val:
        """v (an operand Python computes before `checked`: the left operand
        of an int operation, the shifted value of a checked shift count),
        its checks of the compiled code's limits (CheckImage.limit) also
        passing where a check of Python's that `checked` holds fails:
        Python makes the big int, then raises that check's exception
        (`int(a[0]) << k` with a[0] = 1e300 and k = -1: ValueError;
        `int(a[0]) * (y // 0)`: ZeroDivisionError). Outside loops, as
        guard's other orderings."""
        if self.typing or self.in_loops() or not self.limit_names or v.node is None or \
                checked.node is None:
            return v
        held = [_passes(c.a) for c in checks.eager(checked.node)
                if c.a.name not in self.limit_names and _passes(c.a) is not None]
        if not held:
            return v
        names = {c.name for c in ir.find_calls([v.node]) if c.name in self.limit_names}
        if not names:
            return v
        out = Val(_widened(v.node, names, ir.conjunction(held)), v.ty, risky=v.risky,
                  static=v.static, const=v.const, facts=v.facts)
        return out.set_range(v.lo, v.hi, v.lbs, v.ubs)

    def huge_shift_count(self, a: Val, b: Val, op: str):
        """(b, fits): for `a << b` outside loops where the count b is
        `int(x)` and holds checks of the compiled code's limits (a Python
        int past int64: x = 5e299, kept saturated), Python raises where the
        count does not fit, a != 0 and b > 0 (OverflowError "too many digits
        in integer"), a Python error that a later check of the statement
        does not override (`(2 << int(a[0] * x)) // 0`). `fits` (None: no
        such check) is the condition of that error's check; b's limit
        checks then pass where a != 0 or b < 0 (the shift's own checks
        report those: Python's ValueError for a negative count). For `a >>
        b` (Python's result is 0 or -1 for a huge positive count: the
        documented limit) only a negative count passes b's limit checks."""
        if self.typing or self.in_loops() or self.in_loop_header or not self.limit_names or \
                b.node is None:
            return b, None
        found = [c for c in checks.eager(b.node) if c.a.name in self.limit_names and
                 _passes(c.a) is not None]
        if not found:
            return b, None
        (fits, nb, na), _ = checks.strip([ir.conjunction([_passes(c.a) for c in found]),
                                          b.node, ops.node_of(self, a)])
        if not _saturated(nb):
            return b, None      # (arithmetic on saturated values: its sign means nothing)
        zero = ir.Const(nb.type, 0)
        nonzero = ir.NE(na, ir.Const(na.type, 0))
        other = ir.Or(ir.LT(nb, zero), nonzero) if op == "<<" else ir.LT(nb, zero)
        node = _widened(b.node, {c.a.name for c in found}, ir.Not(other))
        out = Val(node, b.ty, risky=b.risky, static=b.static, const=b.const, facts=b.facts)
        out = out.set_range(b.lo, b.hi, b.lbs, b.ubs)
        if op != "<<":
            return out, None
        return out, ir.Or(fits, ir.Not(ir.And(ir.GT(nb, zero), nonzero)))

    def in_loops(self) -> bool:
        """Whether the code being evaluated is inside a loop body."""
        return self.loop_state is not None and bool(self.loop_state.loops)

    def loops_run_at_call(self):
        """fn(StaticEnv): whether the enclosing loops whose bounds are known
        at call time (those being run and Context.carried_loops) all have an
        iteration in this call; None where there are none (a check made
        whenever the function is called). A loop of constant bounds counts
        only where it is empty (`range(1, n)` with n specialized to 1: its
        body is traced, its checks are never made); a loop whose bounds are
        affine in enclosing loops' variables counts where it is empty for
        all of their values (loop_trip_reach.runs_somewhere)."""
        loops = list(self.loop_state.loops) if self.loop_state is not None else []
        loops += self.carried_loops
        static = [loop for loop in loops if loop.start.is_static and loop.stop.is_static]
        tests = [_runs(loop.start.static, loop.stop.static, loop.step) for loop in static
                 if not (loop.start.is_const and loop.stop.is_const and
                         len(range(loop.start.const, loop.stop.const, loop.step)) > 0)]
        # a bound of an enclosing loop's variable (`for j in range(i)`)
        tests += [t for t in (runs_somewhere(loop, static, self.sym_static)
                              for loop in loops if loop not in static) if t is not None]
        if not tests:
            return None
        return lambda env: all(t(env) for t in tests)

    def _unless_unreached(self, cond):
        """cond, also true where an enclosing condition is not met: Python
        does not run the code there, so it raises nothing (`if k > 0: y = a *
        (n % k)` with k = 0; `if a[0] > 0: ...` with a[0] <= 0: the branch's
        array is computed whole and selected, its check reads the test's
        value). Code in loops is left to the checks' own placement (an update
        runs only where its conditions hold; its checks keep the form
        lowering/assert_fast_path.py reads), and in a `for` header under a
        test of data (loop_bound_reach.py sinks a bound's checks there)."""
        reached = self.reached_at_call()
        if self.in_loops() or reached is None or \
                self.in_loop_header and not callable(reached):
            return cond
        reached = ops.assumed_conjunction(self, self.assumed)
        return cond if reached is None else ir.Or(cond, ir.Not(reached))

    def _checked_by(self, node, idx, exc: str) -> bool:
        """Whether `node` already holds, outside lazy branches, a check of the
        same kind read at the same position `idx` (so failing exactly where
        this one would, and first: `a[i] += 1` checks `i` once, at the read,
        where Python raises)."""
        if not self.check_images:
            return False
        for c in checks.eager(node):
            read = c.a
            mine = self.check_named.get(read.name)
            if mine is not None and mine.exc == exc and ir.equal(read.args[0], idx):
                return True
        return False

    def static_param(self, v: Val):
        """A value computed exactly in Python at call time, passed as a Param.
        One whose computation may raise (v.risky) raises only where the
        kernel evaluates it (where Python computes it), not at call time:
        `deferred_static`."""
        if v.static is None:
            raise self.error("internal error: a value without IR is not static")
        t = ir.Int(64) if v.ty.kind == "int" else v.ty.ir()
        n = next(self._counter)
        p = Param(t, f"__pyhalide_static{n}")
        loc = self.smap.loc(self.cur_node)
        if not v.risky or self.typing:
            self.static_params.append(StaticParam(p, v.static, t, loc))
            return p.node
        return deferred_static(self, p, v, t, loc)

    def require(self, line: int, cands, lo, hi):
        """A call-time requirement that some of the Affs (over argument
        symbols) is >= lo (or <= hi), unless the numeric ranges prove it;
        OverflowError naming the loop at `line` where it fails."""
        if lo is not None and any(self.syms.nonneg(c.shift(-lo)) for c in cands):
            return
        if hi is not None and any(self.syms.nonneg(Aff.const(hi) - c) for c in cands):
            return
        if self.typing:
            return
        self.static_checks.append(BoundCheck([(cands, lo, hi)], self.sym_static, line,
                                             self.reached_at_call() or None))

    # logic (the operators whose facts refine ranges) -----------------------------------------
    def compare(self, op, a: Val, b: Val) -> Val:
        if a.union or b.union:
            return ops.compare(self, op, a, b)
        return ops.compare(self, op, a, b, facts=_compare_facts(op, a, b))

    def logical_and(self, a: Val, b: Val) -> Val:
        """`a and b` (b evaluated only when a is true): b if a is true, else a,
        each with its own type."""
        return self._logical(a, b, True)

    def logical_or(self, a: Val, b: Val) -> Val:
        """`a or b`: a if a is true, else b, each with its own type."""
        return self._logical(a, b, False)

    def _logical(self, a: Val, b: Val, is_and: bool) -> Val:
        ta = ops.truth(self, a)
        if not (a.union or b.union) and a.ty == b.ty and a.ty.is_bool():
            if ta.is_const:
                return b if ta.const == is_and else a
            if b.risky:        # b evaluated only where Python evaluates it
                args = (ta.node, b.node, ta.node) if is_and else (ta.node, ta.node, b.node)
                node = ir.Call(ir.Bool(), "if_then_else", args, ir.INTRINSIC)
            else:
                node = (ir.And if is_and else ir.Or)(ta.node, ops.truth(self, b).node)
            return Val(node, a.ty, risky=a.risky or b.risky,
                       facts=_merge_facts(a.facts, b.facts, is_and))
        return ops.select(self, ta, b, a) if is_and else ops.select(self, ta, a, b)


def _after_inner(nodes, cond, named, bare):
    """cond, also true where a check the `nodes` already hold (outside lazy
    branches) fails: Python computes the operands first, so their
    exceptions win (`int(a[1]) % k` with a of size 1 and k = 0:
    IndexError). Used for checks outside loops (there the kernel may
    assert the operation's check before its operands'): in loops the checks
    become assertions in the order of the operations, the operand's first,
    and lowering/assert_fast_path.py reads their conditions. A limit of the
    compiled code (CheckImage.limit: int() past int64) is not one of those
    checks: Python raises nothing there, so this check's exception is
    Python's (`int(x * 1e300) % 0`: ZeroDivisionError; _limits_after).

    The kernel asserts a check read's inner check reads first, in the
    order its condition mentions them, which is not Python's (Python's
    floor `%` mentions the right operand first: `int(a[int(b[0])]) %
    int(a[0] * y)` with b[0] past a's end and y NaN asserted the right
    operand's NaN check first). So the condition starts with a read of
    each of those checks in the order they were made (Python's: operands
    left to right, each inside out; `_ordered`), and cond is read without
    them (where they fail it is not used)."""
    held, found = [], []
    for node in nodes:
        for c in checks.eager(node):
            passes = _passes(c.a)
            if passes is not None and not getattr(named.get(c.a.name), "limit", True):
                held.append(passes)
                found.append(c)
    if not held:
        return cond
    # read without the checks of the values they test: this check's read
    # then holds no other check's (lowering asserts a read's inner reads first)
    (held,), _ = checks.strip([ir.conjunction(held)])
    return ir.And(_ordered(found, bare), ir.Or(checks.without(cond, found), ir.Not(held)))


def _ordered(found, bare):
    """`read == 0` of a copy of each check of `found` (`read != 0`), in the
    order the checks were made: 0 exactly where they pass (lowering then
    asserts them in that order and reads 0 past the assertions). Each copy
    reads its image where the check does, without the checks its condition
    holds (`bare`: image name -> the copy, shared by every condition)."""
    terms = []
    for c in sorted(found, key=lambda c: _number(c.a.name)):
        read = bare.get(c.a.name)
        if read is None:
            arg = c.a.args[0].args[0]
            (ok,), _ = checks.strip([arg.condition])
            read = bare[c.a.name] = dataclasses.replace(
                c.a, args=(_check_read(ok, arg.false_value),))
        terms.append(ir.EQ(read, ir.Const(read.type, 0)))
    return ir.conjunction(terms)


def _limits_after(node, guarded, raw, cond, limit_names):
    """`guarded` (node under a new check: `raw` its condition, `cond` that
    widened by _after_inner), the checks of the compiled code's limits
    (CheckImage.limit: a Python int past int64) that node holds also passing
    where `cond` fails: Python makes the big int and then raises the new
    check's exception (`int(a[0]) % k` with a[0] = 1e300 and k = 0:
    ZeroDivisionError), whichever check the kernel asserts first. Not a
    limit whose value `raw` reads (`k % int(a[0])`): past int64 that value
    is not Python's, nor is the new check's verdict."""
    seen = {c.name for c in ir.find_calls([raw])}
    limits = {c.name for c in ir.find_calls([node])
              if c.name in limit_names and c.name not in seen}
    if not limits:
        return guarded
    return _widened(guarded, limits, cond)


def _widened(node, names, held):
    """node, its check reads of the images `names` also passing where `held`
    (a condition) fails; `held` is read without its own checks."""
    (held,), _ = checks.strip([held])

    def widen(c):
        if not (isinstance(c, ir.Call) and c.name in names and _passes(c) is not None):
            return None
        c = mutator.mutate_children(c)     # (its condition may hold other such reads)
        bad = c.args[0].args[0].false_value
        return dataclasses.replace(c, args=(_check_read(ir.Or(_passes(c), ir.Not(held)), bad),))
    mutator = ir.FuncMutator(widen)
    return mutator.mutate(node)


def _saturated(n) -> bool:
    """Whether n is a float converted to int64 (`int(x)`: saturated past
    int64, so its sign is x's)."""
    return isinstance(n, ir.Cast) and n.type.is_int() and isinstance(n.value, ir.Call) and \
        n.value.name == "trunc"


def _number(name: str) -> int:
    """The creation number of a check image (checks.image_name)."""
    return int(name[len(checks.PREFIX):])


def _check_read(cond, bad):
    """The index a check reads its image at: 0 where cond holds, else `bad`
    (likely: the check passes)."""
    return ir.Call(ir.INDEX, "likely", (ir.Select(cond, ir.index(0), bad),), ir.INTRINSIC)


def _passes(read):
    """The condition under which a check read (_check_read's form) passes,
    or None if the read has another form."""
    arg = read.args[0] if len(read.args) == 1 else None
    if isinstance(arg, ir.Call) and arg.name == "likely" and len(arg.args) == 1 and \
            isinstance(arg.args[0], ir.Select):
        return arg.args[0].condition
    return None


def single_aff(v: Val):
    """The affine form that is v's value (its only lower and upper bound), or None."""
    if len(v.lbs) == 1 and len(v.ubs) == 1 and v.lbs[0] == v.ubs[0]:
        return v.lbs[0]
    return None


def _compare_facts(op, a: Val, b: Val):
    """Affine facts (each meaning `aff >= 0`) when the comparison is true / false."""
    if not ((a.ty.is_int() or a.ty.is_bool()) and (b.ty.is_int() or b.ty.is_bool())):
        return None
    A, B = single_aff(a), single_aff(b)
    if A is None or B is None:
        return None
    lt_t, lt_f = [B - A - Aff.const(1)], [A - B]
    if op == "<":
        return (lt_t, lt_f)
    if op == ">=":
        return (lt_f, lt_t)
    le_t, le_f = [B - A], [A - B - Aff.const(1)]
    if op == "<=":
        return (le_t, le_f)
    if op == ">":
        return (le_f, le_t)
    if op == "==":
        return ([A - B, B - A], [])
    if op == "!=":
        return ([], [A - B, B - A])
    return None


def _merge_facts(fa, fb, is_and):
    fa = fa or ([], [])
    fb = fb or ([], [])
    if is_and:
        return (fa[0] + fb[0], [])
    return ([], fa[1] + fb[1])


def encode_bad_index(x):
    """The check image's read position for an out-of-range index x (a signed
    int32 or int64 node): never 0, so it always fails; decode_bad_index
    inverts it within int32."""
    t = x.type
    e = ir.Select(ir.LT(x, ir.Const(t, 0)), x, ir.Add(x, ir.Const(t, 1)))
    if t.bits > 32:
        e = ir.Cast(ir.INDEX, ir.Max(ir.Min(e, ir.Const(t, INT32[1])), ir.Const(t, INT32[0])))
    return e


def decode_bad_index(pos: int) -> str:
    """The offending index read back from a check image's position."""
    if pos in (INT32[0], INT32[1]):
        return (">= " if pos > 0 else "<= ") + str(pos - 1 if pos > 0 else pos)
    return str(pos if pos < 0 else pos - 1)


def _runs(start, stop, step: int):
    """The call-time test that range(start, stop, step) is not empty."""
    if step > 0:
        return lambda env: start(env) < stop(env)
    return lambda env: start(env) > stop(env)


def deferred_static(cx, p, v: Val, t, loc):
    """The node of call-time value v that may raise: Param p holds its value
    (0 where computing it raises) and a flag Param says whether it raised;
    the node reads p behind a run-time check of the flag, whose failure
    raises what computing v raises (Specialization.translate computes it
    again: the check's message is v's static function)."""
    fn = v.static

    def value(env):
        try:
            return fn(env)
        except Exception:
            return 0

    def failed(env):
        try:
            fn(env)
        except Exception:
            return 1
        return 0

    flag = Param(ir.UInt(8), f"{p.name()}_failed")
    cx.static_params.append(StaticParam(p, value, t, loc))
    cx.static_params.append(StaticParam(flag, failed, ir.UInt(8), loc))
    held = Val(p.node, v.ty, static=fn)
    ok = ir.EQ(flag.node, ir.Const(ir.UInt(8), 0))
    return cx.guard(held, ok, "static", fn).node
