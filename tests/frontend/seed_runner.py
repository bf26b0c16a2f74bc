"""What the seeded program fuzzers of tests/frontend share (moving_fuzz28,
nest_fuzz29, fuzz_scalars29, fuzz_loops28): a generated source loaded as a
module, a call whose result is its value or the type of the exception it
raised, and the command-line runner over a range of seeds.

    load_function(src, name, prefix, function="k") -> the function of src
    outcome(f, args) -> (value or exception type, the arguments as called)
    run_seeds(argv, check_seed, source, ok) -> counts of each seed's result

A fuzzer's check_seed(seed) returns None where the compiled program equals
plain Python, one of a few names (`ok`: "refused" for a located
CompileError, ...) or a message; run_seeds prints every other seed with its
source and the message."""
from __future__ import annotations

import importlib.util
import os
import tempfile

import numpy as np


def load_function(src: str, name: str, prefix: str, function: str = "k"):
    """`function` of src, written as <fresh folder>/<name>.py and imported
    (the frontend reads a function's source from its file)."""
    path = os.path.join(tempfile.mkdtemp(prefix=prefix), f"{name}.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, function)


def outcome(f, args):
    """(f(*args) or the type of the exception it raised, the arguments as
    f left them): each array argument is a copy, so Python and the compiled
    call each write their own."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return f(*args), args
    except Exception as e:  # noqa: BLE001 - the exception type is the result
        return type(e), args


def run_seeds(argv, check_seed, source, ok=(None, "refused")) -> dict:
    """`python -m tests.frontend.<fuzzer> FIRST COUNT`: check_seed of COUNT
    seeds from FIRST; prints each seed whose result is not in `ok` (an
    exception of check_seed included) with source(seed), then the counts."""
    first, count = int(argv[1]), int(argv[2])
    counts = {}
    for seed in range(first, first + count):
        try:
            msg = check_seed(seed)
        except Exception as e:  # noqa: BLE001 - reported with the seed
            msg = f"{type(e).__name__}: {e}"
        key = msg if msg in ok else "differ"
        counts[key] = counts.get(key, 0) + 1
        if key == "differ":
            print(f"seed {seed}\n{source(seed)}{msg}\n", flush=True)
    print(f"{count} seeds: {counts}")
    return counts
