"""Seeded fuzzer (h2, session 29; docs/false_errors29.md): checks under an
`if` of data, in loops or not: loop-invariant index checks in array code
(`(x * y[k]).sum()`), broadcasts with an operand that may be empty
(`(c + a * b[k]).sum()`), element reads of views (`b[k:k + 1][0]`),
concatenations; each program called on 4 inputs and compared with plain
Python: equal / refused (CompileError) / false_error (Python returns,
compiled raises) / DIFFERENT (a wrong value or exception type: a failure).
Not a test (not collected). fuzz_if_checks28.py is its model.

    python tests/frontend/fuzz_if_checks29.py SEED NPROG [TREE]

TREE: the source tree imported (default: this one); generated programs go
to /tmp/fuzz_if_checks29/."""
import importlib.util
import os
import random
import sys
import warnings

tree = sys.argv[3] if len(sys.argv) > 3 else \
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, tree)
import numpy as np  # noqa: E402

from pyhalide import pipeline  # noqa: E402
from pyhalide.errors import CompileError  # noqa: E402

warnings.filterwarnings("ignore")

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
    ind = "    " * (depth + 1)
    lines = [f"def {name}(x, n, a, b, A, B, k):", "    s = 0.0"]
    if depth and rng.random() < 0.25:
        lines.append("    v = x * 1.0")
        carried = True
    else:
        carried = False
    if loop:
        lines.extend("    " + ln for ln in loop.split("\n"))
    if carried:
        lines.append(ind + "v = v * 0.5 + 1.0")
    lines.append(ind + f"if {cond}:")
    lines.append(ind + "    " + body.format(ind=ind + "    "))
    r = rng.random()
    if r < 0.25:
        lines.append(ind + "else:")
        lines.append(ind + "    s += 1.0")
    elif r < 0.35 and depth:
        lines.append(ind + "if s > 50.0:")
        lines.append(ind + "    break")
    if carried:
        lines.append("    return s + v.sum()")
    else:
        lines.append("    return s")
    return "\n".join(lines) + "\n", kind

def inputs(rng, kind):
    out = []
    for _ in range(4):
        x = rng.choice([np.zeros(4), np.array([0., 0., 6., 0.]), np.full(4, 10.0),
                        np.arange(5.0), np.zeros(1)])
        n = rng.choice([0, 1, 3, len(x)])
        def vec():
            return np.arange(float(rng.choice([0, 0, 1, 2, 3, 3, 4]))) + 1.0
        def mat():
            return np.ones((rng.choice([0, 1, 2, 3]), rng.choice([1, 2, 3]))) * 1.5
        a, b = vec(), vec()
        if rng.random() < 0.4:
            b = np.arange(float(len(a))) + 2.0
        A, B = mat(), mat()
        if kind.startswith("mm") and rng.random() < 0.4:
            B = np.ones((A.shape[1], A.shape[0] + 1))
        elif kind.startswith("mm") and rng.random() < 0.4:
            B = np.ones((A.shape[0], rng.choice([1, A.shape[1]]))) * 2.0
        if kind.startswith("vm") and rng.random() < 0.5:
            B = np.ones((len(a), 2))
        k = rng.choice([0, 1, 2, 5, -1, -7])
        out.append((x, n, a, b, A, B, k))
    return out

def outcome(f, args):
    try:
        r = f(*[v.copy() if isinstance(v, np.ndarray) else v for v in args])
        return ("ok", r)
    except CompileError as e:
        return ("refused", e)
    except Exception as e:
        return ("raise", e)

def main():
    seed, nprog = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    srcs = []
    kinds = []
    for p in range(nprog):
        src, kind = gen(rng, f"f{p}")
        srcs.append(src); kinds.append(kind)
    os.makedirs("/tmp/fuzz_if_checks29", exist_ok=True)
    path = f"/tmp/fuzz_if_checks29/gen_{seed}.py"
    open(path, "w").write("import numpy as np\n\n" + "\n\n".join(srcs))
    spec = importlib.util.spec_from_file_location(f"gen_{seed}", path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    counts = {"equal": 0, "refused": 0, "false_error": 0, "DIFFERENT": 0}
    for p in range(nprog):
        f = getattr(mod, f"f{p}")
        k = pipeline(f)
        for args in inputs(rng, kinds[p]):
            want = outcome(f, args)
            got = outcome(k, args)
            if got[0] == "refused":
                res = "refused"
            elif want[0] == "ok" and got[0] == "ok":
                w, g = np.asarray(want[1]), np.asarray(got[1])
                res = "equal" if (w.shape == g.shape and np.array_equal(w, g, equal_nan=True)) else "DIFFERENT"
            elif want[0] == "ok":
                res = "false_error"
            elif got[0] == "ok":
                res = "DIFFERENT"
            else:
                res = "equal" if type(want[1]) is type(got[1]) or isinstance(got[1], type(want[1])) else "DIFFERENT"
            counts[res] += 1
            if res != "equal":
                print(f"{res} seed={seed} f{p} args={tuple(a.shape if isinstance(a, np.ndarray) else a for a in args)} x={args[0]}")
                print("  PY", repr(want[1])[:150]); print("  PH", repr(got[1])[:250])
                if res != "refused": print(srcs[p])
    print("COUNTS", seed, counts)


if __name__ == "__main__":
    main()
