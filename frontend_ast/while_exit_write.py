"""The array write right after a `while` loop, made in the loop's last
iteration (a rewrite of rewrites.py, order 28, before loop_exits.py):

    while j >= 0 and a[j] > key:        ?first1 = j
        a[j + 1] = a[j]                 while j >= min(0 - 1, ?first1) and not ?done1:
        j -= 1                              key = key
    a[j + 1] = key                          if j >= 0 and a[j] > key:
                                                a[j + 1] = a[j]
                                            else:
                                                a[j + 1] = key
                                                ?done1 = True
                                            j -= 1
                                        j += 1

(insertion sort's shifting loop). The counter's bound is widened by one
step, and never past the counter's first value, so the loop always runs the
iteration where the test fails, and writes there what Python writes after
the loop, with the same state; the counter's last step is undone after it
(where the function reads the counter elsewhere).
Then both writes are at the loop's position (loop_exits.py reads the
counter in subscripts as the loop's variable, loop_counter_index.py), and
the array and the loop's carried values are one tuple Func
(loop_cycles.py), instead of a write at a position the loop computed that
the loop's reads of the array would have to wait for. A name bound before
the loop to an element of the array (`key = a[i]`) and read in it is
carried by the loop (`key = key`): its value is the element when the loop
started, not what the loop wrote there since.

Only where the statement after the loop assigns one element of an array
that the loop's test or body subscripts, the loop has no `else`, no
`break`, `continue`, `return` or inner loop, and its test has a counter
conjunct with a stated bound (loop_exits.counter_compare, counter_step)
that counts down (`j >= 0`, `j -= 1`) or up (`j < n`, `j += 1`), by one
or by a constant k (gap-k insertion). The rewritten loop carries
loop_exits.RELATIVE_ATTR: its RVar runs from the counter's first value
over a bound of its trip counts (emit.relative_rdom), so the iterations no
run needs are all at the end, where the loop is left (loop_cycles.py,
ir.Definition.exit_moves: at the iteration after `?done` is set). (Session 20's counting-up
kernel did not finish: the hull of its widened bound `max(n + 1, first +
1)` was not found, so its loop ran 2**31 - 1 iterations, and nothing left
it after the range's last iteration set `?done`.)"""
from __future__ import annotations

import ast
import copy

from .analyze import names_assigned, names_used
from .loop_exits import RELATIVE_ATTR, counter_compare, counter_step
from .rewrite_registry import register


@register(28)
def while_exit_write(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    count = [0]
    _block(tree.body, count, tree)
    return tree


def _block(stmts, count, tree):
    k = 0
    while k < len(stmts):
        s = stmts[k]
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                _block(inner, count, tree)
        if isinstance(s, ast.While) and k + 1 < len(stmts):
            after = _writes_after(s, stmts[k + 1:])
            new = _rewrite(s, after, stmts[:k], count, tree) if after else None
            if new is not None:
                stmts[k:k + 1 + len(after)] = new
                k += len(new)
                continue
        k += 1


def _writes_after(loop, stmts) -> list:
    """The element writes right after `loop` (`a[j + 1] = key; idx[j + 1]
    = k` of argsort by insertion), each of an array the loop subscripts."""
    out = []
    for s in stmts:
        arr = _element_write(s)
        if arr is None or not _subscripts(loop, arr):
            break
        out.append(s)
    return out


def _rewrite(loop, after, before, count, tree):
    """The statements replacing `loop` and the writes `after` it, or None."""
    arrs = [_element_write(s) for s in after]
    if loop.orelse or any(
            isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.For, ast.While,
                           ast.FunctionDef, ast.Lambda))
            for s in loop.body for n in ast.walk(s)):
        return None
    test = loop.test
    conj = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
        else [test]
    for c in conj:
        m = counter_compare(c, loop.body)
        if m is None:
            continue
        counter, op, bound = m
        step = counter_step(loop.body, counter)
        if step is None or any(counter in names_used(s.targets[0].value) for s in after) or \
                names_used(bound) & names_assigned(loop.body):
            continue
        down = isinstance(op, (ast.Gt, ast.GtE))
        if down != (step < 0):
            continue
        used = _loaded_outside(tree, [loop, *after])
        return _build(loop, after, before, arrs, counter, op, bound, step, count,
                      counter in used)
    return None


def _build(loop, after, before, arrs, counter, op, bound, step, count, undo_step):
    count[0] += 1
    first, done = f"?first{count[0]}", f"?done{count[0]}"
    # the counter's bound one step further, never past its first value
    if isinstance(op, ast.LtE):
        # `j <= b` as `j < b + 1` (a bound `max(b + 1, first) + 1` did not fit
        # the loop's 32-bit bound check)
        op, bound = ast.Lt(), ast.BinOp(copy.deepcopy(bound), ast.Add(), ast.Constant(1))
    wide = ast.BinOp(copy.deepcopy(bound), ast.Add(), ast.Constant(step))
    start = ast.Name(first, ast.Load())
    if isinstance(op, (ast.Gt, ast.Lt)):
        start = ast.BinOp(start, ast.Sub() if step < 0 else ast.Add(), ast.Constant(1))
    lim = ast.Call(ast.Name("min" if step < 0 else "max", ast.Load()), [wide, start], [])
    cond = ast.BoolOp(ast.And(), [
        ast.Compare(ast.Name(counter, ast.Load()), [type(op)()], [lim]),
        ast.UnaryOp(ast.Not(), ast.Name(done, ast.Load()))])
    *work, last = loop.body
    steps = [s for s in loop.body if counter in names_assigned([s])]
    if steps != [last]:
        return None             # (the step must end the body: the exit skips it)
    keep = [ast.Assign([ast.Name(n, ast.Store())], ast.Name(n, ast.Load()))
            for n in dict.fromkeys(v for arr in arrs for v in _element_values(before, arr))
            if n in names_used(loop).union(*map(names_used, after))]
    body = keep + [ast.If(copy.deepcopy(loop.test), work or [ast.Pass()],
                          [*after, _set(done, True)]), last]
    undo = ast.AugAssign(ast.Name(counter, ast.Store()), ast.Sub(), ast.Constant(step))
    loop = ast.While(cond, body, [])
    setattr(loop, RELATIVE_ATTR, True)
    out = [_set(first, ast.Name(counter, ast.Load())), _set(done, False),
           loop] + ([undo] if undo_step else [])
    for s in out:
        for n in ast.walk(s):
            if not hasattr(n, "lineno") or n in (cond, lim, wide, start) or \
                    isinstance(n, (ast.If, ast.Assign, ast.AugAssign, ast.While)):
                ast.copy_location(n, loop)
    for s in keep:
        for n in ast.walk(s):
            ast.copy_location(n, loop)
    return out


def _set(name, value):
    v = value if isinstance(value, ast.AST) else ast.Constant(value)
    return ast.Assign([ast.Name(name, ast.Store())], v)


def _element_write(s):
    """The array name `s` assigns one element of (`a[...] = v`), or None."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and
            isinstance(s.targets[0], ast.Subscript) and
            isinstance(s.targets[0].value, ast.Name)):
        return None
    if any(isinstance(n, ast.Slice) for n in ast.walk(s.targets[0].slice)):
        return None
    return s.targets[0].value.id


def _subscripts(loop, arr) -> bool:
    return any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and
               n.value.id == arr for n in ast.walk(loop))


def _element_values(before, arr) -> list:
    """Names the statements `before` last bind to a value that reads an
    element of `arr` (`key = a[i]`, `key = float(a[i])`, `key, j = a[i], i - 1`,
    `key += a[i]`, no slice), or such a name (`k0 = a[i]; key = k0`): the
    loop must carry them, or their value would be read from the array as
    the loop has changed it."""
    out = {}

    def bind(target, value):
        if isinstance(target, ast.Name):
            out[target.id] = value is not None and _reads_element(value, arr, out)
        elif isinstance(target, (ast.Tuple, ast.List)):
            pair = isinstance(value, (ast.Tuple, ast.List)) and \
                len(value.elts) == len(target.elts)
            for k, t in enumerate(target.elts):
                bind(t, value.elts[k] if pair else value)
        elif isinstance(target, ast.Starred):
            bind(target.value, value)

    for s in before:
        for n in ast.walk(s):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    bind(t, n.value)
            elif isinstance(n, ast.AnnAssign):
                bind(n.target, n.value)
            elif isinstance(n, ast.NamedExpr):
                bind(n.target, n.value)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                out[n.target.id] = out.get(n.target.id, False) or _reads_element(n.value, arr, out)
            elif isinstance(n, (ast.For, ast.comprehension)):
                bind(n.target, None)
    return [k for k, v in out.items() if v]


def _reads_element(e, arr, names) -> bool:
    """Whether e reads one element of `arr` (a subscript without a slice)
    or a name `names` marks as holding one."""
    return any(isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and
               v.value.id == arr and not any(isinstance(x, ast.Slice) for x in ast.walk(v.slice))
               or isinstance(v, ast.Name) and isinstance(v.ctx, ast.Load) and names.get(v.id)
               for v in ast.walk(e))


def _loaded_outside(tree, nodes) -> set:
    """Names loaded in the function outside `nodes`."""
    inside = {id(n) for t in nodes for n in ast.walk(t)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and
            isinstance(n.ctx, ast.Load) and id(n) not in inside}

