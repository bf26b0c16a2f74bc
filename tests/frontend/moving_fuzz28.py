"""Seeded random kernels with moving slices (frontend_ast/moving_slices.py)
against plain Python: products of a vector and a matrix, chained targets,
`op=`, bounds from the loop variable (negative, past the ends, empty),
float64/float32/int64/int32. `python -m tests.frontend.moving_fuzz28 SEED N`
prints each failing seed with its source; the slow run checks seeds 0-39
(tests/frontend/test_seeded_fuzzers.py)."""
import random
import sys

import numpy as np

import pyhalide as ph
from tests.frontend.seed_runner import load_function, outcome, run_seeds

DTYPES = ["float64", "float32", "int64", "int32"]
BOUNDS = ["i", "i + 1", "i - 1", "-i", "None", "1", "-2", "n - i", "2 * i - 3", "i + 9"]


def _slice(rng):
    lo, hi = rng.choice(BOUNDS), rng.choice(BOUNDS)
    return f"{'' if lo == 'None' else lo}:{'' if hi == 'None' else hi}"


def _index(rng):
    return rng.choice(["i", "0", "i - 1", "-1", "n - 1 - i", "i + 2"])


def _product(rng):
    """A vector times a matrix (or the matrix times the vector)."""
    vec = rng.choice([f"x[{_slice(rng)}]", f"B[{_slice(rng)}, {_index(rng)}]",
                      f"B[{_index(rng)}, {_slice(rng)}]"])
    mat = f"A[{_slice(rng)}, {_slice(rng)}]"
    if rng.random() < 0.5:
        return f"{vec} @ {mat}" if rng.random() < 0.5 else f"np.dot({vec}, {mat})"
    return f"{mat} @ {vec}" if rng.random() < 0.5 else f"np.dot({mat}, {vec})"


def _value(rng):
    prod = _product(rng)
    form = rng.choice(["{p}", "{p} * 0.5", "{p} / (A.shape[0] - 1.0)", "{p} - x[{s}]",
                       "2 * {p} + B[{k}, {s}]", "np.sqrt(np.abs({p}))", "-{p}"])
    return form.format(p=prod, s=_slice(rng), k=_index(rng))


def _target(rng):
    return rng.choice([f"T[{_index(rng)}, {_slice(rng)}]", f"T[{_slice(rng)}, {_index(rng)}]"])


def kernel_source(seed):
    """The source of kernel `k` of seed, and its argument dtypes."""
    rng = random.Random(seed)
    op = rng.choice(["=", "=", "+=", "-=", "*="])
    targets = [_target(rng)]
    if op == "=" and rng.random() < 0.3:
        targets.append(_target(rng))
    stmt = " = ".join(targets) + f" = {_value(rng)}" if op == "=" else \
        f"{targets[0]} {op} {_value(rng)}"
    lo = rng.choice(["0", "1"])
    src = (f"import numpy as np\n\n\ndef k(T, A, B, x):\n    n = A.shape[0]\n"
           f"    for i in range({lo}, n):\n        {stmt}\n    return T\n")
    dtypes = [rng.choice(DTYPES)] * 4 if rng.random() < 0.6 else \
        [rng.choice(DTYPES) for _ in range(4)]
    return src, dtypes, rng.randint(0, 2 ** 31)


def _inputs(dtypes, data_seed, shape):
    r = np.random.default_rng(data_seed)
    n, m = shape
    t, a, b, x = dtypes
    return [(r.random((n, n)) * 4).astype(t), (r.random((n, m)) * 4).astype(a),
            (r.random((n, n)) * 4).astype(b), (r.random(n) * 4).astype(x)]


def check_seed(seed):
    """None if kernel `seed` equals Python, "refused" where it stays a
    CompileError, else a message."""
    src, dtypes, data_seed = kernel_source(seed)
    f = load_function(src, f"msk{seed}", "msfuzz")
    g = ph.pipeline(f)
    for shape in [(5, 5), (6, 4), (4, 6)]:
        args = _inputs(dtypes, data_seed, shape)
        want, wargs = outcome(f, args)
        got, gargs = outcome(g, args)
        if isinstance(got, type) and issubclass(got, ph.CompileError):
            return "refused"
        if isinstance(want, type) or isinstance(got, type):
            if got is not want:
                return f"{shape}: Python {want}, compiled {got}"
            continue
        for w, v in [(want, got)] + list(zip(wargs, gargs)):
            tol = 1e-4 if np.asarray(w).dtype == np.float32 else 1e-12
            if np.asarray(w).dtype != np.asarray(v).dtype or \
                    not np.allclose(v, w, rtol=tol, atol=tol, equal_nan=True):
                return f"{shape}: values differ\n{w}\n{v}"
    return None


def main(argv):
    run_seeds(argv, check_seed, lambda seed: kernel_source(seed)[0])


if __name__ == "__main__":
    main(sys.argv)
