"""Syntactic analysis of the decorated function: the supported subset (with
located errors for everything else), liveness (which scalars a loop
carries from one iteration to the next or out of the loop), and where a
carried scalar is updated (its "home" loop)."""
from __future__ import annotations

import ast

from .errors import SourceMap

_REJECT = {
    ast.While: ("`while` loops are not supported",
                "use `for i in range(...)` with bounds computed from array sizes and scalar "
                "arguments"),
    ast.Break: ("`break` is not supported",
                "compute every iteration and guard the work with `if` (or `continue`); "
                "e.g. track a `found` flag"),
    ast.With: ("`with` is not supported", "remove it"),
    ast.Try: ("`try` is not supported", "remove it; errors raise as in plain Python"),
    ast.FunctionDef: ("nested functions are not supported",
                      "define the helper at module level: calls of it are compiled "
                      "(inlined where it is called)"),
    ast.ClassDef: ("classes are not supported", "remove it"),
    ast.Lambda: ("lambdas are not supported", "inline the expression"),
    ast.Global: ("`global` is not supported", "pass the value as an argument"),
    ast.Nonlocal: ("`nonlocal` is not supported", "pass the value as an argument"),
    ast.Delete: ("`del` is not supported", "remove it"),
    ast.Import: ("an import inside a loop or an `if` is not supported",
                 "import at the start of the function or at module level"),
    ast.ImportFrom: ("an import inside a loop or an `if` is not supported",
                     "import at the start of the function or at module level"),
    ast.List: ("lists are not supported", "use a NumPy array created with np.zeros/np.empty "
                                          "before the loop"),
    ast.ListComp: ("list comprehensions are not supported", "write a `for` loop into an array"),
    ast.SetComp: ("set comprehensions are not supported", "write a `for` loop"),
    ast.DictComp: ("dict comprehensions are not supported", "write a `for` loop"),
    ast.GeneratorExp: ("generator expressions are not supported", "write a `for` loop"),
    ast.Dict: ("dicts are not supported", "use arrays and scalars"),
    ast.Set: ("sets are not supported", "use arrays and scalars"),
    ast.Starred: ("`*` unpacking is not supported", "name the values"),
    ast.Yield: ("generators are not supported", "return arrays or scalars"),
    ast.YieldFrom: ("generators are not supported", "return arrays or scalars"),
    ast.Await: ("`await` is not supported", "remove it"),
    ast.NamedExpr: ("`:=` is not supported", "assign in a separate statement"),
    ast.JoinedStr: ("f-strings are not supported", "remove it"),
    ast.AsyncFor: ("`async for` is not supported", "use `for i in range(...)`"),
}
if hasattr(ast, "Match"):
    _REJECT[ast.Match] = ("`match` is not supported", "use if/elif/else")


def check_supported(tree: ast.FunctionDef, smap: SourceMap):
    """Raise a located CompileError for the first unsupported construct."""
    body = tree.body
    for node in ast.walk(tree):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            raise smap.error(node, "generators (functions with `yield`) are not supported",
                             "return an array (fill it in the loop) or a tuple of values")
    for i, stmt in enumerate(body):
        _check_stmt(stmt, smap, loop_depth=0, last=(i == len(body) - 1))


def _check_stmt(stmt, smap, loop_depth, last):
    for cls, (msg, hint) in _REJECT.items():
        if isinstance(stmt, cls):
            raise smap.error(stmt, msg, hint)
    if isinstance(stmt, ast.Return):
        if loop_depth > 0 or not last:
            raise smap.error(stmt, "early `return` is not supported",
                             "return once, as the last statement of the function; keep results "
                             "in variables until then")
    if isinstance(stmt, ast.Continue) and loop_depth == 0:
        raise smap.error(stmt, "`continue` outside a loop")
    if isinstance(stmt, ast.For):
        if stmt.orelse:
            raise smap.error(stmt.orelse[0], "`for ... else` is not supported", "remove the else")
        if not isinstance(stmt.target, ast.Name):
            raise smap.error(stmt.target, "the loop variable must be a single name",
                             "write `for i in range(n):`")
        it = stmt.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                it.func.id == "range"):
            raise smap.error(it, "only `for v in range(...)` loops are supported",
                             "iterate over indices: `for i in range(len(a)):` and read a[i]")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise smap.error(it, "range() takes 1 to 3 positional arguments")
        for e in it.args:
            _check_expr(e, smap)
        for s in stmt.body:
            _check_stmt(s, smap, loop_depth + 1, False)
        return
    if isinstance(stmt, ast.Assert):
        _check_expr(stmt.test, smap)
        return
    if isinstance(stmt, ast.Raise):
        _check_raise(stmt, smap)
        return
    if isinstance(stmt, ast.If):
        _check_expr(stmt.test, smap)
        for s in stmt.body + stmt.orelse:
            _check_stmt(s, smap, loop_depth, last and False)
        # an if whose both branches end the function is an early return
        return
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            _check_target(t, smap)
        if stmt.value is not None:
            _check_expr(stmt.value, smap)
        return
    if isinstance(stmt, ast.Expr):
        if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            return      # docstring
        _check_expr(stmt.value, smap)
        if isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) and \
                stmt.value.func.attr in ("at", "sort"):
            return      # ufunc.at(a, indices, values) and a.sort() update a
        if isinstance(stmt.value, ast.Call):
            fn = stmt.value.func
            name = fn.id if isinstance(fn, ast.Name) else (
                fn.attr if isinstance(fn, ast.Attribute) else None)
            what = f"calling {name}()" if name else "this call"
            raise smap.error(stmt.value, f"{what} is not supported: compiled code has no side "
                                         f"effects (no print, I/O or calls of other functions), "
                                         f"and a call whose result is unused does nothing",
                             "return the value instead (return s, or a tuple of values) and "
                             "print it after the call")
        raise smap.error(stmt, "an expression statement has no effect", "remove it")
    if isinstance(stmt, (ast.Pass, ast.Continue, ast.Return)):
        if isinstance(stmt, ast.Return) and stmt.value is not None:
            _check_expr(stmt.value, smap)
        return
    raise smap.error(stmt, f"`{type(stmt).__name__}` statements are not supported")


def _check_raise(stmt, smap):
    """`raise E` or `raise E(message)` (E a builtin exception class and the
    message a constant, both checked when the function is compiled:
    asserts.exec_raise)."""
    exc = stmt.exc
    call = exc if isinstance(exc, ast.Call) else None
    name = call.func if call is not None else exc
    if exc is None or stmt.cause is not None or not isinstance(name, ast.Name) or (
            call is not None and (call.keywords or len(call.args) > 1)):
        raise smap.error(stmt, "only `raise E` and `raise E(message)` with a builtin exception "
                               "class E and a constant message are supported",
                         "raise ValueError('what went wrong'); no re-raise, no `from`")


def _check_target(t, smap):
    if isinstance(t, ast.Name):
        return
    if isinstance(t, ast.Tuple):
        for e in t.elts:
            if not isinstance(e, ast.Name):
                raise smap.error(e, "tuple assignment targets must be names",
                                 "assign array elements in separate statements")
        return
    if isinstance(t, ast.Subscript):
        base = t.value
        while isinstance(base, ast.Subscript):      # a[i][j] = v: into the view a[i]
            _check_expr(base.slice, smap)
            base = base.value
        if not isinstance(base, ast.Name):
            raise smap.error(t.value, "only `array[i, j] = ...` with a named array is supported")
        _check_expr(t.slice, smap)
        return
    if isinstance(t, ast.Attribute):
        raise smap.error(t, "assigning to attributes is not supported")
    raise smap.error(t, "unsupported assignment target")


def _check_expr(e, smap):
    arg_lists = _call_argument_lists(e)
    for node in ast.walk(e):
        if id(node) in arg_lists:
            continue
        for cls, (msg, hint) in _REJECT.items():
            if isinstance(node, cls):
                raise smap.error(node, msg, hint)


def _call_argument_lists(e) -> set:
    """ids of the list literals that are (nested in) call arguments:
    np.array([[1, 2], [3, 4]]), np.concatenate([a, b])."""
    out = set()

    def mark(n):
        if isinstance(n, (ast.List, ast.Tuple)):
            out.add(id(n))
            for x in n.elts:
                mark(x)
    for node in ast.walk(e):
        if isinstance(node, ast.Call):
            for a in list(node.args) + [k.value for k in node.keywords]:
                mark(a)
    return out


# ---------------------------------------------------------------------------
# names
# ---------------------------------------------------------------------------
def names_used(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def names_assigned(stmts) -> set:
    out = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


def mentions(stmt, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt))


# ---------------------------------------------------------------------------
# liveness
# ---------------------------------------------------------------------------
class Liveness:
    """Backward liveness over the structured AST; `head[id(for)]` is the set
    of names live at each loop's head (used by the next iteration's body
    before being assigned, or after the loop)."""

    def __init__(self, tree: ast.FunctionDef):
        self.head = {}
        self.after = {}
        self._loops = []
        self.block(tree.body, set())

    def block(self, stmts, live: set) -> set:
        for s in reversed(stmts):
            live = self.stmt(s, live)
        return live

    def stmt(self, s, live: set) -> set:
        if isinstance(s, ast.Assign):
            for t in s.targets:
                live = self._assign(t, live)
            return live | names_used(s.value)
        if isinstance(s, ast.AnnAssign):
            return self._assign(s.target, live) | (names_used(s.value) if s.value else set())
        if isinstance(s, ast.AugAssign):
            extra = {s.target.id} if isinstance(s.target, ast.Name) else set()
            return self._assign(s.target, live) | names_used(s.value) | extra | \
                (names_used(s.target) if not isinstance(s.target, ast.Name) else set())
        if isinstance(s, ast.If):
            return names_used(s.test) | self.block(s.body, set(live)) | \
                self.block(s.orelse, set(live))
        if isinstance(s, ast.For):
            return self._for(s, live)
        if isinstance(s, ast.Return):
            return names_used(s.value) if s.value is not None else set()
        if isinstance(s, ast.Continue):
            return set(self.head.get(id(self._loops[-1]), set())) if self._loops else set(live)
        if isinstance(s, (ast.Expr, ast.Assert)):
            return live | names_used(s.value if isinstance(s, ast.Expr) else s.test)
        return live

    def _assign(self, t, live):
        if isinstance(t, ast.Name):
            return live - {t.id}
        if isinstance(t, ast.Tuple):
            return live - {e.id for e in t.elts if isinstance(e, ast.Name)}
        return live | names_used(t)      # a[i] = ... uses a and i

    def _for(self, s, live_after):
        var = s.target.id
        head = set(live_after)
        self.after[id(s)] = set(live_after)
        self._loops.append(s)
        for _ in range(50):
            self.head[id(s)] = head
            body_in = self.block(s.body, set(head))
            new = set(live_after) | (body_in - {var})
            if new == head:
                break
            head = new
        self.head[id(s)] = head
        self._loops.pop()
        return head | names_used(s.iter)


def carried(loop: ast.For, live: Liveness) -> list:
    """Scalars a loop carries: assigned in it and live at its head, in the
    order of their first assignment in the loop. The flags loop_exits.py
    adds share their statement's location: among equal locations the
    order is that of the walk, then the name (never the set's order,
    which depends on the hash seed and would change the IR per process)."""
    assigned = names_assigned(loop.body)
    names = (assigned & live.head[id(loop)]) - {loop.target.id}
    first = {}
    k = 0
    for s in loop.body:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names:
                pos = (n.lineno, n.col_offset, k)
                k += 1
                if n.id not in first or pos < first[n.id]:
                    first[n.id] = pos
    return sorted(names, key=lambda v: (first.get(v, (0, 0, 0)), v))


def home(loop: ast.For, name: str):
    """The chain of loops, from `loop` down, whose bodies reference `name`
    only inside the next loop; the last one is where `name` is updated."""
    chain = [loop]
    cur = loop
    while True:
        refs = [s for s in cur.body if mentions(s, name)]
        if len(refs) == 1 and isinstance(refs[0], ast.For) and \
                name in names_assigned(refs[0].body):
            cur = refs[0]
            chain.append(cur)
            continue
        return chain


def assigned_in_nested_loop(loop: ast.For, name: str):
    """A statement inside a loop nested in `loop` that assigns `name`, if any."""
    for s in loop.body:
        for n in ast.walk(s):
            if isinstance(n, ast.For) and n is not s or (isinstance(s, ast.For) and n is s):
                for m in ast.walk(n):
                    if isinstance(m, ast.Name) and isinstance(m.ctx, ast.Store) and m.id == name:
                        return m
    return None
