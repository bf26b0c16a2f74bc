"""Random scalar-loop programs for tests/frontend/test_loop_fuzz.py: nested
`for` loops over ranges (steps, reversed, enumerate/zip over arrays), `while`
loops with a counter, `break`/`continue`/early `return` under conditions,
carried int and float scalars, element reads and writes of 1-D arrays, a
module-level helper function, tuple swaps and conditional expressions.
With `nests=True` a program also takes a 2-D float array `c` (N x M, M <= N,
with NaN, infinities, signed zeros and ties) and runs two-loop nests over it
that write a lower-dimensional array read in their condition: row and column
maxima/minima (`if c[i, j] > rout[i]: rout[i] = c[i, j]`), argmax/argmin
(`rarg[i] = j`), guarded, negated and chained conditions, and conditional
accumulations (`if rout[i] < 2.0: rout[i] += c[i, j]`).

Int variables stay ints and float variables stay floats in every program
(pyhalide types a variable once); int values are kept small (products are
reduced modulo a prime) so no Python int leaves int64, where pyhalide raises
OverflowError by design (FRONTEND.md)."""
import numpy as np

INT_VARS = ["s", "k", "m"]
FLOAT_VARS = ["t", "u"]
HELPER = '''
def helper(x, y):
    if x > y:
        return x - y
    return y * 2 - x
'''


class LoopGen:
    """One program: `f(a, b, n)` with int64 `a`, float64 `b` of length N and
    an int `n`; it returns the carried scalars and the written arrays."""

    def __init__(self, rng, size, nests=False):
        self.rng = rng
        self.size = size
        self.nests = nests
        self.lines = []
        self.loop_vars = []       # (name, kind): kind "int"
        self.float_loop_vars = []  # float values bound by loop targets
        self.depth = 0
        self.loop_count = 0
        self.returns_inside = False

    # helpers -----------------------------------------------------------------
    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p):
        return self.rng.random() < p

    def emit(self, text):
        self.lines.append("    " * (self.depth + 1) + text)

    # expressions ---------------------------------------------------------------
    def index(self):
        """An in-range index of a, b, out (length N)."""
        if self.loop_vars and self.chance(0.7):
            v = self.pick(self.loop_vars)
            return self.pick([v, f"({v} * 3 + 1) % N", f"N - 1 - {v} % N", f"{v} % N"])
        return str(int(self.rng.integers(self.size)))

    def int_atom(self):
        r = self.rng.random()
        if r < 0.3:
            return self.pick(INT_VARS)
        if r < 0.5 and self.loop_vars:
            return self.pick(self.loop_vars)
        if r < 0.7:
            return f"a[{self.index()}]"
        if r < 0.75:
            return "n"
        if r < 0.8:
            return f"iout[{self.index()}]"
        return str(int(self.rng.integers(-9, 10)))

    def int_expr(self, depth=0):
        if depth > 1 or self.chance(0.35):
            return self.int_atom()
        x, y = self.int_expr(depth + 1), self.int_expr(depth + 1)
        r = self.rng.random()
        if r < 0.25:
            return f"({x} + {y})"
        if r < 0.45:
            return f"({x} - {y})"
        if r < 0.55:
            return f"({x} * {y} % 10007)"
        if r < 0.62:
            return f"({x} // {self.pick(['3', '-4', '7'])})"
        if r < 0.69:
            return f"({x} % {self.pick(['5', '-6', '11'])})"
        if r < 0.76:
            return f"{self.pick(['min', 'max'])}({x}, {y})"
        if r < 0.82:
            return f"abs({x})"
        if r < 0.88:
            return f"helper({x}, {y})"
        if r < 0.94:
            return f"({x} if {self.cond(depth + 1)} else {y})"
        return f"({x} & {y})"

    def float_atom(self):
        r = self.rng.random()
        if r < 0.35:
            return self.pick(FLOAT_VARS)
        if r < 0.6:
            return f"b[{self.index()}]"
        if r < 0.7:
            return f"fout[{self.index()}]"
        if r < 0.8:
            return f"float({self.int_atom()})"
        if r < 0.85 and self.float_loop_vars:
            return self.pick(self.float_loop_vars)
        return repr(float(self.rng.integers(-8, 9)) / 4)

    def float_expr(self, depth=0):
        if depth > 1 or self.chance(0.35):
            return self.float_atom()
        x, y = self.float_expr(depth + 1), self.float_expr(depth + 1)
        r = self.rng.random()
        if r < 0.25:
            return f"({x} + {y})"
        if r < 0.4:
            return f"({x} - {y})"
        if r < 0.55:
            return f"({x} * {y})"
        if r < 0.65:
            return f"({x} / (abs({y}) + 1.0))"
        if r < 0.75:
            return f"{self.pick(['min', 'max'])}({x}, {y})"
        if r < 0.82:
            return f"math.sqrt(abs({x}))"
        if r < 0.9:
            return f"({x} if {self.cond(depth + 1)} else {y})"
        return f"abs({x})"

    def cond(self, depth=0):
        r = self.rng.random()
        op = self.pick(["<", "<=", ">", ">=", "==", "!="])
        if r < 0.5:
            return f"{self.int_expr(depth + 1)} {op} {self.int_expr(depth + 1)}"
        if r < 0.8:
            return f"{self.float_expr(depth + 1)} {op} {self.float_expr(depth + 1)}"
        if depth > 1:
            return f"{self.pick(INT_VARS)} % 2 == 0"
        return (f"({self.cond(depth + 1)}) {self.pick(['and', 'or'])} "
                f"({self.cond(depth + 1)})")

    # statements -----------------------------------------------------------------
    def stmt(self):
        r = self.rng.random()
        inside = bool(self.loop_vars)
        if r < 0.18:
            v = self.pick(INT_VARS)
            self.emit(f"{v} {self.pick(['=', '+=', '-='])} {self.int_expr()}")
        elif r < 0.32:
            v = self.pick(FLOAT_VARS)
            self.emit(f"{v} {self.pick(['=', '+=', '-=', '*='])} {self.float_expr()}")
            if self.chance(0.3):
                self.emit(f"{v} = {v} % 1000.0")
        elif r < 0.40:
            self.emit(f"iout[{self.index()}] = {self.int_expr()}")
        elif r < 0.48:
            self.emit(f"fout[{self.index()}] {self.pick(['=', '+='])} {self.float_expr()}")
        elif r < 0.56:
            self.emit(f"if {self.cond()}:")
            self.block(2)
            if self.chance(0.5):
                self.emit("else:")
                self.block(2)
        elif r < 0.66 and inside:
            self.emit(f"if {self.cond()}:")
            self.depth += 1
            self.emit(self.pick(["break", "continue"]))
            self.depth -= 1
        elif r < 0.69 and inside:
            self.emit(f"if {self.cond()}:")
            self.depth += 1
            self.emit("return s, k, m, t, u, iout, fout")
            self.depth -= 1
            self.returns_inside = True
        elif self.nests and r < 0.75 and self.depth == 0 and self.loop_count < 4:
            self.nest()
        elif r < 0.75:
            pair = self.pick([("s", "k"), ("k", "m"), ("t", "u")])
            self.emit(f"{pair[0]}, {pair[1]} = {pair[1]}, {pair[0]}")
        elif self.depth < 2 and self.loop_count < 4:
            self.loop()
        else:
            v = self.pick(INT_VARS)
            self.emit(f"{v} = {v} * 3 % 10007 + {self.int_atom()}")

    def block(self, count):
        self.depth += 1
        for _ in range(max(1, int(self.rng.integers(1, count + 1)))):
            self.stmt()
        self.depth -= 1

    def loop(self):
        self.loop_count += 1
        i = f"i{self.loop_count}"
        r = self.rng.random()
        float_var = None
        if r < 0.4:
            self.emit(f"for {i} in range({self.pick(['N', 'n', '3', 'N - 2', '1, N'])}):")
        elif r < 0.55:
            self.emit(f"for {i} in range(N - 1, {self.pick(['-1', '0', '2'])}, "
                      f"{self.pick(['-1', '-2', '-3'])}):")
        elif r < 0.65:
            self.emit(f"for {i} in range(0, N, {self.pick(['2', '3'])}):")
        elif r < 0.73:
            self.emit(f"for {i} in reversed(range(N)):")
        elif r < 0.83:
            float_var = f"x{self.loop_count}"
            self.emit(f"for {i}, {float_var} in enumerate(b):")
        elif r < 0.9:
            float_var = f"x{self.loop_count}"
            j = f"j{self.loop_count}"
            self.emit(f"for {j}, {float_var} in zip(a, b):")
            self.emit(f"    {i} = {j} % N")
        else:
            self.emit(f"{i} = 0")
            self.emit(f"while {i} < {self.pick(['N', 'n', '6'])} and ({self.cond()}):")
            self.loop_vars.append(i)
            self.depth += 1
            self.emit(f"{i} += 1")
            self.depth -= 1
            self.block(3)
            self.loop_vars.remove(i)
            return
        self.loop_vars.append(i)
        if float_var:
            self.float_loop_vars.append(float_var)
        self.block(4)
        self.loop_vars.remove(i)
        if float_var:
            self.float_loop_vars.remove(float_var)

    def nest(self):
        """A two-loop nest over c whose innermost body conditionally writes
        rout/rarg at the outer (row) or inner (column) variable and reads it
        in the condition: every iteration of the other loop writes the same
        element, so each read must see the previous iteration's write."""
        self.loop_count += 1
        i, j = f"i{self.loop_count}", f"j{self.loop_count}"
        outer = self.pick(["range(N)", "range(N - 1, -1, -1)", "range(0, N, 2)"])
        inner = self.pick(["range(M)", "range(M - 1, -1, -1)", "range(1, M)"])
        self.emit(f"for {i} in {outer}:")
        self.depth += 1
        if self.chance(0.3):
            return self.scalar_nest(i, j, inner)
        self.emit(f"for {j} in {inner}:")
        self.depth += 1
        self.loop_vars += [i, j]
        # row (out[i], i outside) or column (out[j], j inside) of c[i, j]
        at = i if self.chance(0.7) else j
        val = f"c[{i}, {j}]"
        if self.chance(0.15):
            val = f"(c[{i}, {j}] + b[{self.index()}])"
        if self.chance(0.3):
            self.stmt()
        self.nest_update(at, val, j if at == i else i)
        if self.chance(0.25):
            self.stmt()
        self.loop_vars = self.loop_vars[:-2]
        self.depth -= 2

    def scalar_nest(self, i, j, inner):
        """A row's maximum/minimum (and its index) in scalars local to the
        outer loop, then stored at the row: `bm`/`bk` start at each row.
        Scalars of the whole program may be updated in the inner loop too
        (beside the row's own, reset at each row), also under the condition
        on the row's running value (growcut's counter of changes)."""
        op = self.pick([">", ">=", "<", "<="])
        count_changes = self.chance(0.3)
        self.emit(f"bm = {self.pick(['c[' + i + ', 0]', '-np.inf', 'np.inf', 'rout[' + i + ']'])}")
        self.emit("bk = -1")
        self.emit(f"for {j} in {inner}:")
        self.depth += 1
        self.loop_vars += [i, j]
        cond = self.pick([f"c[{i}, {j}] {op} bm", f"not (bm {op} c[{i}, {j}])"])
        if self.chance(0.3):
            cond = f"{cond} and b[{self.index()}] > 0"
        self.emit(f"if {cond}:")
        self.emit(f"    bm = c[{i}, {j}]")
        self.emit(f"    bk = {j}")
        if count_changes:
            self.emit("    s += 1")
        if self.chance(0.2):
            self.emit(f"elif c[{i}, {j}] == bm:")
            self.emit(f"    bk = {j}")
        if self.chance(0.3):
            self.emit(self.pick(["k = k + 1", f"t = t + c[{i}, {j}] * 0.5", f"s = s + {j}"]))
        self.depth -= 1
        self.emit(f"rout[{i}] = bm")
        self.emit(f"rarg[{i}] = bk")
        self.loop_vars = self.loop_vars[:-2]
        self.depth -= 1

    def nest_update(self, at, val, other):
        r = self.rng.random()
        out = f"rout[{at}]"
        op = self.pick([">", ">=", "<", "<="])
        if r < 0.55:
            cond = self.pick([f"{val} {op} {out}", f"{out} {op} {val}",
                              f"not ({val} {op} {out})"])
            if self.chance(0.3):
                guard = self.pick([f"b[{self.index()}] > 0", f"{other} % 2 == 0",
                                   f"a[{self.index()}] != 0", f"c[{at}, 0] < 1.0"])
                cond = self.pick([f"{guard} and {cond}", f"{cond} and {guard}",
                                  f"{guard} or {cond}"])
            self.emit(f"if {cond}:")
            self.depth += 1
            self.emit(f"{out} = {val}")
            if self.chance(0.25):       # two arrays written: refused at the read
                self.emit(f"rarg[{at}] = {other}")
            self.depth -= 1
            if self.chance(0.2):
                self.emit(f"elif {val} == {out}:")
                self.depth += 1
                self.emit(f"rarg[{at}] = {self.pick([other, f'rarg[{at}] + 1'])}")
                self.depth -= 1
        elif r < 0.7:
            self.emit(f"{out} = {self.pick(['max', 'min'])}({self.pick([out, val])}, "
                      f"{self.pick([val, out])})")
        elif r < 0.85:
            self.emit(f"if {out} {op} {self.pick(['2.0', '-1.5', '0.0'])}:")
            self.depth += 1
            self.emit(f"{out} {self.pick(['+=', '-=', '='])} {val}"
                      if self.chance(0.7) else f"{out} = {out} * 0.5 + {val}")
            self.depth -= 1
        else:
            self.emit(f"if {val} {op} {out}:")
            self.depth += 1
            self.emit(f"rarg[{at}] += 1")
            self.depth -= 1
            self.emit(f"{out} = {val} if {val} {op} {out} else {out}")

    def program(self):
        self.lines = []
        body_start = len(self.lines)
        count = int(self.rng.integers(2, 5))
        nest_at = int(self.rng.integers(count)) if self.nests else -1
        for k in range(count):
            self.nest() if k == nest_at else self.stmt()
        body = self.lines[body_start:]
        head = ["def f(a, b, n):",
                "    N = len(a)",
                "    s = 0", "    k = 1", "    m = n",
                "    t = 0.5", "    u = -1.25",
                "    iout = np.zeros(N, np.int64)",
                "    fout = np.zeros(N, np.float64)"]
        tail = ["    return s, k, m, t, u, iout, fout"]
        if self.nests:
            head[0] = "def f(a, b, n, c):"
            init = self.pick(["np.full(N, -np.inf)", "np.full(N, np.inf)", "np.zeros(N)",
                              "c[:, 0].copy()"])
            head += ["    M = c.shape[1]", f"    rout = {init}", "    rarg = np.zeros(N, np.int64)"]
            tail = ["    return s, k, m, t, u, iout, fout, rout, rarg"]
            body = [line.replace("return s, k, m, t, u, iout, fout",
                                 "return s, k, m, t, u, iout, fout, rout, rarg")
                    for line in body]
        return "import math\n" + HELPER + "\n\n" + "\n".join(head + body + tail) + "\n"

    def inputs(self):
        a = self.rng.integers(-20, 21, self.size).astype(np.int64)
        b = np.round(self.rng.standard_normal(self.size) * 8, 2)
        n = int(self.rng.integers(0, self.size + 1))
        if not self.nests:
            return [a, b, n]
        m = int(self.rng.integers(1, self.size + 1))
        # few distinct values (ties), and NaN, infinities and signed zeros
        c = self.rng.choice([-1.5, -0.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0], (self.size, m))
        for v in (np.nan, np.inf, -np.inf, -0.0):
            if self.chance(0.5):
                c[self.rng.random((self.size, m)) < 0.2] = v
        if self.chance(0.15):
            c[int(self.rng.integers(self.size))] = np.nan
        return [a, b, n, c]
