"""Which names the moving-slice rewrite (moving_slices.py) may rely on:
names whose value changes from one loop iteration to the next (stored),
loop counters that are never negative (counters), names a loop's range
makes positive inside its body (positive_stops), arrays that share memory
with no other name (stable_arrays), and locals bound only to fresh arrays
(array_locals)."""
from __future__ import annotations

import ast

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
               ast.MatMult)
_FRESH = frozenset("zeros ones empty full zeros_like ones_like empty_like full_like eye "
                   "identity arange linspace array".split())


def stored(node) -> set:
    """Names whose value can change from one iteration of the loops in node
    to the next: their loop variables, names augmented in them, and names
    assigned a value that reads such a name (a name assigned only values
    known before the loops, `n = len(x)`, keeps its array code)."""
    out = {n.id for f in ast.walk(node) if isinstance(f, ast.For)
           for n in ast.walk(f.target) if isinstance(n, ast.Name)}
    assigns = [n for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AugAssign,
                                                           ast.AnnAssign))]
    while True:
        before = len(out)
        for a in assigns:
            targets = a.targets if isinstance(a, ast.Assign) else [a.target]
            value = a.value
            if isinstance(a, ast.AugAssign) or value is None or \
                    any(isinstance(n, ast.Name) and n.id in out for n in ast.walk(value)):
                out |= {n.id for t in targets for n in ast.walk(t)
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if len(out) == before:
            return out


def positive_stops(loop, parents, moving, in_body=True) -> set:
    """Names N that are positive wherever loop's body (or, not in_body, its
    else) runs: the stop of loop or of a loop whose body holds it, `for v
    in range(N)` / `range(c, N)` / `range(c, N, s)` (c an int literal >= 0,
    s one > 0: the body runs only where N > c >= 0), N assigned nowhere in
    the loops (not in moving)."""
    out = set()
    node, child = loop, None
    while node is not None:
        inside = in_body if child is None else any(child is b for b in node.body) \
            if isinstance(node, ast.For) else False
        it = node.iter if isinstance(node, ast.For) and inside else None
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
                it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3 and \
                (len(it.args) == 1 or _nonneg_literal(it.args[0])) and \
                (len(it.args) < 3 or (_nonneg_literal(it.args[2]) and it.args[2].value > 0)):
            stop = it.args[0] if len(it.args) == 1 else it.args[1]
            if isinstance(stop, ast.Name) and stop.id not in moving:
                out.add(stop.id)
        node, child = parents.get(id(node)), node
    return out


def counters(tree) -> set:
    """Loop variables that are never negative: `for v in range(...)` with a
    literal start >= 0 (or none) and step > 0 (or none), v assigned nowhere
    else in the function."""
    stores = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    out = set()
    for f in ast.walk(tree):
        if not (isinstance(f, ast.For) and isinstance(f.target, ast.Name)):
            continue
        it = f.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and
                it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3):
            continue
        if len(it.args) >= 2 and not _nonneg_literal(it.args[0]):
            continue
        if len(it.args) == 3 and not (_nonneg_literal(it.args[2]) and it.args[2].value > 0):
            continue
        if stores.get(f.target.id) == 1:
            out.add(f.target.id)
    return out


def _nonneg_literal(e) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) is int and e.value >= 0


def stable_arrays(tree) -> set:
    """Array names that share memory with no other name's array: arguments
    never assigned in the function, and locals whose every assignment is a
    fresh array (np.zeros(...), ..., x.copy())."""
    args = tree.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    assigned = {}
    for n in ast.walk(tree):
        targets = []
        if isinstance(n, ast.Assign):
            targets = [(t, n.value) for t in n.targets]
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            continue      # `x op= v` updates x's array in place (a scalar: no array)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [(n.target, None)]
        elif isinstance(n, (ast.For, ast.With, ast.comprehension)):
            targets = [(t, None) for t in ast.walk(getattr(n, "target", n))
                       if isinstance(t, ast.Name)]
        for t, v in targets:
            for name in ast.walk(t):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    fresh = isinstance(t, ast.Name) and v is not None and _fresh_array(v)
                    assigned.setdefault(name.id, []).append(fresh)
    out = {p for p in params if p not in assigned}
    out |= _fresh_locals(assigned, params)
    return out


def _fresh_locals(assigned, params) -> set:
    return {n for n, fresh in assigned.items() if n not in params and all(fresh)}


def array_locals(tree) -> set:
    """Local names bound only to fresh arrays (np.zeros(...), x.copy()):
    an array wherever the name is read."""
    args = tree.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    assigned = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                for name in ast.walk(t):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        ok = isinstance(t, ast.Name) and _fresh_array(n.value, False)
                        assigned.setdefault(name.id, []).append(ok)
        elif isinstance(n, (ast.AnnAssign, ast.For, ast.With, ast.comprehension)) or (
                isinstance(n, ast.AugAssign) and not isinstance(n.target, ast.Name)):
            for name in ast.walk(getattr(n, "target", n)):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    assigned.setdefault(name.id, []).append(False)
    return _fresh_locals(assigned, params)


def _fresh_array(v, arithmetic=True) -> bool:
    """v makes a new array: np.zeros(...) and the like, x.copy(), and with
    `arithmetic` `a - b`, `-a` (NumPy's operators return new arrays; of
    scalars a scalar, which the rewrites' ndim guards tell apart)."""
    if not arithmetic and isinstance(v, (ast.BinOp, ast.UnaryOp)):
        return False
    if isinstance(v, ast.BinOp):
        return isinstance(v.op, _ARITHMETIC)
    if isinstance(v, ast.UnaryOp):
        return isinstance(v.op, (ast.USub, ast.UAdd))
    if not isinstance(v, ast.Call):
        return False
    f = v.func
    if isinstance(f, ast.Attribute) and f.attr == "copy" and not v.args:
        return True
    return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
        f.value.id in ("np", "numpy") and f.attr in _FRESH
