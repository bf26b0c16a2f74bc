"""The tuning mode of the automatic scheduler (issue 18):
`@ph.pipeline(schedule=ph.AutoschedulerParams("pyhalide", {"tune": "K"}))`
times up to K candidate schedules on the first call's arguments of a size
class, keeps the fastest and caches it on disk. Results equal plain Python
(integers) and the untuned automatic schedule bit for bit (floats: the
candidates never reassociate them differently)."""
import json

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.autoschedule import tune as tune_mod
from pyhalide.autoschedule.params import Knobs
from pyhalide.ir.config import override
from pyhalide.lowering import disk_cache


def float_sum(a):
    s = np.float32(0)
    for i in range(a.shape[0]):
        s += a[i] * a[i]
    return s


def scaled(a):
    out = np.empty_like(a)
    for y in range(a.shape[0]):
        for x in range(a.shape[1]):
            out[y, x] = a[y, x] * np.float32(0.1) + np.float32(0.7)
    return out


def histogram(img):
    h = np.zeros(256, np.int64)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            h[img[y, x]] += 1
    return h


def bump(a):
    for i in range(a.shape[0]):
        a[i] += 1
    return a.sum()


def _tuned(fn, k=4):
    return ph.pipeline(fn, schedule=ph.AutoschedulerParams("pyhalide", {"tune": str(k)}))


class _Timed(list):
    """The candidates timed, in order; `seconds` holds each one's time."""
    def __init__(self):
        super().__init__()
        self.seconds = []

    def clear(self):
        super().clear()
        self.seconds.clear()

    def fastest_source(self) -> str:
        best = min(range(len(self)), key=lambda i: (self.seconds[i], i))
        return self[best].schedule_info.auto.source


@pytest.fixture
def timed(monkeypatch, tmp_path):
    """The candidates timed (Specializations) and their times, in a fresh
    disk cache."""
    seen = _Timed()
    real = tune_mod._time

    def counting(cand, values, given):
        seconds, result = real(cand, values, given)
        seen.append(cand)
        seen.seconds.append(seconds)
        return seconds, result
    monkeypatch.setattr(tune_mod, "_time", counting)
    with override(cache_dir=str(tmp_path / "cache")):
        yield seen


def _bits(x):
    return np.asarray(x).tobytes()


def test_float_results_equal_the_untuned_schedule_bit_for_bit(timed):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(1 << 19).astype(np.float32)
    p = _tuned(float_sum)
    got = p(a)
    untuned = ph.pipeline(float_sum, schedule="auto")(a)
    assert type(got) is type(untuned) is np.float32
    assert _bits(got) == _bits(untuned)
    assert ".rfactor(" in p.schedule_source()     # reassociated, as the untuned one
    b = rng.standard_normal((1024, 600)).astype(np.float32)
    p = _tuned(scaled, 6)
    out = p(b)
    assert _bits(out) == _bits(ph.pipeline(scaled, schedule="auto")(b))
    assert _bits(out) == _bits(b * np.float32(0.1) + np.float32(0.7))
    assert len(timed) >= 3          # vectors, parallel thresholds: several distinct plans


def test_integer_candidates_are_timed_and_the_winner_cached(timed):
    img = np.random.default_rng(5).integers(0, 256, (1024, 512), dtype=np.uint8)
    expect = np.bincount(img.ravel(), minlength=256)
    p = _tuned(histogram)
    assert np.array_equal(p(img), expect)
    assert len(timed) == 4          # the chunk counts of an integer reduction differ
    assert any(".rfactor(" in c.schedule_info.auto.source for c in timed)
    # the winner is the fastest as timed (which one that is depends on the machine's load)
    assert p.schedule_source() == timed.fastest_source()
    winner = p.schedule_source()
    timed.clear()
    q = _tuned(histogram)           # a new process would see the same: the disk cache
    assert np.array_equal(q(img), expect)
    assert timed == []
    assert q.schedule_source() == winner
    img2 = np.random.default_rng(6).integers(0, 256, (1024, 600), dtype=np.uint8)
    assert np.array_equal(q(img2), np.bincount(img2.ravel(), minlength=256))
    assert timed == []              # the same size class: the same schedule, no tuning


def test_a_bad_cache_entry_is_ignored(timed):
    img = np.random.default_rng(5).integers(0, 256, (1024, 512), dtype=np.uint8)
    p = _tuned(histogram, 2)
    p(img)
    spec = p.last_specialization
    key, target = tune_mod.cache_key(p, spec, p.schedule_argument)
    disk_cache.write_entry(key, "autotune", {"target": target},
                           json.dumps({"fuse": "yes"}).encode())
    timed.clear()
    q = _tuned(histogram, 2)
    assert np.array_equal(q(img), np.bincount(img.ravel(), minlength=256))
    assert len(timed) == 2          # not read: tuned again


def test_arguments_it_writes_are_written_once(timed):
    a = np.arange(1 << 19, dtype=np.int64)
    expect = a + 1
    got = _tuned(bump, 3)(a)
    assert np.array_equal(a, expect)
    assert got == int(expect.sum())
    assert timed


def test_tune_parameter_checked():
    with pytest.raises(ValueError, match="tune must be"):
        ph.AutoschedulerParams("pyhalide", {"tune": "-1"})
    with pytest.raises(ValueError, match="tune must be an integer"):
        ph.AutoschedulerParams("pyhalide", {"tune": "many"})
    assert Knobs.from_json(Knobs(int_chunks=8).as_json()) == Knobs(int_chunks=8)
    with pytest.raises(ValueError):
        Knobs.from_json({"int_chunks": 8})


def test_func_api_tuning_says_how_to_tune():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = x * 2
    f.set_estimates([(0, 1000)])
    with pytest.raises(NotImplementedError, match="@pipeline"):
        ph.Pipeline([f]).apply_autoscheduler(
            params=ph.AutoschedulerParams("pyhalide", {"tune": "2"}))
