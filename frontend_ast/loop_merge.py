"""Loop merging (a rewrite of rewrites.py, order 40, after loop_exits.py): a
loop whose carried variable is also assigned by a loop nested in it
(`m = m * 3 + i` in the outer body, `m += a[j]` in an inner loop) becomes
a loop over "slots" whose iterations run, in Python's order, the outer
body's statements (one slot each run of them) and the inner loop's
iterations (one slot each):

    for i in range(n):                  for i in range(n):
        m = m * 3 + i                       for slot in range(1 + len(range(a, b, k)) + 1):
        for j in range(a, b, k):                if slot == 0: m = m * 3 + i
            m += x[j]                           elif slot < 1 + len(...):
        out[i] = m                                  j = a + (slot - 1) * k; m += x[j]
                                                else: out[i] = m

The variables then have one home loop (the slot loop, carried over the
outer loop when they are), which loops.py compiles. An inner loop inside
an `if` runs its slots with the `if`'s test, taken once in a slot before
it, as a guard; a `continue` of the outer loop in a slot sets a flag that
skips the rest of the outer iteration's slots. Inner loop bounds must be
the same whenever they are evaluated: built from names the outer body
does not assign, or from a counter set just before the loop (`i = 0`
before a `while` loop that loop_exits.py made a `for` loop). Where that is
not so, or the body returns, the loop is left as it is (loops.py refuses
it with its located error). The slot loop's length counts the inner loop's
iterations in every outer iteration, also where its `if` does not hold:
there it divides by no zero (`x // (y if y != 0 else 1)`), and a slot under
the `if`, before the loop's, computes each `//` and `%` of its bounds as an
unused assignment, so that a zero divisor raises only where Python
evaluates the bounds."""
from __future__ import annotations

import ast
import copy

from .analyze import Liveness, assigned_in_nested_loop, carried, home, names_assigned
from .loop_exits import EXIT_ATTR, UNBOUNDED_ATTR
from .loop_forms import LoopFormRewriter
from .loop_seqs import RangeSeq, const_int
from .rewrite_registry import register

_SAFE_CALLS = {"len", "min", "max", "abs", "int"}
_MAX_MERGES = 16


@register(40)
def loop_merge(tree, smap, py_fn):
    """Merge the loops whose carried variables are also assigned by inner
    loops (see the module doc); registered at order 40."""
    for _ in range(_MAX_MERGES):
        found = _conflict(tree)
        if found is None or not _Merge(tree, *found).run():
            break
    return tree


def _conflict(tree):
    """(loop, names, chain start): the first loop whose carried variables in
    `names` are also assigned in a loop nested in it (loops.py's refusal),
    and the outermost loop carrying them; or None."""
    live = Liveness(tree)
    for f in _loops(tree.body):
        for v in carried(f, live):
            last = home(f, v)[-1]
            if assigned_in_nested_loop(last, v) is not None:
                names = {w for w in carried(last, live) if assigned_in_nested_loop(last, w)}
                return last, names | {v}, f
    return None


def _loops(stmts):
    """The For nodes in stmts, outer ones first (not inside nested function
    definitions: their loops are merged where the calls are inlined)."""
    todo = list(stmts)
    while todo:
        n = todo.pop(0)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(n, ast.For):
            yield n
        todo.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt))


class _Merge:
    """Merge `loop` with the loops in its body that assign `names`."""

    def __init__(self, tree, loop, names, start):
        self.tree, self.loop, self.names, self.start = tree, loop, names, start
        self.b = LoopFormRewriter(tree, None)      # its node builders, located at the loop
        self.b.ref = loop
        self.used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        self.assigned = names_assigned(loop.body)
        self.n = 0
        self.skip = None        # the flag a `continue` of `loop` sets

    def fresh(self, what, flag=True):
        while True:
            self.n += 1
            name = f"?{what}{self.n}" if flag else f"{what}{self.loop.lineno}_{self.n}"
            if name not in self.used:
                self.used.add(name)
                return name

    def run(self) -> bool:
        body = list(self.loop.body)
        if any(isinstance(n, ast.Return) for s in body for n in ast.walk(s)):
            return False
        lead = _leading(body)
        body = body[len(lead):]
        phases = self.flatten(body, [])
        if phases is None or not any(p[0] == "loop" for p in phases) or \
                any(p[0] == "loop" and getattr(p[1], UNBOUNDED_ATTR, False) for p in phases):
            return False        # (a slot loop would run a `while` loop's WHILE_LIMIT slots)
        phases = self.join(phases)
        pre, merged = self.slot_loop(phases)
        if merged is None:
            return False
        self.loop.body = lead + [merged]
        _insert_before(self.tree, self.start, pre)
        if getattr(self.loop, EXIT_ATTR, False):
            # its stop test is a slot's `continue` now (loops.py reads it first in the body)
            delattr(self.loop, EXIT_ATTR)
        return True

    # phases ------------------------------------------------------------------------------
    def merges(self, s) -> bool:
        """Whether statement s is (or holds, under `if`s) a loop to merge."""
        if isinstance(s, ast.For):
            return bool(names_assigned([s]) & self.names)
        if isinstance(s, ast.If):
            return any(self.merges(c) for c in s.body + s.orelse)
        return False

    def flatten(self, stmts, guard):
        """[("seg", stmts, guard) | ("loop", For, guard)] in order, or None
        if a loop cannot be merged; guard: [(flag name, truth)]."""
        out = []
        for s in stmts:
            if not self.merges(s):
                out.append(("seg", [self.outer_continues(s)], guard))
            elif isinstance(s, ast.For):
                if s.orelse or not self.range_of(s, out):
                    return None
                divisions = [d for b in s.phx_bounds for d in _divisions(b)]
                if guard and divisions:
                    # the bounds' division checks, where Python evaluates them
                    # (the slot loop's length computes them with no zero divisor):
                    # each `//` and `%`, an unused assignment (check_order.LoopSinks)
                    out.append(("seg", [self.b.assign(self.b.name(self.fresh("bound"), True),
                                                      copy.deepcopy(d))
                                        for d in divisions], guard))
                out.append(("loop", s, guard))
            else:
                flag = self.fresh("if")
                test = self.b.call("bool", [s.test])
                out.append(("seg", [self.b.assign(self.b.name(flag, True), test)], guard))
                body = self.flatten(s.body, guard + [(flag, True)])
                orelse = self.flatten(s.orelse, guard + [(flag, False)])
                if body is None or orelse is None:
                    return None
                out += body + orelse
        return out

    def join(self, phases):
        """Adjacent segments under the same guard as one."""
        out = []
        for p in phases:
            if out and p[0] == "seg" and out[-1][0] == "seg" and out[-1][2] == p[2]:
                out[-1] = ("seg", out[-1][1] + p[1], p[2])
            else:
                out.append(p)
        return out

    def outer_continues(self, s):
        """s with each `continue` of the merged loop (not of a loop inside s)
        setting the skip flag first."""
        if isinstance(s, ast.Continue):
            if self.skip is None:
                self.skip = self.fresh("skip")
            return [self.b.assign(self.b.name(self.skip, True), self.b.const(True)), s]
        if isinstance(s, ast.If):
            s.body = [c for x in s.body for c in _as_list(self.outer_continues(x))]
            s.orelse = [c for x in s.orelse for c in _as_list(self.outer_continues(x))]
        return s

    def range_of(self, loop, before) -> bool:
        """Whether loop is `for v in range(...)` with a literal step and
        bounds that are the same at every evaluation (sets loop.phx_range
        to the RangeSeq)."""
        it = loop.iter
        if not (isinstance(loop.target, ast.Name) and isinstance(it, ast.Call) and
                isinstance(it.func, ast.Name) and it.func.id == "range" and
                not it.keywords and 1 <= len(it.args) <= 3):
            return False
        args = list(it.args)
        step = const_int(args[2]) if len(args) == 3 else 1
        if not step:
            return False
        if len(args) == 1:
            args = [ast.Constant(0)] + args
        bounds = [self.invariant(a, before) for a in args[:2]]
        if any(b is None for b in bounds):
            return False
        loop.phx_range = RangeSeq(self.b, bounds[0], bounds[1], step)
        loop.phx_bounds = bounds
        return True

    def invariant(self, e, before):
        """e with the names the outer body assigns replaced by the value a
        straight-line assignment just before the loop gives them (None if
        one cannot be)."""
        for n in ast.walk(e):
            if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and
                                                n.func.id in _SAFE_CALLS):
                return None
            if isinstance(n, ast.Subscript) and not isinstance(n.value, ast.Attribute):
                return None
        e = copy.deepcopy(e)
        for n in list(ast.walk(e)):
            if isinstance(n, ast.Name) and n.id in self.assigned:
                value = _set_before(before, n.id)
                if value is None or any(isinstance(m, ast.Name) and m.id in self.assigned
                                        for m in ast.walk(value)):
                    return None
                e = _replace(e, n, copy.deepcopy(value))
        return e

    # the slot loop ----------------------------------------------------------------------
    def slot_loop(self, phases):
        b = self.b
        last, marks = self.exit_phase(phases)
        tail, stops = [], None
        if last is not None:
            phases, tail = phases[:last + 1], phases[last + 1:]
            stops = phases[last]
        counts = [b.const(1) if p[0] == "seg" else p[1].phx_range.length() for p in phases]
        # a guarded loop's length is computed in every iteration, also where
        # Python does not evaluate its bounds (a segment before it checks them)
        counts = [_NonzeroDivisors().visit(c) if p[0] == "loop" and p[2] else c
                  for c, p in zip(counts, phases)]
        if last is not None:
            counts[-1] = _add(b, counts[-1], b.const(1))     # the slot that ends the loop
        offsets = [b.const(0)]
        for c in counts:
            offsets.append(_add(b, offsets[-1], c))
        var = self.fresh("slot", flag=False)
        pre = [b.assign(b.name(flag, True), b.const(False)) for flag in self.flags(phases)]
        pre += [b.assign(b.name(n, True), b.const(c)) for n, c in self.starts(phases).items()]
        branches = []
        for p, start, end in zip(phases, offsets, offsets[1:]):
            slot = b.name(var)
            if p[0] == "seg":
                test = b.node(ast.Compare(slot, [ast.Eq()], [start]))
                stmts = [s for x in p[1] for s in _as_list(x)]
            else:
                loop = p[1]
                test = b.node(ast.Compare(slot, [ast.Lt()], [end]))
                k = b.binop(b.name(var), ast.Sub(), copy.deepcopy(start))
                index = b.assign(b.name(loop.target.id, True), loop.phx_range.elem(k))
                # (a loop variable nothing reads is not computed: its int64
                # value's overflow check would be a sink read at every slot)
                stmts = ([index] if self.read(loop.target.id) else []) + list(loop.body)
            if p is stops:
                stmts = [self.loop_end(p, var, start, tail, marks)] + stmts
            elif p[2]:
                stmts = [_if(b, self.guard(p[2]), stmts)]
            branches.append((test, stmts))
        chain = branches[-1][1]
        for test, stmts in reversed(branches[:-1]):
            chain = [_if(b, test, stmts, chain)]
        if self.skip is not None:
            pre.append(b.assign(b.name(self.skip, True), b.const(False)))
            first = b.node(ast.Compare(b.name(var), [ast.Eq()], [b.const(0)]))
            chain = [_if(b, first, [b.assign(b.name(self.skip, True), b.const(False))]),
                     _if(b, b.name(self.skip), [b.node(ast.Continue())])] + chain
        if last is not None:
            pre += [b.assign(b.name(m, True), b.const(v)) for m, _, v in marks]
            # the stop flag has a value before the loop's guard first holds (never read then)
            pre += [b.assign(b.name(n.id, True), b.const(False))
                    for n in ast.walk(stops[1].body[0].test)
                    if isinstance(n, ast.Name) and n.id.startswith("?")]
            chain = [_if(b, self.ended_before(marks), [b.node(ast.Continue())])] + chain
        it = b.call("range", [offsets[-1]])
        merged = b.node(ast.For(target=b.name(var, True), iter=it, body=chain, orelse=[],
                                type_comment=None))
        if last is not None:
            setattr(merged, EXIT_ATTR, True)
        return pre, merged

    def read(self, name) -> bool:
        """Whether the function reads variable `name` anywhere."""
        return any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Store)
                   for n in ast.walk(self.tree))

    # early exit ---------------------------------------------------------------------------
    def exit_phase(self, phases):
        """(index, marks) when the last loop of the phases stops early (a
        `while` or `break`: loop_exits.py's `if ?stop: continue` opens its
        body) and only segments follow it: those segments then run in one
        more slot of that loop, the one after it stops, which also records
        the iteration of the merged loops it stopped in (marks: [(name, loop
        variable or None for the "recorded" flag, start value)]); the slot
        loop is left at the next slot (see ended_before). Else (None, []).
        Not where a slot writes an array: the slots' values are then a scan
        (loop_scans.py), which has a value at every slot and no exit."""
        loops = [k for k, p in enumerate(phases) if p[0] == "loop"]
        if not loops or self.skip is not None or _stores(phases):
            return None, []
        loop = phases[loops[-1]][1]
        head = loop.body[0] if loop.body else None
        if not (getattr(loop, EXIT_ATTR, False) and isinstance(head, ast.If) and
                not head.orelse and len(head.body) == 1 and
                isinstance(head.body[0], ast.Continue)):
            return None, []
        outer = _path(self.start, self.loop)
        if outer is None or any(not isinstance(f.target, ast.Name) or
                                f.target.id in names_assigned(f.body) for f in outer):
            return None, []
        marks = [(self.fresh("stopped"), None, False)]
        marks += [(self.fresh("stopped_at"), f.target.id, 0) for f in outer]
        return loops[-1], marks

    def ended_before(self, marks):
        """The test that the loop ended in this iteration of the merged
        loops (every remaining slot does nothing): it does not change along
        the slot loop, so the slot loop is left where it holds."""
        b = self.b
        tests = [b.name(marks[0][0])]
        tests += [b.node(ast.Compare(b.name(m), [ast.Eq()], [b.name(v)]))
                  for m, v, _ in marks[1:]]
        return b.node(ast.BoolOp(ast.And(), tests))

    def loop_end(self, p, var, start, tail, marks):
        """`if <the loop has ended>: record it; the segments after the loop;
        continue` for the first slot after the last iteration that runs."""
        b = self.b
        loop = p[1]
        at_end = b.node(ast.Compare(b.name(var), [ast.Eq()],
                                    [_add(b, copy.deepcopy(start), loop.phx_range.length())]))
        ended = [copy.deepcopy(loop.body[0].test), at_end]
        if p[2]:
            ended.insert(0, b.node(ast.UnaryOp(ast.Not(), self.guard(p[2]))))
        stmts = [b.assign(b.name(marks[0][0], True), b.const(True))]
        stmts += [b.assign(b.name(m, True), b.name(v)) for m, v, _ in marks[1:]]
        for seg in tail:
            seg_stmts = [s for x in seg[1] for s in _as_list(x)]
            stmts += [_if(b, self.guard(seg[2]), seg_stmts)] if seg[2] else seg_stmts
        stmts.append(b.node(ast.Continue()))
        return _if(b, b.node(ast.BoolOp(ast.Or(), ended)), stmts)

    def starts(self, phases) -> dict:
        """name -> the constant a segment first assigns it, for the names the
        slots read before a slot assigns them that the loop's iterations do
        not carry: Python assigns them before any read, so the value they
        start the slot loop with is never read, but the slots' variable
        needs one."""
        live = Liveness(self.tree).head.get(id(self.loop), set())
        out = {}
        for p in phases:
            stmts = [x for y in p[1] for x in _as_list(y)] if p[0] == "seg" else [p[1]]
            for s in stmts:
                for n in names_assigned([s]) - live - set(out):
                    if p[0] == "seg" and not p[2] and isinstance(s, ast.Assign) and \
                            len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                            isinstance(s.value, ast.Constant):
                        out[n] = s.value.value
                    else:
                        out[n] = None
        return {n: c for n, c in out.items() if c is not None}

    def flags(self, phases):
        return list(dict.fromkeys(f for p in phases for f, _ in p[2]))

    def guard(self, guard):
        b = self.b
        tests = [b.name(f) if truth else b.node(ast.UnaryOp(ast.Not(), b.name(f)))
                 for f, truth in guard]
        return tests[0] if len(tests) == 1 else b.node(ast.BoolOp(ast.And(), tests))


def _divisions(e) -> list:
    """The `//` and `%` operations in expression e (which raise on a zero divisor)."""
    return [n for n in ast.walk(e)
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.FloorDiv, ast.Mod))]


class _NonzeroDivisors(ast.NodeTransformer):
    """`x // y` and `x % y` as `x // (y if y != 0 else 1)`: never raising
    (for a slot loop's length where the loop is not reached; where it is,
    a segment computing the bounds raises first)."""

    def visit_BinOp(self, n):
        self.generic_visit(n)
        if isinstance(n.op, (ast.FloorDiv, ast.Mod)):
            y = n.right
            nonzero = ast.Compare(copy.deepcopy(y), [ast.NotEq()], [ast.Constant(0)])
            n.right = ast.copy_location(ast.IfExp(nonzero, y, ast.Constant(1)), y)
            ast.fix_missing_locations(n.right)
        return n


def _stores(phases) -> bool:
    """Whether a statement of the phases stores into an element or slice."""
    stmts = [p[1] for p in phases if p[0] == "loop"] + \
        [s for p in phases if p[0] == "seg" for x in p[1] for s in _as_list(x)]
    return any(isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
               for s in stmts for n in ast.walk(s))


def _path(start, loop):
    """The For nodes from `start` down to `loop` (both included), or None."""
    if start is loop:
        return [loop]
    for c in ast.iter_child_nodes(start):
        if isinstance(c, ast.stmt):
            below = _path(c, loop)
            if below is not None:
                return ([start] if isinstance(start, ast.For) else []) + below
    return None


def _leading(body):
    """The statements that open the body and assign names no later statement
    assigns (`i = j % n`): they stay before the slot loop, which does not
    carry them."""
    out = []
    for k, s in enumerate(body):
        if not isinstance(s, (ast.Assign, ast.AugAssign)) or \
                any(isinstance(n, ast.Continue) for n in ast.walk(s)) or \
                names_assigned([s]) & names_assigned(body[k + 1:]) or \
                any(isinstance(t, ast.Subscript) for t in ast.walk(s) if
                    isinstance(getattr(t, "ctx", None), ast.Store)):
            break
        out.append(s)
    return out


def _if(b, test, body, orelse=()):
    return b.node(ast.If(test=test, body=list(body), orelse=list(orelse)))


def _as_list(x):
    return x if isinstance(x, list) else [x]


def _add(b, x, y):
    if const_int(x) == 0:
        return y
    return b.binop(x, ast.Add(), y)


def _set_before(phases, name):
    """The value of the last unguarded `name = e` in the segments before a
    loop, if no later statement there assigns name."""
    for p in reversed(phases):
        if p[0] != "seg":
            if name in names_assigned([p[1]]):
                return None
            continue
        for s in reversed([x for y in p[1] for x in _as_list(y)]):
            if name not in names_assigned([s]):
                continue
            if p[2] or not (isinstance(s, ast.Assign) and len(s.targets) == 1 and
                            isinstance(s.targets[0], ast.Name)):
                return None
            return s.value
    return None


def _insert_before(tree, node, stmts):
    """Put stmts before statement `node` in the list that holds it."""
    for n in ast.walk(tree):
        for field in ("body", "orelse"):
            body = getattr(n, field, None)
            if isinstance(body, list) and any(s is node for s in body):
                k = next(i for i, s in enumerate(body) if s is node)
                body[k:k] = stmts
                return


def _replace(tree, old, new):
    """tree with node `old` replaced by `new`."""
    if tree is old:
        return new
    for field, value in ast.iter_fields(tree):
        if isinstance(value, list):
            setattr(tree, field, [new if v is old else v for v in value])
        elif value is old:
            setattr(tree, field, new)
    for c in ast.iter_child_nodes(tree):
        _replace(c, old, new)
    return tree
