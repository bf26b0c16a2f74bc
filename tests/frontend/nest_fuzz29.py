"""Seeded random loop nests with a slice statement beside element writes of
the same array (frontend_ast/nest_slices.py) against plain Python: reads of
the target on other rows and offsets, `op=`, rows past the end, lengths
that do not broadcast. `python -m tests.frontend.nest_fuzz29 FIRST COUNT`
prints each failing seed with its source; the slow run checks seeds 0-11
(tests/frontend/test_seeded_fuzzers.py).
A NotImplementedError where the rows meet at call time is the compiled
code's limit (nest_slices.clash_check), counted apart."""
import random
import sys

import numpy as np

import pyhalide as ph
from tests.frontend.seed_runner import load_function, outcome, run_seeds

ROWS = ["i", "i - 1", "i + 1", "r", "0", "-1", "n - 1 - i"]
SLICES = ["1:-1", ":-2", "2:", ":", "1:", ":-1", "i:", ":i", "0:3", "-3:"]


def kernel_source(seed):
    g = random.Random(seed)
    parts = []
    for _ in range(g.randint(1, 3)):
        if g.random() < 0.6:
            parts.append(f"A[{g.choice(ROWS)}, {g.choice(SLICES)}]")
        elif g.random() < 0.5:
            parts.append(f"B[{g.choice(ROWS)}, {g.choice(SLICES)}]")
        else:
            parts.append(g.choice(["c", "2.0", "B[i, 0]"]))
    value = g.choice([" + ", " * ", " - "]).join(parts)
    target = f"A[{g.choice(ROWS[:3] + ['n - 1 - i'])}, {g.choice(SLICES)}]"
    op = g.choice(["=", "+=", "-=", "*="])
    elem = g.choice(["A[i, j] += A[i, j - 1] * 0.5", "A[i, j] = A[i, j] - B[i, j - 1]",
                     "A[i - 1, j] *= 0.5"])
    return (f"import numpy as np\n\n\ndef k(A, B, r, c):\n    n = A.shape[0]\n"
            f"    for i in range({g.choice(['0', '1'])}, n):\n        {target} {op} {value}\n"
            f"        for j in range(1, A.shape[1]):\n            {elem}\n    return A\n")


def check_seed(seed):
    """None if equal, "refused" (CompileError), "limit" (NotImplementedError
    where Python returns), else a message."""
    f = load_function(kernel_source(seed), f"nfz{seed}", "nfz")
    g = ph.pipeline(f)
    out = None
    for shape, r in [((5, 5), 2), ((4, 6), 0), ((6, 3), -1)]:
        rng = np.random.default_rng(seed)
        args = [rng.random(shape), rng.random(shape), r, 1.5]
        want, wargs = outcome(f, args)
        got, gargs = outcome(g, args)
        if isinstance(got, type) and issubclass(got, ph.CompileError):
            return "refused"
        if got is NotImplementedError and want is not NotImplementedError:
            out = "limit"
            continue
        if isinstance(want, type) or isinstance(got, type):
            if got is not want:
                return f"{shape}: Python {want}, compiled {got}"
            continue
        for w, v in [(want, got)] + list(zip(wargs, gargs)):
            if isinstance(w, np.ndarray) and not np.array_equal(w, v):
                return f"{shape}: values differ\n{w}\n{v}"
    return out


def main(argv):
    run_seeds(argv, check_seed, kernel_source, ok=(None, "refused", "limit"))


if __name__ == "__main__":
    main(sys.argv)
