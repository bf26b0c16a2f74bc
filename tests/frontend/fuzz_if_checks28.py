"""Seeded fuzzer (h4, session 28; docs/false_errors28.md): checks under an
`if` inside loops (shape checks of np.dot / stack / concatenate /
broadcasts / convolve, index checks), each program called on 4 inputs and
compared with plain Python: equal / refused (CompileError) / false_error
(Python returns, compiled raises) / DIFFERENT (a wrong value or exception
type: a failure). Not a test (not collected).

    python tests/frontend/fuzz_if_checks28.py SEED NPROG [TREE]

TREE: the source tree imported (default: this one); generated programs go
to /tmp/fuzz_if_checks28/."""
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
  ("s += np.dot(a, b)", "vv"),
  ("s += np.dot(A, B).sum()", "mm"),
  ("s += (A @ B).sum()", "mm"),
  ("s += (a @ B).sum()", "vm"),
  ("s += (a + b).sum()", "vv"),
  ("s += (a * b)[0]", "vv"),
  ("s += np.stack([a, b]).sum()", "vv"),
  ("s += np.concatenate([A, B]).sum()", "mm"),
  ("s += np.vstack([A, B]).sum()", "mm"),
  ("s += np.trapezoid(a, b)", "vv"),
  ("s += (a * b[k]).sum()", "vvk"),
  ("s += b[k]", "vvk"),
  ("s += A[k, 0]", "mmk"),
  ("s += np.convolve(a, b).sum()", "vv"),
  ("s += (A + B).sum()", "mm"),
  ("s += np.maximum(a, b).sum()", "vv"),
  ("t = a - b\n{ind}s += t.sum()", "vv"),
  ("s += np.stack([a, b, a]).sum()", "vv"),
  ("s += np.stack([a, a, b]).sum()", "vv"),
  ("s += (A * B).sum()", "mm"),
  ("s += (A - b).sum()", "mm"),
  ("s += np.correlate(a, b, 'same')[0]", "vv"),
  ("s += np.convolve(a, b, 'valid').sum() + np.dot(a, b)", "vv"),
  ("s += np.concatenate([A, B, A], axis=1).sum()", "mm"),
  ("s += (a * b[k + i]).sum()", "vvk"),
  ("s += (A[k] * a[k]).sum()", "vvk"),
  ("s += (a * b[k]).sum() if x[i] > 1.0 else 2.0", "vvk"),
  ("t = a * b[k]\n{ind}s += t.sum()", "vvk"),
]
CONDS = ["x[i] > {t}", "s > {t}", "x[i] * 2.0 > {t} and x[0] < 100.0", "x.sum() > {t}",
         "i > {ti}"]
LOOPS = [("for i in range(len(x)):", 1), ("for i in range(n):", 1),
         ("for i in range(len(x)):\n    for j in range(i):", 2),
         ("for j in range(2):\n    for i in range(len(x)):", 2)]

def gen(rng, name):
    body, kind = rng.choice(BODIES)
    cond = rng.choice(CONDS).format(t=rng.choice([0.5, 2.5, 5.0, 100.0]), ti=rng.choice([0, 2, 10]))
    loop, depth = rng.choice(LOOPS)
    return program(rng, name, body, cond, loop, depth), kind

def program(rng, name, body, cond, loop, depth):
    """The source of `name`: `body` under `if cond` in `loop` (of `depth`
    nested loops, none where 0), with a random carried array, else branch or
    break (fuzz_if_checks29.py uses it too)."""
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
    return "\n".join(lines) + "\n"

XS = [np.zeros(4), np.array([0., 0., 6., 0.]), np.full(4, 10.0), np.arange(5.0), np.zeros(0)]
LENGTHS = [0, 1, 2, 3, 3, 3, 4]

def inputs(rng, kind, xs=XS, lengths=LENGTHS):
    """4 argument tuples for a program of `kind`: x from xs, vectors of
    lengths drawn from `lengths`."""
    out = []
    for _ in range(4):
        x = rng.choice(xs)
        n = rng.choice([0, 1, 3, len(x)])
        def vec():
            return np.arange(float(rng.choice(lengths))) + 1.0
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

def run(seed, nprog, gen, inputs, tag):
    """Compares nprog programs of gen (seeded) with plain Python on their
    inputs; the programs are written to /tmp/<tag>/."""
    rng = random.Random(seed)
    srcs = []
    kinds = []
    for p in range(nprog):
        src, kind = gen(rng, f"f{p}")
        srcs.append(src); kinds.append(kind)
    os.makedirs(f"/tmp/{tag}", exist_ok=True)
    path = f"/tmp/{tag}/gen_{seed}.py"
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


def main():
    run(int(sys.argv[1]), int(sys.argv[2]), gen, inputs, "fuzz_if_checks28")


if __name__ == "__main__":
    main()
