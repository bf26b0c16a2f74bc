"""The slow run's seeds of the seeded program fuzzers moving_fuzz28,
nest_fuzz29 and fuzz_scalars29 (tests/frontend/seed_runner.py): each seed's
program compiled and compared with plain Python; a failure names the seed
and shows the program. (The fuzzers' modules are not test files, which pytest
does not collect: their slow seeds ran nowhere before session 30.) More
seeds: `python -m tests.frontend.<fuzzer> FIRST COUNT`."""
import warnings

import pytest

from tests.frontend import fuzz_scalars29, moving_fuzz28, nest_fuzz29


def _check(fuzzer, seed, ok, source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # NumPy's warnings of the programs' values
        msg = fuzzer.check_seed(seed)
    assert msg in ok, f"seed {seed}\n{source(seed)}{msg}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_moving_slices(seed):
    _check(moving_fuzz28, seed, (None, "refused"), lambda s: moving_fuzz28.kernel_source(s)[0])


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_nests_with_slice_statements(seed):
    _check(nest_fuzz29, seed, (None, "refused", "limit"), nest_fuzz29.kernel_source)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_scalar_expressions(seed):
    _check(fuzz_scalars29, seed, (None, "refused", "limit"), fuzz_scalars29.kernel_source)
