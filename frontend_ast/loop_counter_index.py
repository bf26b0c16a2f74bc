"""The counter of a `while` loop as an index (used by loop_exits.py).

loop_exits.py makes `while i < n and c: ...; i += k` a loop
`for v in range(i, n, k)` whose iterations stop doing anything once the
stop flag is set. Its trip_range accepts a counter only when the body
assigns it once, by `i += k` at the top level, with no `continue` of the
loop before that statement; every iteration that runs (the flag not set)
therefore starts with `i == v` and has `i == v + k` after the step. In
the subscripts of the test and of the body the counter is read as that
expression of v, so that `out[i - 1]` and `out[i]` are positions the loop
code can relate (a recurrence through an array, loop_cycles.py) instead
of reads at a carried scalar. So is an operand of a comparison with
integer constants (`i >= 0`, or the bound while_exit_write.py gives
`min(0 - 1, ?first1)`: the same truth value for the same integer, whatever
its type; also the function's arguments that the build knows are Python
ints, `INT_ARGS_ATTR` on the tree: `while j >= lo`), so that the compiled loop tests the position it reads
at (`v >= 0` where it reads `out[v]`: lowering and LLVM then know the read
is inside the array) rather than a carried counter. Values elsewhere keep
reading `i` (its type is the counter's; the loop variable's may be another
integer type), and `i += k` stays: after the loop `i` is what Python
leaves there."""
from __future__ import annotations

import ast
import copy

# on a function's tree before the rewrites: the names of its arguments that
# are Python ints in the build the tree is for (integer_names includes them)
INT_ARGS_ATTR = "pyhalide_int_args"


def index_by_trip(test, body, counter: str, var: str, step: int, step_stmt,
                  int_names=frozenset()):
    """(test, body) with the counter's loads inside subscripts replaced by
    `var` before step_stmt (a top-level statement of body) and in the test,
    and by `var + step` after it; before it and in the test also where the
    counter is compared with integers (_Subscripts: constants, the names
    of `int_names`)."""
    here = ast.Name(var, ast.Load())
    after = ast.BinOp(ast.Name(var, ast.Load()), ast.Add() if step > 0 else ast.Sub(),
                      ast.Constant(abs(step)))
    test = _Subscripts(counter, here, int_names).visit(test)
    out, seen = [], False
    for s in body:
        if s is step_stmt:
            seen = True
            out.append(s)
            continue
        out.append(_Subscripts(counter, after if seen else here, int_names).visit(s))
    return test, out


def integer_names(tree) -> frozenset:
    """The names function `tree` binds only to integers: only by plain
    assignments (`n = v`, `n += v`, `n -= v`, `n *= v`) of integer values
    (_is_integer), not its arguments (the greatest such set: `n = n - 1`
    keeps n an integer), and the arguments named by the tree's INT_ARGS_ATTR
    that it never assigns."""
    values, other = {}, {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    plain = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    values.setdefault(t.id, []).append(node.value)
                    plain.add(id(t))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            plain.add(id(node.target))
            if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
                values.setdefault(node.target.id, []).append(node.value)
            else:
                other.add(node.target.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) \
                and id(node) not in plain:
            other.add(node.id)
    args = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    given = set(getattr(tree, INT_ARGS_ATTR, ())) & args
    given -= set(values) | {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
                            and not isinstance(n.ctx, ast.Load)}
    names = set(values) - other
    changed = True
    while changed:
        changed = False
        for n in sorted(names):
            if not all(_is_integer(v, names | given) for v in values[n]):
                names.discard(n)
                changed = True
    return frozenset(names | given)


def _is_integer(e, names) -> bool:
    """Whether e is an integer when the names of `names` are: an int literal,
    one of the names, an array's `len`, `.size`, `.ndim` or `.shape[k]`,
    sums, differences and products of those."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return _is_integer(e.operand, names)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult)):
        return _is_integer(e.left, names) and _is_integer(e.right, names)
    if isinstance(e, ast.Name):
        return e.id in names
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "len" \
            and len(e.args) == 1 and not e.keywords:
        return True
    if isinstance(e, ast.Attribute):
        return e.attr in ("size", "ndim")
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) \
            and e.value.attr == "shape":
        return isinstance(e.slice, ast.Constant) and type(e.slice.value) is int
    return isinstance(e, ast.Constant) and type(e.value) is int


def _int_constant(e, int_names) -> bool:
    """Whether e is an integer whatever the types: an int literal, a name of
    int_names, the counter's first value (`?firstN`, while_exit_write.py),
    or min/max, sums and differences of those."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return _int_constant(e.operand, int_names)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)):
        return _int_constant(e.left, int_names) and _int_constant(e.right, int_names)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in ("min", "max") \
            and e.args and not e.keywords:
        return all(_int_constant(a, int_names) for a in e.args)
    if isinstance(e, ast.Name):
        return e.id.startswith("?first") or e.id in int_names
    return isinstance(e, ast.Constant) and type(e.value) is int


class _Subscripts(ast.NodeTransformer):
    """Replaces loads of one name inside the index part of subscripts, and
    where it is an operand of a comparison whose other operands are integer
    constants."""

    def __init__(self, name, value, int_names=frozenset()):
        self.name, self.value, self.depth = name, value, 0
        self.int_names = int_names

    def visit_Compare(self, node):
        operands = [node.left, *node.comparators]
        # (only where the counter is the loop variable itself: `v + k` may
        # not be computed in the counter's type)
        mine = [isinstance(o, ast.Name) and o.id == self.name for o in operands]
        if isinstance(self.value, ast.Name) and any(mine) and all(
                m or _int_constant(o, self.int_names) for m, o in zip(mine, operands)):
            self.depth += 1
            try:
                return self.generic_visit(node)
            finally:
                self.depth -= 1
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        node.value = self.visit(node.value)
        self.depth += 1
        try:
            node.slice = self.visit(node.slice)
        finally:
            self.depth -= 1
        return node

    def visit_Name(self, node):
        if self.depth and node.id == self.name and isinstance(node.ctx, ast.Load):
            new = copy.deepcopy(self.value)
            for n in ast.walk(new):
                ast.copy_location(n, node)
            return new
        return node
