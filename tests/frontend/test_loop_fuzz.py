"""Seeded fuzzing of scalar-loop programs (tests/frontend/loop_fuzz_gen.py):
loops of every supported form with break/continue/while/early return,
carried scalars, element reads and writes, a helper function. Each program
compiled with @pipeline must return exactly what plain Python returns (bit
for bit, the same types) or raise the same exception type; a program the
frontend refuses must be refused with a located CompileError, and most
programs must compile. The seed is printed; PYHALIDE_FUZZ_SEEDS=start:count
runs other seeds."""
import os
import sys
from collections import Counter

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.loop_fuzz_gen import LoopGen
from tests.frontend.test_array_fuzz import copies, fuzz_seeds, load, quiet

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples"))
from numpy_kernels.run import differs  # noqa: E402

SEEDS = range(2)
SLOW_SEEDS = range(2, 8)
PROGRAMS_PER_SEED = 10
# at least this share of the generated programs must compile
MIN_COMPILED = 0.3


def check_program(p, args, source) -> bool:
    """p(*args) equals the plain call; False when the frontend refused it."""
    what = f"program:\n{source.rstrip()}\narguments: {args!r}"
    plain_args, got_args = copies(args), copies(args)
    try:
        exp = quiet(p.py_func, *plain_args)
    except Exception as e:
        with pytest.raises(type(e)):
            p(*got_args)
        return True
    got = p(*got_args)
    why = differs(got, exp, None) or next(
        (f"argument {i}: {w}" for i, (g, e) in enumerate(zip(got_args, plain_args))
         if isinstance(e, np.ndarray) and (w := differs(g, e, None))), "")
    assert not why, f"{why}\ncompiled {got!r}\nplain    {exp!r}\n{what}"
    return True


def run_seed(seed, tmp_path, count=PROGRAMS_PER_SEED):
    print(f"loop fuzz seed {seed}")
    rng = np.random.default_rng(seed)
    compiled, refusals = 0, Counter()
    for i in range(count):
        g = LoopGen(rng, size=int(rng.integers(1, 9)))
        source = g.program()
        inputs = [g.inputs(), g.inputs()]
        p = ph.pipeline(load(tmp_path, f"lf_{seed}_{i}", source))
        try:
            for args in inputs:
                check_program(p, args, source)
            compiled += 1
        except ph.CompileError as e:
            text = str(e)
            assert f"lf_{seed}_{i}.py:" in text, f"refusal without a location: {text}\n{source}"
            refusals[text.splitlines()[0].split(": ", 1)[-1][:100]] += 1
    print(f"{compiled} of {count} compiled; refusals: {dict(refusals)}")
    return compiled


@pytest.mark.parametrize("seed", fuzz_seeds(SEEDS))
def test_loop_program_fuzz(seed, tmp_path):
    compiled = run_seed(seed, tmp_path)
    assert compiled >= MIN_COMPILED * PROGRAMS_PER_SEED


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_loop_program_fuzz_more_seeds(seed, tmp_path):
    compiled = run_seed(seed, tmp_path)
    assert compiled >= MIN_COMPILED * PROGRAMS_PER_SEED
