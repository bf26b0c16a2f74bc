"""Loop forms (a rewrite of rewrites.py, order 20): `for` loops over arrays, tuples and the
builtins enumerate/zip/reversed (and np.ndindex) become `for v in range(...)` loops that
read the element at the index, with Python's meaning kept:

    for x in a:                      for k in range(len(a)):
        ...                              x = a[k]; ...
    for i, x in enumerate(a, 1):     for i in range(1, len(a) + 1):
                                         x = a[i - 1]; ...
    for p, q in zip(a, b):           for k in range(min(len(a), len(b))):
                                         p = a[k]; q = b[k]; ...
    for i in reversed(range(n)):     for i in range(n - 1, 0 - 1, -1): ...
    for d in (1, 2, 3):              for k in range(3):
                                         d = 1 if k == 0 else 2 if k == 1 else 3
    for p in np.ndindex(a.shape):    for k in range(<product of a.shape>):
                                         p = <np.unravel_index(k, a.shape), Python ints>

The iterable is evaluated once, before the loop, as in Python: an
expression whose names the loop rebinds (or a computed array the loop
writes into) is bound to a temporary before the loop; anything else is
read in place (an array's element at each iteration, which is what
Python's iterator reads too). Reading element k of an array, like NumPy's
iterator, gives a row of a 2-D array (array code in loops).
"""
from __future__ import annotations

import ast

from .analyze import Liveness
from .loop_exits import EXIT_ATTR
from .loop_seqs import (
    Enumerate,
    Indexed,
    Literal,
    NdIndex,
    NodeBuilder,
    RangeSeq,
    Reversed,
    Seq,
    Zip,
    const_int,
    local_names,
)
from .rewrite_registry import register

_REFUSED_ITERABLES = {
    "ndenumerate": "nested `for` loops over range(a.shape[k]) reading a[i, j]",
    "nditer": "`for x in a` or loops over range(len(a))",
    "iter": "iterate over the array or tuple itself",
    "map": "a `for` loop that computes each value",
    "filter": "a `for` loop with an `if`",
    "sorted": "np.sort(a), then a loop over it",
    "items": "a loop over indices",
    "keys": "a loop over indices",
    "values": "a loop over indices",
}


@register(20)
def loop_forms(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    LoopFormRewriter(tree, smap).run(tree)
    return tree


def _names_in(tree) -> set:
    out = {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    out |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return out


def _stored(stmts, target=None) -> tuple:
    """(names the statements or the loop target rebind, names of the
    arrays they write elements of)."""
    names, written = set(), set()
    nodes = [n for s in stmts for n in ast.walk(s)]
    if target is not None:
        nodes += list(ast.walk(target))
    for n in nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
            base = n.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                written.add(base.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            names.add(n.target.id)
    return names, written


class LoopFormRewriter(NodeBuilder, ast.NodeTransformer):
    def __init__(self, tree, smap):
        self.smap = smap
        names = _names_in(tree)
        self.prefix = "_ph_"
        while any(n.startswith(self.prefix) for n in names):
            self.prefix = "_" + self.prefix
        self.count = 0
        self.tree = tree
        self.local = local_names(tree)
        self.int_names = set()  # integer loop variables of the enclosing loops
        self.rows = {}          # target name -> (Indexed, position) it stands for
        self.loop = None        # the loop being rewritten
        self.ref = None         # the location of new nodes (the loop's iterable)
        self.before = None      # statements that go before it
        self.unsafe = set()     # names the loop rebinds
        self.written = set()    # arrays the loop writes elements of

    # node helpers (and NodeBuilder's) -------------------------------------------------------
    def fresh(self, what):
        self.count += 1
        return f"{self.prefix}{self.count}_{what}"

    # loops ----------------------------------------------------------------------------
    def visit_For(self, node: ast.For):
        count = self._int_name(node)
        if count is not None:
            self.int_names.add(count)
        node.body = self._block(node.body)
        node.orelse = self._block(node.orelse)
        self.int_names.discard(count)
        it = node.iter
        unsafe, written = _stored(node.body, node.target)
        if self._is_call(it, "range") and isinstance(node.target, ast.Name) and \
                node.target.id not in _stored(node.body)[0]:
            return node         # the loop the interpreter runs
        shadowed = sorted(self.local & {"len", "min", "max", "range"})
        if shadowed:
            raise self.smap.error(node, f"this loop is compiled as a range() loop, and the "
                                        f"function names a variable {shadowed[0]!r} (which "
                                        f"hides the builtin)", hint="rename that variable")
        saved = (self.ref, self.before, self.unsafe, self.written, self.rows, self.loop)
        # new nodes are located at the iterable (errors about the element
        # read point there); the loop itself stays at the `for`
        self.ref, self.before, self.unsafe, self.written = node.iter, [], unsafe, written
        self.rows = {}
        self.loop = node
        try:
            self._check_target(node.target)
            loop = self._rewrite(node)
            out = self.before + [loop]
        finally:
            self.ref, self.before, self.unsafe, self.written, self.rows, self.loop = saved
        return out

    def _int_name(self, node):
        """The name of this loop that holds an integer in its whole body (a
        range loop's variable, an enumerate count), or None."""
        t, it = node.target, node.iter
        if self._is_call(it, "enumerate") and isinstance(t, ast.Tuple) and t.elts:
            t = t.elts[0]
        elif not self._is_call(it, "range"):
            return None
        if isinstance(t, ast.Name) and t.id not in _stored(node.body)[0]:
            return t.id
        return None

    def _rewrite(self, node):
        target = node.target
        free = isinstance(target, ast.Name) and target.id not in _stored(node.body)[0]
        if self._is_call(node.iter, "range"):
            # the target is rebound in the body or a tuple: a new loop variable
            self._args(node.iter, 1, 3)
            var = self.fresh("k")
            return self._loop(node, var, [self.copy(a) for a in node.iter.args],
                              self._unpack(target, self.name(var)))
        seq = self._seq(node.iter)
        if isinstance(seq, Reversed) and isinstance(seq.seq, RangeSeq) and abs(seq.seq.step) == 1:
            r = seq.seq          # reversed(range(a, b, ±1)) = range(b ∓ 1, a ∓ 1, ∓1)
            s = r.step
            header = [self.binop(self.copy(r.stop), ast.Sub(), self.const(s)),
                      self.binop(self.copy(r.start), ast.Sub(), self.const(s)),
                      self.const(-s)]
            var = target.id if free else self.fresh("k")
            return self._loop(node, var, header,
                              [] if free else self._unpack(target, self.name(var)))
        if isinstance(seq, Enumerate) and isinstance(target, ast.Tuple) and \
                len(target.elts) == 2 and isinstance(target.elts[0], ast.Name):
            count = target.elts[0].id
            rest = target.elts[1]
            if count not in _stored(node.body, rest)[0]:
                # the count itself is the loop variable: range(start, len + start)
                start = seq.start
                stop = seq.length() if const_int(start) == 0 else \
                    self.binop(seq.length(), ast.Add(), self.copy(start))
                pos = self.name(count) if const_int(start) == 0 else \
                    self.binop(self.name(count), ast.Sub(), self.copy(start))
                body = self._unpack(rest, seq.seq.elem(pos))
                return self._loop(node, count, [self.copy(start), stop], body)
        var = self.fresh("k")
        body = self._unpack(target, seq.elem(self.name(var)))
        return self._loop(node, var, [seq.length()], body)

    def _loop(self, node, var, header, body):
        stmts = body + node.body
        if self.rows:
            sub = _RowReads(self)
            stmts = [sub.visit(st) for st in stmts]
        loop = ast.For(target=self.name(var, store=True),
                       iter=self.call("range", header), body=stmts,
                       orelse=node.orelse, type_comment=None)
        self.node(loop)
        ast.copy_location(loop, node)
        ast.copy_location(loop.target, node.target)
        return loop

    def _row_ok(self, name, node) -> bool:
        """Whether the target `name` is used in loop `node` only as
        `name[...]` and len(name), is not rebound, and names nothing outside
        the loop: it then stands for the row it is bound to (read in place)."""
        if name in _stored(node.body)[0]:
            return False
        inside = 0
        for st in node.body:
            for n in ast.walk(st):
                for child in ast.iter_child_nodes(n):
                    if not (isinstance(child, ast.Name) and child.id == name):
                        continue
                    inside += 1
                    if not ((isinstance(n, ast.Subscript) and n.value is child) or
                            (self._is_call(n, "len") and len(n.args) == 1 and not n.keywords)):
                        return False
        if any(isinstance(st, ast.Name) and st.id == name for st in node.body):
            return False
        total = sum(1 for n in ast.walk(self.tree) if isinstance(n, ast.Name) and n.id == name)
        own = sum(1 for n in ast.walk(node.target) if isinstance(n, ast.Name) and n.id == name)
        return inside > 0 and total == inside + own

    def _unpack(self, target, value) -> list:
        """Statements assigning `value` (the element AST) to the loop target."""
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Tuple):
            if len(target.elts) != len(value.elts):
                raise self.smap.error(target, f"cannot unpack {len(value.elts)} values into "
                                              f"{len(target.elts)} names",
                                      hint="give one name per value")
            out = []
            for t, v in zip(target.elts, value.elts):
                out += self._unpack(t, v)
            return out
        row = getattr(value, "ph_row", None)
        if row is not None and isinstance(target, ast.Name) and self._row_ok(target.id, self.loop):
            self.rows[target.id] = row
            return []
        return [self.assign(self.copy(target), value)]

    def _check_target(self, t):
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                self._check_target(e)
            return
        if not isinstance(t, ast.Name):
            raise self.smap.error(t, "the loop variable must be a name or a tuple of names",
                                  hint="assign the element inside the loop")

    # sequences ------------------------------------------------------------------------
    @staticmethod
    def _is_call(e, name):
        return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == name

    def _seq(self, e) -> Seq:
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
                e.func.id in ("range", "enumerate", "zip", "reversed"):
            return getattr(self, "_" + e.func.id)(e)
        if isinstance(e, (ast.Tuple, ast.List)):
            if not e.elts:
                raise self.smap.error(e, "a loop over an empty literal never runs",
                                      hint="remove the loop")
            return Literal(self, [self._once(x, scalar=True) for x in e.elts])
        if isinstance(e, ast.Call):
            fn = e.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            if name == "ndindex":
                return self._ndindex(e)
            if name in _REFUSED_ITERABLES:
                raise self.smap.error(e, f"iterating over {name}() is not supported",
                                      hint=f"write {_REFUSED_ITERABLES[name]}")
        if isinstance(e, ast.Attribute) and e.attr == "flat":
            raise self.smap.error(e, "iterating over .flat is not supported",
                                  hint="write nested loops over range(a.shape[k])")
        if isinstance(e, (ast.Constant, ast.JoinedStr)):
            raise self.smap.error(e, "only arrays, tuples, range, enumerate, zip and reversed "
                                     "can be iterated over", hint="loop over an array or range")
        seq = Indexed(self, e)
        if seq.prefix and not {n.id for n in ast.walk(e) if isinstance(n, ast.Name)} & self.unsafe:
            return seq          # a[i][k] read in place as a[i, k]
        return Indexed(self, self._once(e))

    def _args(self, e, lo, hi, keywords=()):
        if not lo <= len(e.args) <= hi or any(k.arg not in keywords for k in e.keywords):
            raise self.smap.error(e, f"{e.func.id}() takes {lo}" +
                                  (f" to {hi}" if hi != lo else "") + " positional arguments" +
                                  (f" (and {', '.join(keywords)}=)" if keywords else ""))
        if any(isinstance(a, ast.Starred) for a in e.args):
            raise self.smap.error(e, "`*` unpacking is not supported", hint="name the values")
        return e.args

    def _range(self, e):
        args = self._args(e, 1, 3)
        step = 1
        if len(args) == 3:
            step = const_int(args[2])
            if step is None:
                raise self.smap.error(args[2], "the step of range() must be a constant",
                                      hint="write the step as a literal (range(0, n, 2))")
            if step == 0:
                raise self.smap.error(args[2], "range() arg 3 must not be zero")
        start = self._once(args[0], scalar=True) if len(args) > 1 else self.const(0)
        stop = self._once(args[-1] if len(args) == 1 else args[1], scalar=True)
        return RangeSeq(self, start, stop, step)

    def _enumerate(self, e):
        args = self._args(e, 1, 2, ("start",))
        start = args[1] if len(args) == 2 else next(
            (k.value for k in e.keywords if k.arg == "start"), None)
        start = self.const(0) if start is None else self._once(start, scalar=True)
        return Enumerate(self, self._seq(args[0]), start)

    def _zip(self, e):
        for k in e.keywords:
            if k.arg == "strict":
                raise self.smap.error(k, "zip(strict=...) is not supported",
                                      hint="check the lengths with an assert before the loop")
        args = self._args(e, 1, 64)
        return Zip(self, [self._seq(a) for a in args])

    def _ndindex(self, e):
        if e.keywords or any(isinstance(a, ast.Starred) for a in e.args):
            raise self.smap.error(e, "ndindex() takes the sizes as positional arguments",
                                  hint="write np.ndindex(a.shape) or np.ndindex(n, m)")
        shape = e.args[0] if len(e.args) == 1 else \
            self.node(ast.Tuple(elts=list(e.args), ctx=ast.Load()))
        return NdIndex(self, self._once(shape, scalar=True))

    def _reversed(self, e):
        (arg,) = self._args(e, 1, 1)
        if self._is_call(arg, "enumerate") or self._is_call(arg, "zip"):
            raise self.smap.error(arg, f"{arg.func.id}() cannot be reversed (as in Python)",
                                  hint="reverse the sequences inside it instead")
        return Reversed(self, self._seq(arg))

    def _once(self, e, scalar=False):
        """e, read in place when every read gives what evaluating it once
        before the loop gives (a name the loop does not rebind, a scalar
        expression of such names); else a temporary bound before the loop
        (an array expression: a view keeps reading its array, as Python's
        iterator does)."""
        if isinstance(e, ast.Constant):
            return e
        used = {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}
        reads = not any(isinstance(n, ast.Subscript) for n in ast.walk(e)) or not used & self.written
        if not used & self.unsafe and (isinstance(e, ast.Name) or (scalar and reads)):
            return e
        tmp = self.fresh("it")
        self.before.append(self.assign(self.name(tmp, store=True), e))
        return self.name(tmp)


class _RowReads(ast.NodeTransformer):
    """`row[j]` -> `a[..., k, j]` and len(row) -> a.shape[axis] for the
    targets that stand for a row of a (LoopFormRewriter.rows)."""

    def __init__(self, rw):
        self.rw = rw

    def visit_Subscript(self, n):
        self.generic_visit(n)
        if isinstance(n.value, ast.Name) and n.value.id in self.rw.rows:
            seq, k = self.rw.rows[n.value.id]
            idx = list(n.slice.elts) if isinstance(n.slice, ast.Tuple) else [n.slice]
            out = seq.at([self.rw.copy(k)] + idx)
            out.ctx = n.ctx
            return ast.copy_location(out, n)
        return n

    def visit_Call(self, n):
        self.generic_visit(n)
        if LoopFormRewriter._is_call(n, "len") and len(n.args) == 1 and \
                isinstance(n.args[0], ast.Name) and n.args[0].id in self.rw.rows:
            seq, _ = self.rw.rows[n.args[0].id]
            return ast.copy_location(seq.axis_len(len(seq.prefix) + 1), n)
        return n


@register(35)
def loop_vars_after(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    """A range loop whose variable is read after the loop (Python leaves its
    last value there, the value at a `break`, or its binding before the loop
    if the loop never ran: UnboundLocalError if it had none) gets a new loop
    variable, assigned to the user's name at the top of each iteration
    (after the stop test loop_exits.py puts first): the name is then a
    scalar the loop carries, which loops.py keeps past the loop. Runs after
    loop_exits.py (order 35), whose loops and flags it sees; a loop whose
    variable is also an enclosing loop's is left as it is (loops.py's
    located error)."""
    live = Liveness(tree)
    names = _names_in(tree)

    def fresh(name):
        k = 1
        while f"_ph_{k}_{name}" in names:
            k += 1
        names.add(f"_ph_{k}_{name}")
        return f"_ph_{k}_{name}"

    def visit(stmts, outer):
        for s in stmts:
            if isinstance(s, ast.For):
                t = s.target
                if isinstance(t, ast.Name) and t.id not in outer and \
                        t.id in live.after.get(id(s), ()):
                    var = fresh(t.id)
                    copy = ast.copy_location(ast.Assign(
                        targets=[ast.copy_location(ast.Name(id=t.id, ctx=ast.Store()), t)],
                        value=ast.copy_location(ast.Name(id=var, ctx=ast.Load()), t)), t)
                    s.body.insert(1 if getattr(s, EXIT_ATTR, False) else 0, copy)
                    s.target = ast.copy_location(ast.Name(id=var, ctx=ast.Store()), t)
                visit(s.body, outer | {t.id} if isinstance(t, ast.Name) else outer)
                visit(s.orelse, outer)
            elif isinstance(s, (ast.If, ast.While)):
                visit(s.body, outer)
                visit(s.orelse, outer)

    visit(tree.body, frozenset())
    return tree
