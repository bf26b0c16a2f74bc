"""Seeded fuzzing of float compare-and-copy reductions (max, min, argmax,
argmin written with `>`, `>=`, `<`, `<=`, `not`, `and`/`or` guards, tie
branches, builtin max/min, conditional expressions) under schedule="auto" and
hand rfactor schedules (chunks in parallel, interleaved vector lanes), and
along the rows of a 2-D array under "auto" (rows in parallel and in vector
lanes), on
inputs holding NaN, infinities, -0.0/+0.0, ties and all-NaN runs: each
compiled result equals the plain Python loop bit for bit (NaN where Python
has NaN, the sign of zero, the index), or the schedule is refused with a
CompileError (auto never refuses: it keeps a loop serial). The seed is
printed; PYHALIDE_FUZZ_SEEDS=start:count runs other seeds."""
from collections import Counter

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import describe, same
from tests.frontend.test_array_fuzz import fuzz_seeds, load
from tests.schedules.test_autoschedule_fuzz import small_thresholds  # noqa: F401 (fixture)

SEEDS = range(1)
PROGRAMS_PER_SEED = 5
ROW_PROGRAMS = 2        # then the reduction along each row of a 2-D array, under auto


class ReductionGen:
    """One program `f(a, b)`: a loop over float64 `a` (and a guard array
    `b`) keeping a running value `m` and, for arg-reductions, its index `k`;
    with rows=True, that loop along each row of a 2-D `a`."""

    def __init__(self, rng, rows=False):
        self.rng = rng
        self.rows = rows

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def chance(self, p):
        return self.rng.random() < p

    def program(self) -> str:
        big = self.chance(0.5)            # a maximum (else a minimum)
        op = self.pick([">", ">="] if big else ["<", "<="])
        arg = self.chance(0.5)
        start = self.pick(["0", "1"])
        init = "a[0]" if start == "1" and self.chance(0.7) else \
            self.pick(["-np.inf" if big else "np.inf", "0.0", "-0.0", "a[0]"])
        x = "a[i]"
        form = self.rng.random()
        body = []
        if form < 0.2 and not arg:
            fn = "max" if big else "min"
            body = [f"m = {fn}({self.pick([f'm, {x}', f'{x}, m'])})"]
        elif form < 0.35 and not arg:
            body = [f"m = {x} if {self.cmp(x, op)} else m"]
        else:
            cond = self.cmp(x, op)
            if self.chance(0.35):
                guard = self.pick(["b[i] > 0", "b[i] != 0", f"{x} == {x}", "i % 3 != 1",
                                   f"not ({x} != {x})"])
                cond = self.pick([f"{guard} and {cond}", f"{cond} and {guard}",
                                  f"({guard}) and ({cond})"])
            body = [f"if {cond}:", f"    m = {x}"]
            if arg:
                body.append("    k = i")
                if self.chance(0.25):
                    body += [f"elif {x} == m:", f"    k = {self.pick(['i', 'k'])}"]
        head = ["def f(a, b):", f"    m = {init}"] + (["    k = -1"] if arg else [])
        loop = [f"    for i in range({start}, a.shape[0]):"] + ["        " + s for s in body]
        ret = ["    return m, k" if arg else "    return m"]
        if self.rows:
            return self.rows_program(head[1:], loop, arg)
        return "\n".join(head + loop + ret) + "\n"

    def rows_program(self, init, loop, arg) -> str:
        """The same reduction along each row of a 2-D `a` (and `b`), stored
        per row: under "auto" the rows run in parallel and in vector lanes."""
        def row(line):
            return line.replace("a.shape[0]", "a.shape[1]").replace("a[i]", "a[r, i]") \
                .replace("b[i]", "b[r, i]").replace("a[0]", "a[r, 0]")
        lines = ["def f(a, b):", "    om = np.zeros(a.shape[0])",
                 "    ok = np.zeros(a.shape[0], np.int64)", "    for r in range(a.shape[0]):"]
        lines += ["    " + row(x) for x in init + loop]
        lines += ["        om[r] = m"] + (["        ok[r] = k"] if arg else [])
        lines += ["    return om, ok" if arg else "    return om"]
        return "\n".join(lines) + "\n"

    def cmp(self, x, op):
        flip = {">": "<", ">=": "<=", "<": ">", "<=": ">="}
        neg = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}
        return self.pick([f"{x} {op} m", f"m {flip[op]} {x}", f"not ({x} {neg[op]} m)"])

    def inputs(self, n):
        """Arrays of length n: ties, NaN runs, all NaN but one, infinities,
        signed zeros, and a guard array."""
        rng = self.rng
        a = np.round(rng.standard_normal(n) * 2) / 2           # few values: ties
        kind = int(rng.integers(7))
        if kind == 0:
            a[rng.random(n) < 0.3] = np.nan
        elif kind == 1:
            a[:] = np.nan
            a[int(rng.integers(n))] = self.pick([1.0, -2.0, np.inf, -0.0])
        elif kind == 2:
            a[:] = np.nan
        elif kind == 3:
            a[rng.random(n) < 0.5] = 0.0
            a[rng.random(n) < 0.4] = -0.0
        elif kind == 4:
            a[rng.random(n) < 0.2] = np.inf
            a[rng.random(n) < 0.2] = -np.inf
        elif kind == 5:
            a[: n // 2] = np.nan
        if self.chance(0.3):
            a[0] = np.nan
        b = rng.integers(-2, 3, n).astype(np.float64)
        return [a, b]

    def row_inputs(self, n):
        """2-D inputs: rows of every kind of inputs(n)."""
        rows = [self.inputs(n) for _ in range(int(self.rng.integers(1, 40)))]
        return [np.array([r[0] for r in rows]), np.array([r[1] for r in rows])]


def hand_schedule(inner, width):
    """Split the loop of m's update and rfactor its inner part into vector
    lanes (inner) or its outer part into parallel chunks."""
    def schedule(p):
        f = p.funcs["m"]
        ro, ri, u = ph.RVar("ro"), ph.RVar("ri"), ph.Var("u")
        f.update(0).split(p.vars["i"], ro, ri, width)
        intm = f.update(0).rfactor(ri if inner else ro, u).compute_root()
        intm.vectorize(u, 8) if inner else intm.parallel(u)
    return schedule


def outcome(fn, args):
    try:
        return "value", fn(*[x.copy() for x in args])
    except ph.CompileError:
        raise
    except Exception as e:      # noqa: BLE001  (the same type must be raised)
        return "raise", type(e)


def run_seed(seed, tmp_path, count=PROGRAMS_PER_SEED):
    print(f"compare-and-copy fuzz seed {seed}")
    rng = np.random.default_rng(seed)
    stats, reasons = Counter(), Counter()
    for i in range(count + ROW_PROGRAMS):
        rows = i >= count
        g = ReductionGen(rng, rows)
        source = g.program()
        fn = load(tmp_path, f"cc_{seed}_{i}", source)
        sizes = rng.integers(1, 90, 4)
        inputs = [(g.row_inputs if rows else g.inputs)(int(n)) for n in sizes]
        schedules = [("auto", "auto")] + [
            (f"rfactor {'lanes' if inner else 'chunks'} {w}", hand_schedule(inner, w))
            for inner, w in [(False, int(rng.integers(2, 17))), (True, int(rng.integers(8, 33)))]]
        if rows:
            schedules = [("auto", "auto")]
        for name, sched in schedules:
            p = ph.pipeline(fn, schedule=sched)
            for args in inputs:
                want = outcome(fn, args)
                try:
                    got = outcome(p, args)
                except ph.CompileError as e:
                    assert name != "auto", f"auto refused:\n{source}{e}"
                    assert f"cc_{seed}_{i}.py" in str(e) or "rfactor" in str(e), str(e)
                    stats[f"{name.split()[1]} refused"] += 1
                    reasons[str(e).splitlines()[0].split(": ", 1)[-1][:110]] += 1
                    break
                what = f"{name}\n{source}arguments: {describe(tuple(args))}"
                assert want[0] == got[0], f"{want} vs {got}: {what}"
                ok = want[1] is got[1] if want[0] == "raise" else same(got[1], want[1])
                assert ok, f"compiled {describe(got[1])} != plain {describe(want[1])}: {what}"
            else:
                stats[f"{name.split()[0] if name == 'auto' else name.split()[1]} ok"] += 1
                if name == "auto" and "rfactor(" in p.schedule_source():
                    stats["auto rfactored"] += 1
                if name == "auto" and rows and ".vectorize(" in p.schedule_source():
                    stats["auto rows vectorized"] += 1
    print(dict(stats))
    print("refusals:", dict(reasons))
    return stats


# small inputs get rfactored chunks and lanes, and parallel vector rows, under "auto"
@pytest.mark.usefixtures("small_thresholds")
@pytest.mark.parametrize("seed", fuzz_seeds(SEEDS))
def test_compare_and_copy_reduction_fuzz(seed, tmp_path):
    stats = run_seed(seed, tmp_path)
    assert stats["auto ok"] == PROGRAMS_PER_SEED + ROW_PROGRAMS
