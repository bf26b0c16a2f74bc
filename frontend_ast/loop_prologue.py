"""A loop's prologue folded into the loop that follows it (a rewrite of
rewrites.py, order 25, after loop_forms.py and loop_steps.py): statements
of a loop body that write an array, followed by a loop from the outer
variable + 1 that writes the same array, become one loop from the outer
variable whose first iteration runs the statements (column-oriented
Cholesky):

    for j in range(n):                      for j in range(n):
        s = 0.0                                 for i in range(j, n):
        for k in range(j):                          s_t = 0.0
            s += L[j, k] ** 2                       for k in range(j):
        L[j, j] = sqrt(A[j, j] - s)                     s_t += (L[j, k] ** 2 if i == j
        for i in range(j + 1, n):                               else L[i, k] * L[j, k])
            t = 0.0                                 if i == j:
            for k in range(j):                          s = s_t
                t += L[i, k] * L[j, k]                  L[i, j] = sqrt(A[j, j] - s)
            L[i, j] = (A[i, j] - t) / L[j, j]       else:
                                                        t = s_t
                                                        L[i, j] = (A[i, j] - t) / L[j, j]

The array is then written at one place per iteration of one loop nest, and
read by one inner reduction, which imperative_nests.py compiles as one
serial update. Three steps, each computing what Python computes:

1. `P; for v in range(X + 1, Y): B` -> `for v in range(X, max(X + 1, Y)):
   if v == X: P else: B` (`range(X, Y)` where X is the variable of the
   enclosing `for X in range(..Y)`, so X + 1 <= Y). P runs once, first,
   as before. Taken only where: X is the enclosing loop's variable (an
   int); v appears nowhere else in the function and is not assigned in B;
   P holds no `break`, `continue`, `return` or `yield` and does not mention
   v, X's or Y's names as targets; Y is built from names no statement of
   the loop body assigns, constants, `+ - *`, `len()` and `.shape`
   (evaluating it before P changes nothing and cannot raise); B does not
   assign X.
2. When both branches then open with a reduction over the same range
   (`s = c; for k in R: s op= e1` / `t = c'; for k in R: t op= e2`; c, c',
   e1, e2 and R reading neither s, t nor k; c and c' not constants of two
   types), one reduction `u = c if v == X else c'; for k in R: u op= (e1
   if v == X else e2)` (lazy: each part is evaluated where Python evaluates
   it, in the same order), s and t assigned from u in their branches. A
   part the same in both up to names v and X is the else branch's alone.
3. In the `v == X` branch, an element write whose index, with X replaced by
   v, is the index the other branch writes, writes that index (v == X there,
   both ints: the same element).
"""
from __future__ import annotations

import ast
import copy

from .array_masks import target_of
from .rewrite_registry import register
from .written_names import written_names

_EXITS = (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)
_SAFE_OPS = (ast.Add, ast.Sub, ast.Mult)


@register(25)
def loop_prologue(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    """Fold the prologues of the loops of `tree` (see the module doc)."""
    for outer in [n for n in ast.walk(tree) if isinstance(n, ast.For)]:
        _fold(tree, outer)
    return tree


def _fold(tree, outer: ast.For):
    x = _range_var(outer)
    if x is None:
        return
    for m, inner in enumerate(outer.body):
        if m == 0 or not isinstance(inner, ast.For):
            continue
        pro = outer.body[:m]
        got = _from_next(inner, x)
        if got is None or not _foldable(tree, outer, pro, inner, x, got[1]):
            continue
        v, stop = inner.target.id, got[1]
        first = ast.Compare(ast.Name(v, ast.Load()), [ast.Eq()], [ast.Name(x, ast.Load())])
        branch = ast.If(first, copy.deepcopy(pro), copy.deepcopy(inner.body))
        body = _joined(tree, branch, v, x) or [branch]
        if not _one_position(body, written_names(pro) & written_names(inner.body)):
            continue        # two write positions per iteration: not compiled either
        if not _below(outer, stop):
            stop = ast.Call(ast.Name("max", ast.Load()),
                            [_plus_one(x), copy.deepcopy(stop)], [])
        inner.iter = ast.Call(ast.Name("range", ast.Load()), [ast.Name(x, ast.Load()), stop], [])
        inner.body = body
        for n in ast.walk(inner):
            if not hasattr(n, "lineno") and isinstance(n, (ast.expr, ast.stmt)):
                ast.copy_location(n, inner)
        outer.body[:m + 1] = [inner]
        return


def _range_var(loop: ast.For):
    """The name of loop's variable when it is `for X in range(...)` with a
    positive literal step or none; else None."""
    it = loop.iter
    if not (isinstance(loop.target, ast.Name) and isinstance(it, ast.Call) and
            isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords and
            1 <= len(it.args) <= 3):
        return None
    if len(it.args) == 3 and not (isinstance(it.args[2], ast.Constant) and
                                  type(it.args[2].value) is int and it.args[2].value > 0):
        return None
    return loop.target.id


def _from_next(inner: ast.For, x: str):
    """(start, stop) of `for v in range(x + 1, stop)`, or None."""
    it = inner.iter
    if inner.orelse or not isinstance(inner.target, ast.Name) or not (
            isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
            it.func.id == "range" and not it.keywords and len(it.args) == 2):
        return None
    start = it.args[0]
    if not (isinstance(start, ast.BinOp) and isinstance(start.op, ast.Add)):
        return None
    a, b = start.left, start.right
    if isinstance(a, ast.Constant):
        a, b = b, a
    if not (isinstance(a, ast.Name) and a.id == x and isinstance(b, ast.Constant) and
            type(b.value) is int and b.value == 1):
        return None
    return start, it.args[1]


def _foldable(tree, outer, pro, inner, x, stop) -> bool:
    v = inner.target.id
    if v == x or any(isinstance(n, _EXITS) for s in pro for n in ast.walk(s)):
        return False
    # v: nowhere outside the inner loop, not assigned in it
    inside = {id(n) for n in ast.walk(inner)}
    if any(isinstance(n, ast.Name) and n.id == v and id(n) not in inside
           for n in ast.walk(tree)):
        return False
    if v in _stored(inner.body) or x in _stored(inner.body) or x in _stored(pro):
        return False
    if not _plain(stop) or set(_names(stop)) & (_stored(outer.body) | {v}):
        return False
    # a name P assigns is not read by the loop before the loop assigns it (it
    # would be a running value of the folded loop)
    if any(not _assigned_first(inner.body, a) for a in _stored(pro)):
        return False
    # the motivating case: both write one array
    return bool(written_names(pro) & written_names(inner.body))


def _assigned_first(stmts, name: str) -> bool:
    """Whether stmts do not mention `name`, or the first statement that
    does is a plain `name = e` (e not reading it), or a `for name in e`
    loop (e not reading it) after which no statement mentions it."""
    for k, s in enumerate(stmts):
        if name not in _names(s):
            continue
        if isinstance(s, ast.For):
            return isinstance(s.target, ast.Name) and s.target.id == name and \
                name not in _names(s.iter) and not any(name in _names(t) for t in stmts[k + 1:])
        return isinstance(s, ast.Assign) and len(s.targets) == 1 and \
            isinstance(s.targets[0], ast.Name) and s.targets[0].id == name and \
            name not in _names(s.value)
    return True


def _one_position(stmts, arrays) -> bool:
    """Whether stmts write each of `arrays` at one index expression."""
    for a in arrays:
        slices = {ast.dump(n.slice) for s in stmts for n in ast.walk(s)
                  if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and
                  isinstance(n.value, ast.Name) and n.value.id == a}
        if len(slices) > 1:
            return False
    return True


def _below(outer: ast.For, stop) -> bool:
    """Whether x + 1 <= stop for the variable x of `outer` (its range ends
    at the same expression stop, which the loop body does not assign)."""
    args = outer.iter.args
    end = args[0] if len(args) == 1 else args[1]
    return ast.dump(end) == ast.dump(stop)


def _plain(e) -> bool:
    """Whether e is built from names, int constants, `+ - *`, `len()` and
    `.shape[k]`: evaluating it cannot raise (on ints and arrays) and reads
    no array element."""
    if isinstance(e, ast.Name):
        return True
    if isinstance(e, ast.Constant):
        return type(e.value) is int
    if isinstance(e, ast.BinOp):
        return isinstance(e.op, _SAFE_OPS) and _plain(e.left) and _plain(e.right)
    if isinstance(e, ast.Subscript):
        return isinstance(e.value, ast.Attribute) and e.value.attr == "shape" and \
            isinstance(e.value.value, ast.Name) and isinstance(e.slice, ast.Constant) and \
            type(e.slice.value) is int
    if isinstance(e, ast.Call):
        return isinstance(e.func, ast.Name) and e.func.id == "len" and len(e.args) == 1 and \
            not e.keywords and isinstance(e.args[0], ast.Name)
    return False


def _names(e):
    return [n.id for n in ast.walk(e) if isinstance(n, ast.Name)]


def _stored(stmts) -> set:
    """Names assigned (also as `for` targets) anywhere in stmts."""
    return {n.id for s in stmts for n in ast.walk(s)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _plus_one(x: str):
    return ast.BinOp(ast.Name(x, ast.Load()), ast.Add(), ast.Constant(1))


# step 2: one reduction for both branches ---------------------------------------------
def _reduction(stmts):
    """(name, start value, For, op, term) of stmts opening with `s = c`
    and `for k in R: s op= e`; None otherwise."""
    if len(stmts) < 2:
        return None
    a, f = stmts[0], stmts[1]
    if not (isinstance(a, ast.Assign) and len(a.targets) == 1 and
            isinstance(a.targets[0], ast.Name) and
            isinstance(f, ast.For) and not f.orelse and isinstance(f.target, ast.Name) and
            len(f.body) == 1 and isinstance(f.body[0], ast.AugAssign) and
            isinstance(f.body[0].target, ast.Name)):
        return None
    s = a.targets[0].id
    if f.body[0].target.id != s:
        return None
    return s, a.value, f, f.body[0].op, f.body[0].value


def _joined(tree, branch: ast.If, v: str, x: str):
    """Steps 2 and 3 on `if v == x: P else: B` (step 1's): the statements
    replacing it, or None where step 2 does not apply (step 3 then applies
    to `branch` as it is)."""
    a, b = _reduction(branch.body), _reduction(branch.orelse)
    if a is None or b is None:
        _align(branch, v, x)
        return None
    (s, ca, fa, opa, ea), (t, cb, fb, opb, eb) = a, b
    if type(opa) is not type(opb) or ast.dump(fa.iter) != ast.dump(fb.iter) or \
            fa.target.id != fb.target.id or (isinstance(ca, ast.Constant) and
                                             isinstance(cb, ast.Constant) and
                                             type(ca.value) is not type(cb.value)):
        _align(branch, v, x)
        return None
    k = fa.target.id
    before = set(_names(fa.iter)) | set(_names(ca)) | set(_names(cb))    # (read before k is set)
    if (before | set(_names(ea)) | set(_names(eb))) & {s, t} or k in before or \
            k in {s, t, v, x}:
        _align(branch, v, x)
        return None
    u = s if s == t else _fresh(tree, f"{s}_{t}")
    test = copy.deepcopy(branch.test)
    # a part equal in both branches up to v and x (equal there) is the else branch's
    start = cb if _same_up_to(ca, cb, {v, x}) else ast.IfExp(copy.deepcopy(test), ca, cb)
    term = eb if _same_up_to(ea, eb, {v, x}) else ast.IfExp(copy.deepcopy(test), ea, eb)
    loop = ast.For(fa.target, fa.iter, [ast.AugAssign(ast.Name(u, ast.Store()), opa, term)],
                   [], None)
    then = branch.body[2:] if u == s else \
        [ast.Assign([ast.Name(s, ast.Store())], ast.Name(u, ast.Load()))] + branch.body[2:]
    other = branch.orelse[2:] if u == t else \
        [ast.Assign([ast.Name(t, ast.Store())], ast.Name(u, ast.Load()))] + branch.orelse[2:]
    out = ast.If(test, then, other)
    _align(out, v, x)
    for n in (loop, out):
        ast.copy_location(n, fa)
    init = ast.copy_location(ast.Assign([ast.Name(u, ast.Store())], start), branch.body[0])
    return [init, loop, out]


def _fresh(tree, base: str) -> str:
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    name, k = base, 0
    while name in used:
        k += 1
        name = f"{base}{k}"
    return name


# step 3: the first iteration's writes at the other branch's index ---------------------
def _align(branch: ast.If, v: str, x: str):
    """In `if v == x:`'s body, each top-level element write whose index is
    an index the else branch writes the same array at, up to names v and x
    in places of each other: that index (v == x there, both ints, and
    neither is assigned in the branch)."""
    others = [t for t in map(_element_target, branch.orelse) if t is not None]
    for s in branch.body:
        t = _element_target(s)
        if t is None:
            continue
        for o in others:
            if o.value.id == t.value.id and _same_up_to(t.slice, o.slice, {v, x}):
                t.slice = copy.deepcopy(o.slice)
                break


def _same_up_to(a, b, names) -> bool:
    """Whether ASTs a and b are equal, a Name of `names` in a standing
    anywhere for a Name of `names` in b."""
    if isinstance(a, ast.Name) and isinstance(b, ast.Name) and a.id in names and b.id in names:
        return True
    if type(a) is not type(b):
        return False
    if not isinstance(a, ast.AST):
        if isinstance(a, list):
            return len(a) == len(b) and all(_same_up_to(p, q, names) for p, q in zip(a, b))
        return a == b
    return all(_same_up_to(x, getattr(b, f, None), names)
               for f, x in ast.iter_fields(a) if f != "ctx")


def _element_target(s):
    """The subscript target `a[...]` (a a name) of an assignment statement
    s, or None."""
    t = target_of(s)
    return t if t is not None and isinstance(t.value, ast.Name) else None
