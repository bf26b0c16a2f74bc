"""Where the suite's time goes, in CPU time (the machine is often shared, so
wall-clock durations mislead): a pytest plugin that records, per test, the
CPU time of its process and of the subprocesses it waited for, and the part
spent lowering (lowering.pipeline.lower) and compiling with LLVM
(lowering.pipeline.compile_lowered: codegen, optimization, object code);
and a summary by file.

    PYHALIDE_CPU_TIMES=/tmp/cpu python -m pytest -q -p tests.cpu_times -n 2 tests/core
    python -m tests.cpu_times /tmp/cpu [files to list] [tests to list]

Each process appends one JSON line per test (setup, call and teardown) to
`$PYHALIDE_CPU_TIMES.<pid>`; the summary reads every such file."""
import glob
import json
import os
import resource
import sys
import time

import pytest

_spent = {"lower": 0.0, "llvm": 0.0}
_out = None


def timed_into(spent, kind, fn):
    """fn, adding the CPU time of each call to spent[kind]."""
    def timed(*args, **kwargs):
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[kind] += time.process_time() - start
    return timed


def pytest_configure(config):
    global _out
    path = os.environ.get("PYHALIDE_CPU_TIMES")
    if not path:
        return
    from pyhalide.lowering import pipeline
    pipeline.lower = timed_into(_spent, "lower", pipeline.lower)
    pipeline.compile_lowered = timed_into(_spent, "llvm", pipeline.compile_lowered)
    _out = open(f"{path}.{os.getpid()}", "a")


def _cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if _out is None:
        yield
        return
    _spent.update(lower=0.0, llvm=0.0)
    start, wall = _cpu(), time.perf_counter()
    yield
    _out.write(json.dumps({"id": item.nodeid, "cpu": _cpu() - start,
                           "wall": time.perf_counter() - wall, **_spent}) + "\n")
    _out.flush()


def summary(path: str, files: int = 40, tests: int = 20) -> str:
    rows = []
    for name in glob.glob(glob.escape(path) + ".*"):
        with open(name) as f:
            rows.extend(json.loads(line) for line in f)
    per_file = {}
    for r in rows:
        s = per_file.setdefault(r["id"].split("::")[0], [0, 0.0, 0.0, 0.0])
        s[0] += 1
        s[1] += r["cpu"]
        s[2] += r["lower"]
        s[3] += r["llvm"]
    total = [sum(s[i] for s in per_file.values()) for i in range(4)]
    out = [f"{total[0]} tests: {total[1]:.0f} s CPU (lowering {total[2]:.0f} s, "
           f"LLVM compile {total[3]:.0f} s)", "   CPU s  tests  lower   llvm  file"]
    for name, s in sorted(per_file.items(), key=lambda kv: -kv[1][1])[:files]:
        out.append(f"{s[1]:8.1f} {s[0]:6d} {s[2]:6.1f} {s[3]:6.1f}  {name}")
    out.append("   CPU s  lower   llvm  test")
    for r in sorted(rows, key=lambda r: -r["cpu"])[:tests]:
        out.append(f"{r['cpu']:8.1f} {r['lower']:6.1f} {r['llvm']:6.1f}  {r['id']}")
    return "\n".join(out)


if __name__ == "__main__":
    print(summary(sys.argv[1], *map(int, sys.argv[2:4])))
