"""Whether a store into a region of an array, reading the array in the
same loop iteration, reads no element another point of the region writes
(`a[i, 1:] = a[i, 0]`, `a[i, 0:1] = a[i, 0] * 2`): then evaluating the
points one after the other reads what NumPy reads (it evaluates the value
before storing). Proven with Z3 over the integers, for every value of the
loop variables and sizes and every two points of the region (0 <= p_k <
the region's size k).

Index expressions are int32 nodes built from constants, variables, `+ - *`,
min, max, select, comparisons, casts and division or modulo by a positive
constant (Halide's floor division); anything else is not proven (the
caller keeps its refusal). Only a refusal path calls this: Z3 is imported
then."""
from __future__ import annotations

from pyhalide import ir


def misses(at, points, shape, reads) -> bool:
    """Whether no index in `reads` (tuples of nodes, axis for axis with
    `at`, in terms of the region's points too) is an element that another
    point of the region writes: `at` is the written element in terms of the
    region's placeholder Variables `points`, whose sizes are the nodes
    `shape`. (A point may read the element it writes itself.)"""
    import z3
    tr = _Z3(z3)
    try:
        solver = z3.Solver()
        solver.set("timeout", 2000)
        # the reading point p and the writing point q
        q = {pt.name: f"{pt.name}'" for pt in points}
        for pt, size in zip(points, shape):
            for v in (tr.term(pt), tr.var(q[pt.name])):
                solver.add(v >= 0, v < tr.term(size))
        solver.add(z3.Or([tr.term(pt) != tr.var(q[pt.name]) for pt in points])
                   if points else z3.BoolVal(False))
        for n in list(at) + [a for r in reads for a in r] + list(shape):
            for name, var in ir.free_vars(n).items():
                if var.kind == "param" and ".extent." in name:
                    solver.add(tr.var(name) >= 0)
        written = [tr.term(x, q) for x in at]
        hits = [z3.And([w == tr.term(y) for w, y in zip(written, r)]) for r in reads]
        solver.add(z3.Or(hits) if hits else z3.BoolVal(False))
        return solver.check() == z3.unsat
    except _Unsupported:
        return False


def never_meets(written, read, loops) -> bool:
    """Whether the element `written` (index nodes) is never the element
    `read` for any values of the loops `loops` (each (variable node, start
    node, stop node, step)) in their ranges and sizes >= 0: proven with Z3
    (False where not proven). Also a division by a divisor that is not a
    constant (any value where it is not positive)."""
    import z3
    tr = _Z3(z3)
    try:
        solver = z3.Solver()
        solver.set("timeout", 2000)
        for var, start, stop, step in loops:
            v = tr.term(var)
            # (a bound Z3 does not take is left out: fewer facts, never a false proof)
            for bound in (start, stop):
                try:
                    b = tr.term(bound)
                except _Unsupported:
                    continue
                solver.add((b <= v if step > 0 else v <= b) if bound is start else
                           (v < b if step > 0 else b < v))
                if bound is start and abs(step) != 1:
                    solver.add((v - b) % abs(step) == 0)
        nodes = list(written) + list(read) + [n for l in loops for n in l[1:3]]
        for n in nodes:
            for name, var in ir.free_vars(n).items():
                if var.kind == "param" and ".extent." in name:
                    solver.add(tr.var(name) >= 0)
        solver.add(z3.And([tr.term(w) == tr.term(r) for w, r in zip(written, read)]))
        return solver.check() == z3.unsat
    except _Unsupported:
        return False


class _Unsupported(Exception):
    pass


class _Z3:
    """IR int/bool nodes as Z3 terms (mathematical integers)."""

    def __init__(self, z3):
        self.z3 = z3
        self.vars = {}

    def var(self, name):
        if name not in self.vars:
            self.vars[name] = self.z3.Int(name)
        return self.vars[name]

    def term(self, n, renamed=None):
        """n as a Z3 term, its Variables named by `renamed` where it has them."""
        z3 = self.z3
        if renamed:
            return _Renamed(self, renamed).term(n)
        if isinstance(n, ir.Const):
            if n.type.is_bool():
                return z3.BoolVal(bool(n.value))
            if not n.type.is_int() and not n.type.is_uint():
                raise _Unsupported
            return z3.IntVal(int(n.value))
        if isinstance(n, ir.Variable):
            if not (n.type.is_int() or n.type.is_uint()):
                raise _Unsupported
            return self.var(n.name)
        if isinstance(n, ir.Cast):
            if not (n.type.is_int() or n.type.is_uint()) or n.type.bits < 32:
                raise _Unsupported
            return self.term(n.value)
        if isinstance(n, ir.Call) and n.call_type == ir.INTRINSIC and \
                n.name in ("likely", "flat_index"):
            return self.term(n.args[0])
        binary = {ir.Add: lambda a, b: a + b, ir.Sub: lambda a, b: a - b,
                  ir.Mul: lambda a, b: a * b,
                  ir.Min: lambda a, b: z3.If(a <= b, a, b),
                  ir.Max: lambda a, b: z3.If(a >= b, a, b),
                  ir.LT: lambda a, b: a < b, ir.LE: lambda a, b: a <= b,
                  ir.GT: lambda a, b: a > b, ir.GE: lambda a, b: a >= b,
                  ir.EQ: lambda a, b: a == b, ir.NE: lambda a, b: a != b,
                  ir.And: z3.And, ir.Or: z3.Or}
        f = binary.get(type(n))
        if f is not None:
            return f(self.term(n.a), self.term(n.b))
        if isinstance(n, (ir.Div, ir.Mod)) and isinstance(n.b, ir.Const) and n.b.value > 0:
            a, k = self.term(n.a), int(n.b.value)
            # Z3's integer div/mod by a positive constant are floor division/modulo
            return a / k if isinstance(n, ir.Div) else a % k
        if isinstance(n, (ir.Div, ir.Mod)):
            # by a positive divisor, floor division/modulo; otherwise any value
            a, b = self.term(n.a), self.term(n.b)
            return z3.If(b > 0, a / b if isinstance(n, ir.Div) else a % b, z3.FreshInt())
        if isinstance(n, ir.Not):
            return z3.Not(self.term(n.a))
        if isinstance(n, ir.Select):
            return z3.If(self.term(n.condition), self.term(n.true_value),
                         self.term(n.false_value))
        raise _Unsupported


class _Renamed(_Z3):
    """_Z3 with some Variables named otherwise (the terms of `base`)."""

    def __init__(self, base: _Z3, renamed: dict):
        super().__init__(base.z3)
        self.vars = base.vars
        self.renamed = renamed

    def var(self, name):
        return super().var(self.renamed.get(name, name))
