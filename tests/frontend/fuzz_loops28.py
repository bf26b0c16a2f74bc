"""Seeded fuzzer of 2-3 level @pipeline loop nests whose bounds mix int
arguments near the ends of int32, the array size and the enclosing loops'
variables (session 28, h2; docs/wrap28.md). Plain Python is the oracle.

    python -m tests.frontend.fuzz_loops28 SEED [PROGRAMS]

Each program is compiled once and run at argument pairs (lo, hi) drawn
from values near -2**31, 0, 2**31 - 1 and +-2**40 (pairs whose plain-Python
run is longer than MAX_ITERS are skipped). Prints the seed, every wrong
value and false error with its program and arguments, and the counts:
equal / wrong / overflow (a located OverflowError where Python returns a
value: a false error, not a wrong value; printed with -v) / error (any other
exception: printed) / refused (a located CompileError) / skipped."""
from __future__ import annotations

import random
import sys

import numpy as np

import pyhalide as ph
from tests.frontend.seed_runner import load_function

MAX_ITERS = 20000
VALUES = [-2**40, -2**31, -2**31 + 1, -2**31 + 3, -5, 0, 3, 2**31 - 4, 2**31 - 1, 2**40]
N = 4


def _atom(rng, names):
    k = rng.choice(names + ["lo", "hi", "n", "c"])
    if k == "c":
        return str(rng.randint(-3, 3))
    sign = rng.choice(["", "-"]) if k in names else ""
    return sign + k


def _linear(rng, names):
    """A sum of one or two atoms and maybe a small constant."""
    out = _atom(rng, names)
    if rng.random() < 0.6:
        b = _atom(rng, names)
        out = f"{out} - {b[1:]}" if b.startswith("-") else f"{out} + {b}"
    if rng.random() < 0.4:
        c = rng.randint(-3, 3)
        out = f"{out} + {c}" if c >= 0 else f"{out} - {-c}"
    return out


def _bound(rng, names):
    if rng.random() < 0.35:
        return f"{rng.choice(['min', 'max'])}({_linear(rng, names)}, {_linear(rng, names)})"
    return _linear(rng, names)


def program(rng) -> str:
    """The source of one function f(a, lo, hi)."""
    depth = rng.choice([2, 2, 3])
    names, lines = [], ["def f(a, lo, hi):", "    n = a.shape[0]", "    s = 0.0"]
    for level, v in enumerate("ijk"[:depth]):
        if level == 0:
            # (the last two: bounds that are not affine, context.loop_bounds' hulls)
            rng_text = rng.choice(["range(n)", "range(n - 1, -1, -1)", "range(min(lo, 0), 1)",
                                   "range(max(hi, -1), 2)"])
        else:
            step = rng.choice([1, 1, 1, -1, -1, 2, -2])
            rng_text = f"range({_bound(rng, names)}, {_bound(rng, names)}"
            rng_text += ")" if step == 1 else f", {step})"
        lines.append("    " * (level + 1) + f"for {v} in {rng_text}:")
        names.append(v)
    v = names[-1]
    lines.append("    " * (depth + 1) + f"s += a[{v} % n] * ({v} % 7) + 1.0")
    lines.append("    return s")
    return "\n".join(lines) + "\n"


class _TooLong(Exception):
    pass


def _oracle(src: str, a, lo, hi):
    """Plain Python's value, or None where it runs more than MAX_ITERS
    iterations of all its loops together (an iteration counter at the start of
    every loop body: outer loops of 2**31 iterations whose inner loops are
    empty ran for hours when only the innermost statement counted)."""
    count = [0]

    def tick():
        count[0] += 1
        if count[0] > MAX_ITERS:
            raise _TooLong
    lines = []
    for line in src.splitlines():
        lines.append(line)
        if line.lstrip().startswith("for "):
            lines.append(" " * (len(line) - len(line.lstrip()) + 4) + "tick()")
    body = "\n".join(lines) + "\n"
    env = {"tick": tick}
    exec(compile(body, "<oracle>", "exec"), env)
    try:
        return env["f"](a, lo, hi)
    except _TooLong:
        return None


def run(seed: int, programs: int = 20, verbose: bool = False):
    rng = random.Random(seed)
    a = np.arange(1.0, N + 1.0)
    counts = {"equal": 0, "wrong": 0, "overflow": 0, "error": 0, "refused": 0, "skipped": 0}
    print(f"seed {seed}", flush=True)
    for p in range(programs):
        src = program(rng)
        pairs = [(rng.choice(VALUES) + rng.randint(-1, 1) * (rng.random() < 0.3),
                  rng.choice(VALUES)) for _ in range(6)]
        try:
            fn = ph.pipeline(load_function(src, f"prog_{seed}_{p}", "fuzz28_", "f"))
        except Exception:            # (a located refusal of the decorator)
            counts["refused"] += 1
            continue
        for lo, hi in pairs:
            want = _oracle(src, a, lo, hi)
            if want is None:
                counts["skipped"] += 1
                continue
            try:
                got = float(np.asarray(fn(a, lo, hi)))
            except ph.CompileError:
                counts["refused"] += 1
                break
            except Exception as e:
                over = isinstance(e, OverflowError)
                counts["overflow" if over else "error"] += 1
                if verbose or not over:
                    print(f"ERROR {type(e).__name__}: {str(e)[:100]}\n  lo={lo} hi={hi}\n{src}",
                          flush=True)
                continue
            if got == want:
                counts["equal"] += 1
            else:
                counts["wrong"] += 1
                print(f"WRONG {got} python {want}\n  lo={lo} hi={hi}\n{src}", flush=True)
    print(f"seed {seed}: " + " ".join(f"{k} {v}" for k, v in counts.items()), flush=True)
    return counts


if __name__ == "__main__":
    args = [x for x in sys.argv[1:] if x != "-v"]
    run(int(args[0]), int(args[1]) if len(args) > 1 else 20, "-v" in sys.argv)
