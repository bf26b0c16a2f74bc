"""The parallel runtime's split of a loop, read from the per-chunk log of
examples/reductions/pool_timeline.py (the tool that measures the runtime's
pieces around suite 1's max): the claimed ranges are, in order, a sixteenth
of what is left but at least ceil(extent / 256) iterations, whichever thread
claims them, cover the loop once, and the reduction equals NumPy's. Counts,
not times."""
import importlib.util
import pathlib

import numpy as np
import pytest

TOOL = pathlib.Path(__file__).parents[2] / "examples" / "reductions" / "pool_timeline.py"


@pytest.fixture(scope="module")
def tool():
    from pyhalide.lowering import parallel_runtime
    spec = importlib.util.spec_from_file_location("pool_timeline", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    latency, timed_max, cycles = mod._load()
    parallel_runtime.set_num_threads(2)     # a caller and a worker, on any host
    yield mod, latency, timed_max, cycles
    parallel_runtime.ensure_threads()       # back to the configured count


def expected_ranges(extent: int) -> list:
    """parallel_runtime's claim rule, one claim after another."""
    grain = -(-extent // 256)
    out, s = [], 0
    while s < extent:
        rem = extent - s
        size = max(rem >> 4, grain)
        e = s + size if rem > size else extent
        out.append((s, e))
        s = e
    return out


@pytest.mark.parametrize("log2, chunk", [(16, 64), (18, 1024), (14, 16384)])
def test_claims_follow_the_rule_and_cover_the_loop_once(tool, log2, chunk):
    mod, _, timed_max, cycles = tool
    a = np.random.default_rng(log2).integers(-2**31, 2**31 - 1, 1 << log2, dtype=np.int32)
    # timeline() checks the max against NumPy's
    _, log, start = mod.timeline(timed_max, 1.0, a, chunk, calls=3)
    ranges = sorted((int(lo), int(hi)) for lo, hi in log[:, 2:4])
    assert ranges == expected_ranges(a.size // chunk)
    assert (log[:, 1] >= log[:, 0]).all() and (log[:, 0] >= start).all()


def test_an_almost_empty_loop_runs_every_iteration(tool):
    _, latency, _, _ = tool
    buf = np.zeros(1024, np.int32)
    times = np.zeros(5, np.int64)
    latency(buf.ctypes.data, times.ctypes.data, 5, 512)
    # task(lo, hi) writes hi at lo: the chunk starts hold their ends
    starts = [s for s, _ in expected_ranges(512)]
    assert [int(buf[s]) for s in starts] == [e for _, e in expected_ranges(512)]
    assert (times > 0).all()
