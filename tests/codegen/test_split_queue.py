"""jit._compile_object: a large module is split into up to two parts per
thread (each part about split_module.MIN_SPLIT_LINES lines or more); the
threads take the largest part left as each finishes. Results equal NumPy's
with more parts than threads."""
import numpy as np

from pyhalide.ir.config import override
from pyhalide.lowering import jit, split_module
from pyhalide.lowering.split_module import MIN_SPLIT_LINES
from tests.backend.backend_util import realize_fresh
from tests.codegen.test_split_compile import _expected, _two_parallel_stages


def test_split_count():
    small = "x\n" * (3 * MIN_SPLIT_LINES - 1)
    large = "x\n" * (40 * MIN_SPLIT_LINES)
    assert jit._split_count(small, 2) == 2
    assert jit._split_count(large, 2) == 2 * jit.PARTS_PER_THREAD
    assert jit._split_count(large, 3) == 3 * jit.PARTS_PER_THREAD


def test_more_parts_than_threads_equal_numpy(monkeypatch):
    seen = []
    real = split_module.split_parts

    def split(text, parts=2, min_lines=None):
        out = real(text, 8, min_lines=0)
        seen.append(len(out))
        return out
    monkeypatch.setattr(jit, "split_parts", split)
    f, A = _two_parallel_stages()
    with override(cache_dir="", num_threads=2):
        got = realize_fresh(f)
    assert seen and seen[0] > 2
    np.testing.assert_array_equal(got, _expected(A))
