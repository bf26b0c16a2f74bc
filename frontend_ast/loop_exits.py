"""`break`, `while` loops, `for`/`while ... else` and early `return`, rewritten
into `for v in range(...)` loops, bool flags and `continue` (which the
interpreter compiles as a predicate on the rest of the iteration):

    while i < n and c:          ?stop1 = False
        body                    for while12 in range(i, n, 1):
                                    if ?stop1: continue
                                    if not (i < n and c): ?stop1 = True; continue
                                    body
    break                       ?stop1 = True; continue

(`?` marks the names the rewrite adds: no Python name has one.)

A loop whose iterations stop doing anything once its flag is set carries
the flag's name in the attribute EXIT_ATTR: loops.py marks the update that
holds the flag so the lowered loop is left when the flag is set (no
iteration runs after the exit).

A `while` loop needs a stated trip-count bound: a conjunct of its test that
compares a counter with a bound the body does not change, the counter
stepped by a constant once per iteration at the top level of the body
(`while i < maxiter and x*x + y*y < 4: ...; i += 1`). The for loop runs
len(range(i, bound, step)) iterations at most and re-tests the whole
condition before each, so it does what the while loop does. Without one
it runs at most WHILE_LIMIT iterations and raises RuntimeError where
Python would run more; its update must leave the loop (it is marked
UNBOUNDED_ATTR: ir.Definition.exit_required, lowering/loop_exit.py).

A `return` inside a loop stores its value in per-loop variables and leaves
the loop (each enclosing loop forwards it); the function's statements after
an `if` that returns become that `if`'s other branch; every path then
assigns the returned value to one variable (one per tuple element), and a
single `return` ends the function."""
from __future__ import annotations

import ast
import copy

from .loop_counter_index import index_by_trip, integer_names
from .rewrite_registry import register
from .while_final_test import final_stop

EXIT_ATTR = "pyhalide_exit_flag"
WHILE_LIMIT = 2**31 - 2     # iterations of a `while` loop without a stated bound
UNBOUNDED_ATTR = "pyhalide_unbounded_while"   # on the loop such a `while` becomes
# on a `while` whose loop runs relative to its start (while_exit_write.py):
# the `for` loop it becomes keeps it (emit.relative_rdom, loop_cycles.py)
RELATIVE_ATTR = "pyhalide_relative_while"


@register(30)
def loop_exits(tree, smap, py_fn):
    """Rewrite the function's loop exits and early returns (see the module
    doc); registered at order 30."""
    if not _needs_rewrite(tree) or any(
            isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            for s in tree.body for n in ast.walk(s)):
        return tree         # (a nested definition is check_supported's located error)
    return _Exits(tree, smap).run()


def describe_name(name: str) -> str:
    """A variable's name for a message: the user's name quoted, or what a
    name this rewrite added holds."""
    if not name.startswith("?"):
        return repr(name)
    if name.startswith(("?value", "?result")):
        return "the value a `return` in this loop returns"
    if name.startswith("?if"):
        return "the test of an `if` around an inner loop"
    if name.startswith("?skip"):
        return "the flag that skips the rest of an iteration"
    if name.startswith("?count"):
        return "the steps this loop adds to a counter"
    if name.startswith("?slot"):
        return "which of several element updates in a row runs"
    return "the flag that stops this loop"


def _needs_rewrite(tree) -> bool:
    body = tree.body
    for n in _walk_fn(tree):
        if isinstance(n, (ast.Break, ast.While)) or \
                (isinstance(n, (ast.For, ast.While)) and n.orelse):
            return True
        if isinstance(n, ast.Return) and n is not body[-1]:
            return True
    return False


def _walk_fn(tree):
    """The nodes of the function's body (not of nested functions or lambdas)."""
    todo = list(tree.body)
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                todo.append(c)


def in_body(stmts, kinds):
    """The nodes of `kinds` in stmts that belong to this loop level (not to
    a nested loop)."""
    out = []
    todo = list(stmts)
    while todo:
        n = todo.pop()
        if isinstance(n, kinds):
            out.append(n)
        if isinstance(n, (ast.For, ast.While)):
            todo.extend(n.orelse)      # an inner loop's else clause runs at this level
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(n))
    return out


def has_return(stmts) -> bool:
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


class _Loop:
    """A rewritten loop: how a break sets its stop flag ([(name, value)]),
    the flag of a break (when an else clause needs it), the flag of a return
    that left it and the returns inside it ([(hit flag, value names)])."""

    def __init__(self):
        self.stop = []
        self.broke = self.ret = None
        self.sites = []

    def leave(self, node, broke=True):
        """Statements that end the loop (a `break`)."""
        out = [_set(n, v, node) for n, v in self.stop]
        if self.broke and broke:
            out.append(_set(self.broke, True, node))
        return out + [ast.copy_location(ast.Continue(), node)]


class _Exits:
    def __init__(self, tree, smap):
        self.tree, self.smap = tree, smap
        self.int_names = integer_names(tree)      # (compared with a counter: loop_counter_index)
        self.n = 0
        rets = [n for n in _walk_fn(tree) if isinstance(n, ast.Return)]
        self.width = self._result_width(rets)      # None: no value; 0: one value; k: k-tuple
        self.common = self._common_names(rets)
        self.hits = []          # the hit flags of the returns inside loops
        self.stack = []         # the enclosing loops: (original node, loop variable)
        self.hoist = {}         # id(original loop) -> statements to put before it
        self.names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
            {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}

    def fresh(self, what):
        """A new variable name: `?` (no Python name has one) marks the flags
        and values the rewrite adds (no Func nor schedule name shows them)."""
        self.n += 1
        return f"?{what}{self.n}"

    def trip_name(self, s):
        """The variable of the for loop a while loop becomes (its RVar is
        r_while<line>): a name the function does not use."""
        name = f"while{s.lineno}"
        while name in self.names:
            name += "_"
        self.names.add(name)
        return name

    def _result_width(self, rets):
        for r in rets:          # `return None` is a bare `return`
            if isinstance(r.value, ast.Constant) and r.value.value is None:
                r.value = None
        values = [r.value for r in rets]
        if all(v is None for v in values):
            return None
        bare = next((r for r in rets if r.value is None), None)
        if bare is not None:
            raise self.smap.error(bare, "this function returns a value on some paths and None "
                                        "on others", "return a value on every path")
        tuples = {len(v.elts) for v in values if isinstance(v, ast.Tuple)}
        if not tuples:
            return 0
        other = next((r for r in rets if not (isinstance(r.value, ast.Tuple) and
                                              len(r.value.elts) == min(tuples))), None)
        if other is not None:
            raise self.smap.error(other, "the `return` statements of this function return "
                                         "tuples of different forms",
                                  f"write every return as a tuple of {min(tuples)} values: "
                                  f"return a, b")
        return min(tuples)

    def _common_names(self, rets):
        """Per returned position, the variable every `return` returns there,
        or None. No statement runs after a return, so that variable holds at
        the function's end the value it had at the return that was taken: the
        position needs no value variable (an array can be returned from inside
        a loop, where no array can be named). A for loop's target is excluded:
        the loop goes on binding it after its flag stops the body."""
        if self.width is None:
            return []
        targets = {n.id for f in ast.walk(self.tree) if isinstance(f, ast.For)
                   for n in ast.walk(f.target) if isinstance(n, ast.Name)}
        common = []
        for col in zip(*(self.returned(r.value) for r in rets)):
            ids = {e.id if isinstance(e, ast.Name) else None for e in col}
            name = ids.pop() if len(ids) == 1 else None
            common.append(name if name not in targets else None)
        return common

    def returned(self, value):
        """The returned expressions, one per position."""
        return [value] if self.width == 0 else value.elts

    def value_names(self, what):
        if self.width is None:
            return []
        if self.width == 0:
            return [self.common[0] or self.fresh(what)]
        return [self.common[k] or self.fresh(f"{what}{k}") for k in range(self.width)]

    def run(self):
        body = self.stmts(self.tree.body, None)
        rets = [n for s in body for n in ast.walk(s) if isinstance(n, ast.Return)]
        final = rets == [body[-1]] and getattr(body[-1], "phx_sites", None) is None
        if rets and not final:
            self.result = self.value_names("result")
            body, falls = self.tail(body)
            if self.width is not None:
                if falls:
                    raise self.smap.error(self.tree.body[-1], "this function returns a value "
                                                              "on some paths and reaches its "
                                                              "end (returning None) on others",
                                          "end the function with a `return`")
                last = self.tree.body[-1]
                names = [ast.Name(n, ast.Load()) for n in self.result]
                value = names[0] if self.width == 0 else ast.Tuple(names, ast.Load())
                body.append(ast.copy_location(ast.Return(value), last))
        body = [_set(h, False, self.tree.body[0]) for h in self.hits] + body
        self.tree.body = body or [ast.copy_location(ast.Pass(), self.tree)]
        return self.tree

    # loops -----------------------------------------------------------------------------
    def stmts(self, stmts, loop):
        out = []
        for s in stmts:
            out.extend(self.stmt(s, loop))
        return out

    def stmt(self, s, loop):
        if isinstance(s, (ast.For, ast.While)):
            return self.loop(s, loop)
        if isinstance(s, ast.Break):
            return loop.leave(s)
        if isinstance(s, ast.Return) and loop is not None:
            hit, values = self.fresh("hit"), self.value_names("value")
            self.hits.append(hit)
            loop.sites.append((hit, values))
            out = self.assign(values, s.value, s) + [_set(hit, True, s)]
            return out + [_set(loop.ret, True, s)] + loop.leave(s)
        if isinstance(s, ast.If):
            s.body = self.stmts(s.body, loop) or [ast.copy_location(ast.Pass(), s)]
            s.orelse = self.stmts(s.orelse, loop)
        return [s]

    def assign(self, names, value, node):
        if not names:
            return []
        return [_set(n, e, node) for n, e in zip(names, self.returned(value))
                if not (isinstance(e, ast.Name) and e.id == n)]

    def loop(self, s, outer):
        breaks = in_body(s.body, ast.Break)
        rets = [n for n in _walk_fn(s) if isinstance(n, ast.Return)]
        is_while = isinstance(s, ast.While)
        var = self.trip_name(s) if is_while else getattr(s.target, "id", None)
        pre = []
        info = _Loop()
        guard = None
        if breaks or rets or is_while:
            guard, span = self.stop_flag(s, info, breaks + rets)
            if span and s.orelse and breaks:
                raise self.smap.error(s.orelse[0], "an `else` clause of a loop that `break` "
                                                   "leaves is not supported when the loop's "
                                                   "variables carry over the enclosing loop",
                                      "set a flag before the `break` and test it after the loop")
        if s.orelse and (breaks or rets):
            info.broke = self.fresh("broke")
            pre.append(_set(info.broke, False, s))
        if rets:
            info.ret = self.fresh("returned")
            if outer is None:
                pre.append(_set(info.ret, False, s))
            else:
                # set once: the return ends every loop (a flag reset in the
                # enclosing loop would belong to another loop nest than the values)
                self.hits.append(info.ret)
        # (before the body changes)
        it, counter, step = self.trip_range(s) if is_while else (None, None, None)
        step_stmt = next(x for x in s.body if _step_of(x, counter) is not None) \
            if is_while and counter is not None else None
        self.stack.append((s, var))
        try:
            body = self.stmts(s.body, info)
        finally:
            self.stack.pop()
        if is_while:
            test = s.test
            if counter is not None:
                test, body = index_by_trip(s.test, body, counter, var, step, step_stmt,
                                           self.int_names)
            test = ast.copy_location(ast.UnaryOp(ast.Not(), test), s.test)
            body = [ast.copy_location(ast.If(test, info.leave(s.test, broke=False), []),
                                      s.test)] + body
            target = ast.Name(var, ast.Store())
        else:
            target, it = s.target, s.iter
        if guard is not None:
            body = [ast.copy_location(ast.If(guard, [ast.copy_location(ast.Continue(), s)], []),
                                      s)] + body
        new = ast.copy_location(ast.For(target=target, iter=it, body=body, orelse=[],
                                        type_comment=None), s)
        ast.copy_location(new.target, s)
        if guard is not None:
            setattr(new, EXIT_ATTR, True)
        if getattr(s, RELATIVE_ATTR, False):
            setattr(new, RELATIVE_ATTR, True)
        out = pre + self.hoist.pop(id(s), []) + [new]
        if is_while and counter is None:
            setattr(new, UNBOUNDED_ATTR, True)
            out.append(_past_limit(info.stop[0][0], s))
        if s.orelse:
            orelse = self.stmts(s.orelse, outer)
            if info.broke:
                test = ast.UnaryOp(ast.Not(), ast.Name(info.broke, ast.Load()))
                orelse = [ast.copy_location(ast.If(test, orelse, []), s.orelse[0])]
            out += orelse
        if rets and outer is not None:
            # a return inside nested loops leaves the enclosing loop too
            outer.sites += info.sites
            leave = [_set(outer.ret, True, s)] + outer.leave(s)
            out.append(ast.copy_location(ast.If(ast.Name(info.ret, ast.Load()), leave, []), s))
        elif rets:
            r = ast.copy_location(ast.Return(None), s)
            r.phx_sites = info.sites
            out.append(ast.copy_location(ast.If(ast.Name(info.ret, ast.Load()), [r], []), s))
        return out

    def stop_flag(self, s, info, exits):
        """The stop flag of loop s: its statements into info.stop, its resets
        into the statements before the loop they go before; returns the
        guard's test. A loop whose variables carry over k enclosing loops
        (they accumulate over the whole nest) records in k variables the
        iteration of those loops in which it stopped: a flag reset in the
        enclosing loop would belong to another loop nest than the variables."""
        span = _span(s, [n for n, _ in self.stack], self.tree, self.smap, exits)
        where = self.stack[-span][0] if span else s
        if span == 0 or any(v is None for _, v in self.stack[-span:]):
            name = self.fresh("stop")
            info.stop = [(name, True)]
            self.hoist.setdefault(id(where), []).append(_set(name, False, s))
            return ast.Name(name, ast.Load()), 0
        tests = []
        for k, (_, v) in enumerate(self.stack[-span:]):
            name = self.fresh(f"stop{k}")
            info.stop.append((name, ast.Name(v, ast.Load())))
            self.hoist.setdefault(id(where), []).append(_set(name, -(1 << 62), s))
            tests.append(ast.Compare(ast.Name(name, ast.Load()), [ast.Eq()],
                                     [ast.Name(v, ast.Load())]))
        test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)
        for n in ast.walk(test):
            ast.copy_location(n, s)
        return test, span

    def trip_range(self, s):
        """(range(counter, bound, step) over-approximating the trip count of
        while loop s, the counter's name, step): a located error if no
        conjunct of its test gives one."""
        test = s.test
        conj = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
            else [test]
        assigned = _stored_names(s.body)
        for c in conj:
            m = counter_compare(c, s.body)
            if m is None:
                continue
            counter, op, bound = m
            if any(n in assigned for n in _loaded_names(bound)) or _reads_elements(bound) or \
                    any(_reads_elements(v) for v in _values_assigned(self.tree, counter, s)):
                continue        # (a bound from array contents: no loop bound)
            step = counter_step(s.body, counter)
            if step is None:
                continue
            if isinstance(op, (ast.Lt, ast.LtE)) and step > 0:
                stop = bound if isinstance(op, ast.Lt) else _plus(bound, 1)
            elif isinstance(op, (ast.Gt, ast.GtE)) and step < 0:
                stop = bound if isinstance(op, ast.Gt) else _plus(bound, -1)
            else:
                continue
            stop = final_stop(conj, c, stop, counter, step)
            call = ast.Call(ast.Name("range", ast.Load()),
                            [ast.Name(counter, ast.Load()), copy.deepcopy(stop),
                             ast.Constant(step)], [])
            for n in ast.walk(call):
                ast.copy_location(n, c)
            return call, counter, step
        # no stated bound: a serial loop of at most WHILE_LIMIT iterations
        # that raises where Python would run more (_past_limit); inside
        # another loop too, where its update's RVar stays the innermost
        # serial loop, left when the test fails (Definition.exit_required)
        call = ast.Call(ast.Name("range", ast.Load()), [ast.Constant(WHILE_LIMIT)], [])
        for n in ast.walk(call):
            ast.copy_location(n, test)
        return call, None, None

    # early returns at the function's level ------------------------------------------------
    def tail(self, stmts):
        """(statements, whether their end is reachable): the statements with
        each `return` assigning the result variables and every statement
        after an `if` that returns moved into its branches."""
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, ast.Return):
                sites = getattr(s, "phx_sites", None)
                if sites is not None:
                    out += self.stored_result(sites, s)
                else:
                    out += self.assign(self.result, s.value, s)
                return out, False
            if isinstance(s, ast.If) and has_return([s]):
                rest = stmts[k + 1:]
                body, fb = self.tail(s.body + rest)
                orelse, fe = self.tail(s.orelse + copy.deepcopy(rest))
                s.body = body or [ast.copy_location(ast.Pass(), s)]
                s.orelse = orelse
                out.append(s)
                return out, fb or fe
            out.append(s)
        return out, True

    def stored_result(self, sites, node):
        """result = the values of the return that hit, of those inside a loop."""
        if not self.result:
            return []
        (hit, values), rest = sites[0], sites[1:]
        take = [_set(r, ast.Name(v, ast.Load()), node) for r, v in zip(self.result, values)
                if r != v]
        if not rest:
            return take
        test = ast.Name(hit, ast.Load())
        take = take or [ast.copy_location(ast.Pass(), node)]
        return [ast.copy_location(ast.If(test, take, self.stored_result(rest, node)), node)]


def carried_spans(loop, stack, tree) -> dict:
    """name -> over how many enclosing loops (innermost last in `stack`) the
    variable, which `loop` updates and which is used outside it, is carried:
    an enclosing loop's body that mentions it only in the statement holding
    `loop` carries it too (analyze.home's loop chains), unless that
    statement (an `if` around the loop) assigns it before the loop: it
    starts anew there in each iteration (`if c: j = i; while ...: j += 1`)."""
    inside = _name_counts([loop])
    total = _name_counts(tree.body)
    carried = [v for v in _stored_names(loop.body)
               if "?" not in v and total.get(v, 0) > inside.get(v, 0)]
    spans = {}
    for v in carried:
        k, cur = 0, loop
        for outer in reversed(stack):
            refs = [st for st in outer.body if _mentions(st, v)]
            if isinstance(outer, ast.While) and _mentions(outer.test, v) or \
                    len(refs) != 1 or not any(n is cur for n in ast.walk(refs[0])) or \
                    _set_before(refs[0], cur, v):
                break
            k, cur = k + 1, outer
        spans[v] = k
    return spans


def _set_before(holder, loop, v) -> bool:
    """Whether `holder`, a statement holding `loop` (an `if` around it),
    assigns v in a statement of its branch before the one holding `loop`."""
    if holder is loop or not isinstance(holder, ast.If):
        return False
    for branch in (holder.body, holder.orelse):
        for k, st in enumerate(branch):
            if any(n is loop for n in ast.walk(st)):
                return v in _stored_names(branch[:k]) or _set_before(st, loop, v)
    return False


def _span(loop, stack, tree, smap, exits) -> int:
    """Over how many enclosing loops the variables `loop` updates are
    carried (as analyze.home finds their loop chains): a variable used
    outside the loop that an enclosing loop's body mentions only in the
    statement holding `loop` is carried by that loop too. A located error
    if the variables differ."""
    spans = carried_spans(loop, stack, tree)
    if len(set(spans.values())) > 1:
        lo = min(spans, key=spans.get)
        hi = max(spans, key=spans.get)
        raise smap.error(exits[0] if exits else loop,
                         f"this loop can stop early, and the variables it updates are carried "
                         f"over different loops: {lo!r} starts anew in the enclosing loop, "
                         f"{hi!r} carries over it",
                         f"set {hi!r} before the loop too and add it to a variable of the "
                         f"enclosing loop after the loop, or split the loop in two")
    return max(spans.values(), default=0)


def _name_counts(stmts) -> dict:
    out = {}
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name):
                out[n.id] = out.get(n.id, 0) + 1
    return out


def _mentions(node, name) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _set(name, value, node):
    if isinstance(value, (bool, int)):
        value = ast.Constant(value)
    a = ast.Assign([ast.Name(name, ast.Store())], value)
    for n in ast.walk(a):
        ast.copy_location(n, node)
    return a


def _plus(e, k):
    return ast.BinOp(copy.deepcopy(e), ast.Add() if k > 0 else ast.Sub(), ast.Constant(abs(k)))


def _stored_names(stmts) -> dict:
    """name -> the number of places the statements assign it."""
    out = {}
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out[n.id] = out.get(n.id, 0) + 1
    return out


def _loaded_names(e):
    return {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}


def _past_limit(stop: str, s) -> ast.If:
    """`if not stop: raise RuntimeError(...)` after a `while` loop without a
    stated bound (a loop of WHILE_LIMIT iterations): its test still held
    after the last iteration the loop can run, where Python would go on."""
    msg = (f"this `while` loop ran {WHILE_LIMIT} iterations, the most a compiled `while` "
           f"loop without a stated bound runs")
    out = ast.If(ast.UnaryOp(ast.Not(), ast.Name(stop, ast.Load())),
                 [ast.Raise(ast.Call(ast.Name("RuntimeError", ast.Load()),
                                     [ast.Constant(msg)], []), None)], [])
    for n in ast.walk(out):
        ast.copy_location(n, s)
    return out


def _reads_elements(e) -> bool:
    """Whether expression e may read array contents (a subscript other than
    of `.shape`, a call other than len/int/min/max/abs): a counter's start
    or bound computed so cannot bound a loop (loops.py)."""
    for n in ast.walk(e):
        if isinstance(n, ast.Subscript) and not (isinstance(n.value, ast.Attribute) and
                                                 n.value.attr == "shape"):
            return True
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and
                                            n.func.id in ("len", "int", "min", "max", "abs")):
            return True
    return False


def _values_assigned(tree, name, loop):
    """The values the function assigns to `name` outside `loop` (the whole
    right-hand side where a tuple target's element cannot be told)."""
    inside = {id(n) for n in ast.walk(loop)}
    out = []
    for n in ast.walk(tree):
        if id(n) in inside:
            continue
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id == name:
                    out.append(n.value)
                elif isinstance(t, (ast.Tuple, ast.List)) and _mentions(t, name):
                    elts = n.value.elts if isinstance(n.value, (ast.Tuple, ast.List)) and \
                        len(n.value.elts) == len(t.elts) else None
                    out += [v for tt, v in zip(t.elts, elts) if _mentions(tt, name)] \
                        if elts is not None else [n.value]
    return out


def counter_compare(c, body=None):
    """(counter, op with the counter on the left, bound) of `i < n`-like
    comparisons, else None; between two names (`lo <= j`), the one the loop
    `body` steps is the counter."""
    if not (isinstance(c, ast.Compare) and len(c.ops) == 1):
        return None
    left, op, right = c.left, c.ops[0], c.comparators[0]
    flip = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}
    if type(op) not in flip:
        return None
    if isinstance(left, ast.Name) and isinstance(right, ast.Name) and body is not None and \
            counter_step(body, left.id) is None and counter_step(body, right.id) is not None:
        return right.id, flip[type(op)](), left
    if isinstance(left, ast.Name):
        return left.id, op, right
    if isinstance(right, ast.Name):
        return right.id, flip[type(op)](), left
    return None


def counter_step(body, counter):
    """The constant the body adds to `counter` once per iteration: its only
    assignment is `counter += k` / `counter -= k` / `counter = counter ± k`
    at the top level of the body, with no `continue` of this loop before it."""
    if _stored_names(body).get(counter, 0) != 1:
        return None
    for k, s in enumerate(body):
        step = _step_of(s, counter)
        if step is not None:
            return step if not in_body(body[:k], ast.Continue) else None
    return None


def _step_of(s, counter):
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and \
            s.target.id == counter:
        op, k = s.op, s.value
    elif isinstance(s, ast.Assign) and len(s.targets) == 1 and \
            isinstance(s.targets[0], ast.Name) and s.targets[0].id == counter and \
            isinstance(s.value, ast.BinOp) and isinstance(s.value.left, ast.Name) and \
            s.value.left.id == counter:
        op, k = s.value.op, s.value.right
    else:
        return None
    if not (isinstance(k, ast.Constant) and type(k.value) is int and k.value > 0):
        return None
    if isinstance(op, ast.Add):
        return k.value
    if isinstance(op, ast.Sub):
        return -k.value
    return None
