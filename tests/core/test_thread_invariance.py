"""Results never depend on the thread count (PERFORMANCE.md, "Parallel
runtime"): every scheduled example pipeline — floats included — gives the
same bits with 1, 2 and 3 threads, since the chunks of a parallel loop are
fixed by the schedule, not by the number of threads."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.bench import suite2
from pyhalide.ir.config import override
from tests.example_scripts import load_example

blur_schedules = load_example("blur_schedules.py")
histeq_schedules = load_example("histogram_equalization_schedules.py")
rfactor_benchmarks = load_example("rfactor_benchmarks.py")

THREADS = (1, 2, 3)


def _bits(result) -> list:
    arrays = result if isinstance(result, (tuple, list)) else (result,)
    out = []
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        out.append((a.dtype.str, a.shape, a.tobytes()))
    return out


def _same_for_every_thread_count(run):
    results = []
    for n in THREADS:
        with override(num_threads=n):
            results.append(_bits(run()))
    for n, r in zip(THREADS[1:], results[1:]):
        assert r == results[0], f"{n} threads differ from 1 thread"


@pytest.mark.parametrize("schedule", blur_schedules.SCHEDULES, ids=lambda s: s.__name__)
def test_blur_schedules(schedule):
    image = np.random.default_rng(0).integers(0, 2**16, (72, 300), dtype=np.uint16)
    bx, by = blur_schedules.blur(image)
    x, y = by.args()
    schedule(x, y, bx, by)
    _same_for_every_thread_count(lambda: by.realize([298, 70]))


@pytest.mark.parametrize("schedule", histeq_schedules.SCHEDULES, ids=lambda s: s.__name__)
def test_histogram_equalization_schedules(schedule):
    image = np.random.default_rng(1).normal(100, 20, (97, 333)).clip(0, 255).astype(np.uint8)
    out_f, fs = histeq_schedules.algorithm(ph, image)
    schedule(ph, out_f, fs)
    _same_for_every_thread_count(lambda: out_f.realize([333, 97]))


def test_conv5x5_float_schedule():
    d = {"img": np.random.default_rng(2).random((68, 260), dtype=np.float32)}
    out_f, fs = suite2.alg_conv(ph, d)
    suite2.sched_conv(ph, out_f, fs)
    _same_for_every_thread_count(lambda: out_f.realize([256, 64]))


@pytest.mark.parametrize("name", list(rfactor_benchmarks.SCHEDULES))
def test_rfactor_benchmarks(name):
    _, factored = rfactor_benchmarks.build_pair(name, 16)
    sizes = rfactor_benchmarks.SIZES.get(name, [])
    _same_for_every_thread_count(lambda: factored.realize(sizes))


def _load_pipeline_example(name):
    return load_example(f"pipelines/{name}.py", f"thread_invariance_{name}")


def test_pipeline_paper_reductions_with_side_file_schedules():
    mod = _load_pipeline_example("paper_reductions")
    for p, args in mod.inputs(16, seed=3).items():
        _same_for_every_thread_count(lambda: p(*args))
        assert p.applied_schedule, f"{p.__name__} ran without its side-file schedule"


def test_pipeline_image_examples_with_side_file_schedules():
    blur = _load_pipeline_example("blur")
    img = np.random.default_rng(4).integers(0, 2**16, (66, 130), dtype=np.uint16)
    _same_for_every_thread_count(lambda: blur.blur(img))
    histeq = _load_pipeline_example("histogram_equalization")
    image = np.random.default_rng(5).normal(100, 20, (61, 77)).clip(0, 255).astype(np.uint8)
    _same_for_every_thread_count(lambda: histeq.equalize(image))
