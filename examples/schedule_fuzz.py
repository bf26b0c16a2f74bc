"""Run the schedule fuzzer (tests/schedules/fuzz_schedules.py) for N seeds.

    python examples/schedule_fuzz.py [N_SEEDS [FIRST_SEED [PROGRAMS [all]]]]

Each seed runs PROGRAMS random pipelines (default 10) with 3 random legal
schedules each, comparing every result bit-exactly with the default schedule
and the reference evaluator, and checks that illegal requests raise
ph.CompileError. Prints each seed's directive/tail histogram and, for every
distinct failure, a reproducer with the schedule minimized. `all` also draws
the schedules of KNOWN_BUGS, which the fuzzer otherwise steers around (some
of them crash the process). Exit status 1 if anything failed.
"""
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from tests.schedules.fuzz_schedules import KNOWN_BUGS, minimized_reports, run_fuzz  # noqa: E402


def main(argv):
    n = int(argv[0]) if argv else 1
    first = int(argv[1]) if len(argv) > 1 else random.randrange(1 << 31)
    programs = int(argv[2]) if len(argv) > 2 else 10
    avoid = frozenset() if "all" in argv[3:] else frozenset(KNOWN_BUGS)
    failed = 0
    t0 = time.perf_counter()
    for seed in range(first, first + n):
        print(f"=== schedule fuzz seed {seed}", flush=True)
        report = run_fuzz(seed, programs=programs, schedules=3, avoid=avoid, min_each=3,
                          log=lambda s: print("  " + s, flush=True))
        print(report.summary(), flush=True)
        for text in minimized_reports(report.failures):
            print(text, flush=True)
        failed += len(report.failures)
    print(f"{n} seed(s) from {first}: {failed} failure(s) in {time.perf_counter() - t0:.0f}s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
