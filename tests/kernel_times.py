"""Per-kernel compile cost, in CPU time: a pytest plugin that logs, for each
kernel compiled (an object-cache miss), the test that compiled it, its LLVM
IR lines, and the CPU time of LLVM (optimization and object code:
jit._compile_object) and, since the previous kernel, of lowering
(pipeline.lower) and codegen (jit._build); and a ranking.

    PYHALIDE_KERNEL_LOG=/tmp/k python -m pytest -q -n 0 -p tests.kernel_times tests/frontend/...
    python -m tests.kernel_times /tmp/k [count]

Each process appends one JSON line per kernel to `$PYHALIDE_KERNEL_LOG.<pid>`;
the IR of a kernel of more than 1,500 lines or 0.4 s of LLVM is kept as
`$PYHALIDE_KERNEL_LOG.ir.<hash>.ll`."""
import collections
import glob
import hashlib
import json
import os
import sys
import time

from tests.cpu_times import timed_into

_spent = {"lower": 0.0, "codegen": 0.0}
_out = None




def pytest_configure(config):
    global _out
    path = os.environ.get("PYHALIDE_KERNEL_LOG")
    if not path:
        return
    from pyhalide.lowering import jit, pipeline
    pipeline.lower = timed_into(_spent, "lower", pipeline.lower)
    jit._build = timed_into(_spent, "codegen", jit._build)
    compile_object = jit._compile_object

    def logged(ir_text, *args, **kwargs):
        start = time.process_time()
        try:
            return compile_object(ir_text, *args, **kwargs)
        finally:
            _log(path, ir_text, time.process_time() - start)
    jit._compile_object = logged
    _out = open(f"{path}.{os.getpid()}", "a")


def _log(path, ir_text, llvm):
    lines = ir_text.count("\n")
    digest = hashlib.sha1(ir_text.encode()).hexdigest()[:12]
    if lines > 1500 or llvm > 0.4:
        with open(f"{path}.ir.{digest}.ll", "w") as f:
            f.write(ir_text)
    _out.write(json.dumps({"test": os.environ.get("PYTEST_CURRENT_TEST", "?"), "lines": lines,
                           "llvm": llvm, "lower": _spent["lower"],
                           "codegen": _spent["codegen"], "hash": digest}) + "\n")
    _out.flush()
    _spent.update(lower=0.0, codegen=0.0)


def main(path, count=15):
    rows = [json.loads(line) for f in glob.glob(f"{path}.[0-9]*") for line in open(f)]
    print(f"{len(rows)} kernels: LLVM {sum(r['llvm'] for r in rows):.1f} s, lowering "
          f"{sum(r['lower'] for r in rows):.1f} s, codegen {sum(r['codegen'] for r in rows):.1f} s")
    for key in ("llvm", "lines"):
        print(f"-- by {key}: LLVM s, IR lines, lowering s, codegen s, IR hash, test")
        for r in sorted(rows, key=lambda r: -r[key])[:count]:
            print(f"{r['llvm']:6.2f} {r['lines']:6d} {r['lower']:5.2f} {r['codegen']:5.2f} "
                  f"{r['hash']} {r['test']}")
    files = collections.defaultdict(lambda: [0, 0.0, 0])
    for r in rows:
        f = files[r["test"].split("::")[0]]
        f[0] += 1
        f[1] += r["llvm"]
        f[2] += r["lines"]
    print("-- by file: kernels, LLVM s, IR lines")
    for name, (n, llvm, lines) in sorted(files.items(), key=lambda x: -x[1][1]):
        print(f"{n:5d} {llvm:6.1f} {lines:8d} {name}")


if __name__ == "__main__":
    main(sys.argv[1], *[int(a) for a in sys.argv[2:3]])
