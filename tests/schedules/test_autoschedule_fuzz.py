"""The schedule fuzzer's random pipelines under the automatic scheduler
(issue 18): with its size thresholds lowered so that the small programs get
rfactored reductions and parallel, vectorized stages, every result equals
the reference evaluator bit for bit (float reassociation off, so floats are
exact too), and a step the scheduler could not take was undone.
PYHALIDE_FUZZ_SEED=N (or `random`) runs another seed, as the schedule fuzz."""
import os
import random

import pytest

import pyhalide as ph
from pyhalide.autoschedule import plan
from tests.schedules.fuzz_pipelines import random_program
from tests.schedules.fuzz_schedules import _realize, _reference, _same, prog_dims

DEFAULT_SEED = 20261126
PROGRAMS = 12       # a fixed number: every machine runs the same programs
# kinds of the fuzzer's generator, one required per program: totals and
# histograms (the reductions the scheduler rfactors) most often
KINDS = ("total", "hist", "stencil", "total", "hist", "reduce", "total", "hist", "scatter",
         "tuple_func", "inline_reduction", "scan")


@pytest.fixture
def small_thresholds(monkeypatch):
    monkeypatch.setattr(plan, "MIN_REDUCTION", 2)
    monkeypatch.setattr(plan, "MIN_PARALLEL", 8)
    monkeypatch.setattr(plan, "CHUNKS", 4)
    monkeypatch.setattr(plan, "MIN_CHUNK", 2)


def test_random_pipelines_under_the_autoscheduler(small_thresholds):
    env = os.environ.get("PYHALIDE_FUZZ_SEED")
    seed = random.randrange(1 << 31) if env == "random" else int(env or DEFAULT_SEED)
    print(f"\nautoschedule fuzz seed {seed}", flush=True)
    rng = random.Random(seed)
    params = ph.AutoschedulerParams("pyhalide", {"parallelism": "2",
                                                 "float_reassociation": "false"})
    failures, rfactored, programs = [], 0, 0
    while programs < PROGRAMS:
        prog = random_program(rng, seed=programs, max_funcs=3,
                              require=KINDS[programs % len(KINDS)])
        programs += 1
        sizes = [rng.randint(9, 30) for _ in prog_dims(prog)]
        ns = {}
        exec(prog.source(), ns)
        for f in ns["OUTPUTS"]:
            f.set_estimates([(0, s) for s in sizes])
        for img in ns.values():
            if isinstance(img, ph.ImageParam):
                img.set_estimates([(0, 64)] * img.dimensions())
        result = ph.Pipeline(ns["OUTPUTS"]).apply_autoscheduler(params=params)
        rfactored += ".rfactor(" in result.schedule_source
        diff = _same(_realize(ns, sizes), _reference(ns, sizes))
        if diff:
            failures.append(f"{prog.source()}\n# sizes {sizes}\n{result.schedule_source}\n"
                            f"# {diff}")
    assert not failures, f"seed {seed}: {len(failures)} of {programs} differ; first:\n{failures[0]}"
    print(f"{rfactored} of {programs} programs rfactored")
    assert rfactored >= 3, rfactored
