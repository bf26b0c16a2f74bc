"""Seeded fuzzing of scalar-loop programs (tests/frontend/loop_fuzz_gen.py):
loops of every supported form with break/continue/while/early return,
carried scalars, element reads and writes, a helper function. Each program
compiled with @pipeline must return exactly what plain Python returns (bit
for bit, the same types) or raise the same exception type; a program the
frontend refuses must be refused with a located CompileError, and most
programs must compile. The seed is printed; PYHALIDE_FUZZ_SEEDS=start:count
runs other seeds. The nest fuzz adds a 2-D float input (NaN, infinities,
signed zeros, ties) and nests that conditionally write a row or column array
read in the condition (row maxima, argmax, guarded and chained forms)."""
import os
from collections import Counter

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.loop_fuzz_gen import LoopGen
from tests.frontend.test_array_fuzz import compare, fuzz_seeds, load

SEEDS = range(1)
SLOW_SEEDS = range(1, 8)
NEST_SEEDS = [6]         # 6: a program scalar updated beside a row's own (session 13)
SLOW_NEST_SEEDS = [0]
PROGRAMS_PER_SEED = 10
# the default run compiles the first DEFAULT_PROGRAMS programs of its seeds;
# the rest of those seeds' programs run as slow (PYHALIDE_FUZZ_SEEDS: all)
DEFAULT_PROGRAMS = PROGRAMS_PER_SEED if os.environ.get("PYHALIDE_FUZZ_SEEDS") else 5
# at least this share of the generated programs must compile
MIN_COMPILED = 0.3
# nests writing two arrays at a shared location (a row's argmax into two
# arrays) are refused at the read
MIN_COMPILED_NESTS = 0.2


def run_seed(seed, tmp_path, programs=range(PROGRAMS_PER_SEED), nests=False):
    """Compile and compare the seed's programs of the given indices (the
    others are drawn and skipped: each program's draw follows the last's)."""
    print(f"loop {'nest ' if nests else ''}fuzz seed {seed}, programs {programs}")
    rng = np.random.default_rng(seed)
    compiled, refusals = 0, Counter()
    for i in range(max(programs, default=-1) + 1):     # (none: PYHALIDE_FUZZ_SEEDS)
        g = LoopGen(rng, size=int(rng.integers(1, 9)), nests=nests)
        source = g.program()
        inputs = [g.inputs(), g.inputs()]
        if i not in programs:
            continue
        p = ph.pipeline(load(tmp_path, f"lf_{seed}_{i}", source))
        try:
            compiled += all([compare(p, args, source) for args in inputs])
        except ph.CompileError as e:
            text = str(e)
            assert f"lf_{seed}_{i}.py:" in text, f"refusal without a location: {text}\n{source}"
            refusals[text.splitlines()[0].split(": ", 1)[-1][:100]] += 1
    print(f"{compiled} of {len(programs)} compiled; refusals: {dict(refusals)}")
    return compiled


@pytest.mark.parametrize("seed", fuzz_seeds(SEEDS))
def test_loop_program_fuzz(seed, tmp_path):
    compiled = run_seed(seed, tmp_path, range(DEFAULT_PROGRAMS))
    assert compiled >= MIN_COMPILED * DEFAULT_PROGRAMS


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_loop_program_fuzz_rest_of_the_seed(seed, tmp_path):
    programs = range(DEFAULT_PROGRAMS, PROGRAMS_PER_SEED)
    compiled = run_seed(seed, tmp_path, programs)
    assert compiled >= MIN_COMPILED * len(programs)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_loop_program_fuzz_more_seeds(seed, tmp_path):
    compiled = run_seed(seed, tmp_path)
    assert compiled >= MIN_COMPILED * PROGRAMS_PER_SEED


@pytest.mark.parametrize("seed", fuzz_seeds(NEST_SEEDS))
def test_nest_program_fuzz(seed, tmp_path):
    compiled = run_seed(seed, tmp_path, range(DEFAULT_PROGRAMS), nests=True)
    assert compiled >= MIN_COMPILED_NESTS * DEFAULT_PROGRAMS


@pytest.mark.slow
@pytest.mark.parametrize("seed", NEST_SEEDS)
def test_nest_program_fuzz_rest_of_the_seed(seed, tmp_path):
    programs = range(DEFAULT_PROGRAMS, PROGRAMS_PER_SEED)
    compiled = run_seed(seed, tmp_path, programs, nests=True)
    assert compiled >= MIN_COMPILED_NESTS * len(programs)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_NEST_SEEDS)
def test_nest_program_fuzz_more_seeds(seed, tmp_path):
    compiled = run_seed(seed, tmp_path, nests=True)
    assert compiled >= MIN_COMPILED_NESTS * PROGRAMS_PER_SEED
