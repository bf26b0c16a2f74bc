"""Peak memory of one call of a suite-4 benchmark, measured in a fresh
process: `python -m pyhalide.bench.suite4_memory NAME COLUMN PARAMS_JSON`
prints {"peak": bytes, "outputs": bytes, "buffers": [...]}.

The peak is the growth of the process's resident set during one call after
a warm-up (Linux: the high-water mark VmHWM, reset through
/proc/self/clear_refs, minus VmRSS before the call). It counts everything
the call touches: NumPy's temporaries (tracemalloc would see those too) and
pyhalide's intermediate buffers, which its JIT code allocates with
aligned_alloc, outside Python's allocator. glibc's malloc keeps freed
blocks for reuse below its mmap threshold, which it raises as large blocks
are freed; MALLOC_MMAP_THRESHOLD_ fixes it at 64 KiB, so that every large
block is mapped when allocated and unmapped when freed, and a call's
temporaries are new pages that the peak counts. `buffers` lists the Funcs
the pipeline's loop nest realizes (pyhalide only)."""
from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys

from .protocol import Unavailable


def _status(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise Unavailable(f"no {key} in /proc/self/status")


def measure(name: str, column: str, params: dict) -> dict:
    from . import suite4
    data = suite4.BENCHMARKS[name].make_data(params)
    args = data["args"]
    if column == "numpy":
        fn = suite4.K.NUMPY[name]
        runner = suite4.Runner(lambda: fn(*args))
    else:
        runner = suite4.pipeline_runner(name, args)
    if runner.compile is not None:
        runner.compile()
    result = runner.run()
    outputs = sum(x.nbytes for x in suite4.leaves(result))
    del result
    runner.run()
    gc.collect()
    before = _status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")                       # reset the high-water mark to the current RSS
    result = runner.run()
    peak = _status("VmHWM") - before
    del result
    buffers = []
    if column != "numpy":
        text = runner.pipeline.lower()
        buffers = sorted({n.split("$")[0] for n in re.findall(r"realize ([\w$]+)\(", text)})
    return {"peak": peak, "outputs": outputs, "buffers": buffers, "shape": list(args[0].shape)}


def peak_in_new_process(name: str, column: str, params: dict, timeout: float = 600) -> dict:
    """measure() in a fresh process with a fixed mmap threshold; {} where it
    cannot run (not Linux), with the reason in "error"."""
    if not os.path.exists("/proc/self/clear_refs"):
        return {"error": "needs Linux /proc/self/clear_refs"}
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    out = subprocess.run([sys.executable, "-m", "pyhalide.bench.suite4_memory", name, column,
                          json.dumps(params)], capture_output=True, text=True, env=env,
                         timeout=timeout)
    if out.returncode:
        lines = (out.stderr or out.stdout).strip().splitlines()
        return {"error": lines[-1] if lines else f"exit status {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]))))
