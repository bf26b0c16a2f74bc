"""Seeded fuzzer (h2, session 29; docs/false_errors29.md): checks under an
`if` of data, in loops or not: loop-invariant index checks in array code
(`(x * y[k]).sum()`), broadcasts with an operand that may be empty
(`(c + a * b[k]).sum()`), element reads of views (`b[k:k + 1][0]`),
concatenations; each program called on 4 inputs and compared with plain
Python: equal / refused (CompileError) / false_error (Python returns,
compiled raises) / DIFFERENT (a wrong value or exception type: a failure).
Not a test (not collected). Its program skeleton, inputs and runner are
fuzz_if_checks28.py's.

    python tests/frontend/fuzz_if_checks29.py SEED NPROG [TREE]

TREE: the source tree imported (default: this one); generated programs go
to /tmp/fuzz_if_checks29/."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_if_checks28 as f28  # noqa: E402  (puts TREE on sys.path)
import numpy as np  # noqa: E402

BODIES = [  # (statement, kind of args) a, b vectors; A, B matrices; k int
  ("s += (x * b[k]).sum()", "vvk"),
  ("s += (a * b[k]).sum()", "vvk"),
  ("s += (b + a * b[k]).sum()", "vvk"),
  ("s += (a + b).sum()", "vv"),
  ("s += (b * 2.0 + a).sum()", "vv"),
  ("s += np.maximum(a, b).sum()", "vv"),
  ("s += np.where(a > 1.0, a, b).sum()", "vv"),
  ("t = b[k:k + 1]\n{ind}s += (a * t[0]).sum()", "vvk"),
  ("t = b[k:k + 2]\n{ind}s += t[1]", "vvk"),
  ("s += A[k:k + 1, 1:][0, 0]", "mmk"),
  ("s += b[k]", "vvk"),
  ("s += (A[k] * 2.0).sum()", "mmk"),
  ("s += (a - b[k]).sum() + b[-1]", "vvk"),
  ("s += np.concatenate([a, b]).sum()", "vv"),
  ("s += np.vstack([A, B]).sum()", "mm"),
  ("s += (A + b).sum()", "mm"),
]
CONDS = ["x[{ix}] > {t}", "x[{ix}] * 2.0 > {t} and x[0] < 100.0", "x.sum() > {t}"]
LOOPS = [("", 0), ("for i in range(len(x)):", 1), ("for i in range(n):", 1),
         ("for j in range(2):\n    for i in range(len(x)):", 2)]

def gen(rng, name):
    body, kind = rng.choice(BODIES)
    loop, depth = rng.choice(LOOPS)
    cond = rng.choice(CONDS).format(t=rng.choice([0.5, 2.5, 5.0, 100.0]),
                                    ix="i" if depth else "0")
    return f28.program(rng, name, body, cond, loop, depth), kind

XS = f28.XS[:-1] + [np.zeros(1)]

def inputs(rng, kind):
    return f28.inputs(rng, kind, XS, [0, 0, 1, 2, 3, 3, 4])

def main():
    f28.run(int(sys.argv[1]), int(sys.argv[2]), gen, inputs, "fuzz_if_checks29")


if __name__ == "__main__":
    main()
