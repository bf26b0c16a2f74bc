"""The schedule fuzzer (issue 4, item 5): random pipelines x random legal
schedules, each compared bit-exactly with the default schedule and the
reference evaluator, plus illegal requests that must raise CompileError.

The seed is fixed (so CI is reproducible) unless PYHALIDE_FUZZ_SEED is set
(`PYHALIDE_FUZZ_SEED=random` draws one); it is printed first
(`pytest -s` shows it, and the directive/tail histogram) and repeated in every
assertion message. Reproduce or widen a run with
`python examples/schedule_fuzz.py N_SEEDS FIRST_SEED`."""
import os
import random

import pytest

from tests.schedules.fuzz_schedules import DIRECTIVES, ILLEGAL, TAIL_KEYS, run_fuzz

DEFAULT_SEED = 20261121


def _seed() -> int:
    env = os.environ.get("PYHALIDE_FUZZ_SEED")
    if env == "random":
        return random.randrange(1 << 31)
    return int(env) if env else DEFAULT_SEED


def _check(report, minimum: int):
    text = report.summary()
    print(text)
    head = f"schedule fuzz seed {report.seed} (PYHALIDE_FUZZ_SEED={report.seed} reproduces)\n{text}"
    assert not report.failures, head + "\n\n" + "\n\n".join(str(f) for f in report.failures[:4])
    low = {k: report.drawn[k] for k in DIRECTIVES + TAIL_KEYS if report.drawn[k] < minimum}
    assert not low, f"drawn fewer than {minimum} times: {low}\n{head}"
    assert sum(report.illegal.values()) >= minimum, f"too few illegal requests checked\n{head}"
    assert report.realizations >= 2 * report.programs, head


def test_schedule_fuzz_short():
    seed = _seed()
    print(f"\nschedule fuzz seed {seed}", flush=True)
    # a fixed number of programs, as in the long run (the default seed draws every directive
    # and tail strategy in its first 4): a 35-second wall-clock budget made the programs
    # checked depend on the machine's load, and a loaded machine stopped before `tile`
    report = run_fuzz(seed, programs=12, schedules=3, time_budget=600.0, max_funcs=3,
                      max_guards=2, min_each=3)
    assert report.programs == 12, report.summary()
    _check(report, 1)


@pytest.mark.slow
def test_schedule_fuzz_long():
    seed = _seed()
    print(f"\nschedule fuzz seed {seed}", flush=True)
    # a fixed number of programs (the time budget is only a safety cap), so a CI machine of
    # any speed runs exactly the programs this seed makes
    report = run_fuzz(seed, programs=150, schedules=3, time_budget=1500.0, max_funcs=4,
                      max_guards=3, min_each=25)
    _check(report, 20)
    assert len(report.illegal) >= len(ILLEGAL) // 2, report.summary()
