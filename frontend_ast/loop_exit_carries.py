"""Loop exits whose variables carry over different loops (a rewrite of
rewrites.py, order 29, just before loop_exits.py): a loop that can stop
early (a `while`, a `break`, a `return` inside it) needs all the variables
it updates to start anew in the same enclosing loop. Where some start anew
and others are integer counters carried further out (a per-element `while`
counting into a total), each counter is counted from 0 in a new local and
added after the loop:

    tot = 0                             tot = 0
    for i in range(n):                  for i in range(n):
        x = a[i]                            x = a[i]
        while x > 0.1:                      ?count1 = 0
            x = x * 0.5                     while x > 0.1:
            tot += 1                            x = x * 0.5
                                                ?count1 += 1
                                            tot += ?count1

`?count1` then starts anew in the enclosing loop as `x` does. The same
rewrite applies to a `while` loop's counter that the enclosing loop also
steps (`up += 1` after the loop: a variable assigned at two loop depths,
which loops.py refuses and loop_merge.py merges for `for` loops only).
This is exact only for integers (addition of integers is associative, of
floats it is not), so a counter must be a Python int by its form: every assignment to it
in the function is `v = <int literal>` at the function's top level or
`v += <int literal>` / `v -= <int literal>`, and the loop only updates it
(never reads it otherwise). Anything else keeps loop_exits.py's located
error. (Copying the counter in and out, `?c = tot ... tot = ?c`, keeps any
type exact but makes the enclosing loop's update and the inner loop's call
each other, which the interpreter refuses as a cycle of Funcs.)"""
from __future__ import annotations

import ast

from .loop_exits import carried_spans, has_return, in_body
from .rewrite_registry import register

_MAX_ROUNDS = 32


@register(29)
def loop_exit_carries(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    counter = [0]
    for _ in range(_MAX_ROUNDS):
        if not _rewrite_one(tree, tree.body, [], None, counter):
            break
    return tree


def _rewrite_one(tree, stmts, stack, top, counter) -> bool:
    """Rewrite the first loop of `stmts` (at any depth) whose exit needs it;
    `stack` holds the enclosing loops, `top` the top-level statement index
    holding them. True if something was rewritten."""
    for k, s in enumerate(stmts):
        here = k if top is None else top
        if isinstance(s, (ast.For, ast.While)):
            if stack and _exits(s) and _split(tree, stmts, k, s, stack, here, counter):
                return True
            if _rewrite_one(tree, s.body, stack + [s], here, counter):
                return True
        for field in ("body", "orelse", "finalbody"):
            if isinstance(s, (ast.For, ast.While)) and field == "body":
                continue
            sub = getattr(s, field, None)
            if isinstance(sub, list) and sub and isinstance(sub[0], ast.stmt) and \
                    _rewrite_one(tree, sub, stack, here, counter):
                return True
    return False


def _exits(loop) -> bool:
    """Whether loop_exits.py gives the loop a stop flag."""
    return isinstance(loop, ast.While) or bool(in_body(loop.body, ast.Break)) or \
        has_return(loop.body)


def _split(tree, stmts, k, loop, stack, top, counter) -> bool:
    spans = carried_spans(loop, stack, tree)
    low = min(spans.values(), default=0)
    far = [v for v, d in spans.items() if d > low]
    if not far and isinstance(loop, ast.While):
        # counters the enclosing loop also steps (loops.py refuses a variable
        # assigned at two loop depths; loop_merge.py merges `for` loops only)
        far = [v for v in spans if _assigned_beside(stack[-1], loop, v) and
               _int_counter(tree, loop, top, v)]
    if not far:
        return False
    if not all(_int_counter(tree, loop, top, v) for v in far):
        return False        # (loop_exits.py's located error)
    # counted around the loop itself: a read of a counter elsewhere in the
    # enclosing loops (after the loop, in the same `if`) sees its total
    pre, post = [], []
    for v in far:
        counter[0] += 1
        new = f"?count{counter[0]}"
        _rename(loop, v, new)
        pre.append(_assign(new, ast.Constant(0), loop))
        post.append(_add(v, new, loop))
    stmts[k:k + 1] = pre + [loop] + post
    return True


def _assigned_beside(outer, loop, v) -> bool:
    """outer's body assigns v outside `loop`."""
    inside = {id(n) for n in ast.walk(loop)}
    return any(isinstance(n, ast.Name) and n.id == v and isinstance(n.ctx, ast.Store) and
               id(n) not in inside for st in outer.body for n in ast.walk(st))


def _int_counter(tree, loop, top, v) -> bool:
    """v is a Python int by the form of all its assignments, one of them at
    the top level before statement `top`, and `loop` only steps it (module
    doc)."""
    if not any(_int_init(s, v) for s in tree.body[:top]):
        return False
    steps = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.AugAssign) and _is_name(n.target, v):
            if not (isinstance(n.op, (ast.Add, ast.Sub)) and _int_literal(n.value)):
                return False
            steps.add(id(n.target))
            continue
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, (ast.AnnAssign, ast.For, ast.NamedExpr, ast.comprehension)):
            targets = [n.target]
        elif isinstance(n, ast.With):
            targets = [i.optional_vars for i in n.items if i.optional_vars is not None]
        else:
            continue
        if any(_is_name(x, v) for t in targets for x in ast.walk(t)) and \
                not (_int_init(n, v) and any(n is s for s in tree.body)):
            return False
    return all(id(n) in steps for n in ast.walk(loop) if _is_name(n, v))


def _int_init(s, v) -> bool:
    return isinstance(s, ast.Assign) and len(s.targets) == 1 and \
        _is_name(s.targets[0], v) and _int_literal(s.value)


def _is_name(n, v) -> bool:
    return isinstance(n, ast.Name) and n.id == v


def _int_literal(e) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) is int


def _rename(node, old, new):
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == old:
            n.id = new


def _assign(target, value, node):
    a = ast.Assign([ast.Name(target, ast.Store())], value)
    for n in ast.walk(a):
        ast.copy_location(n, node)
    return a


def _add(target, value, node):
    a = ast.AugAssign(ast.Name(target, ast.Store()), ast.Add(), ast.Name(value, ast.Load()))
    for n in ast.walk(a):
        ast.copy_location(n, node)
    return a
