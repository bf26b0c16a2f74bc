"""Seeded fuzzer of scalar expressions (session 29, h4; docs/red_team29.md): random
expressions over x, y, z (read from 1-element arrays of float64 / int64 / int8 / uint8 /
float32, some through float() or int()) with + - * / // % ** < == & << >>, min, max,
abs, round, int, float, and/or/not, conditional expressions and chained comparisons,
each compiled and called on 6 argument sets against plain Python: equal / refused /
false_error (OverflowError or NotImplementedError: limits) / WRONG (a value) / LOST (an
error Python raises) / WRONGEXC (another exception). Not a test (not collected).

    python tests/frontend/fuzz_scalars29.py SEED NPROG (importing it runs nothing)"""
import importlib.util
import math
import os
import random
import sys
import tempfile
import warnings

import numpy as np

import pyhalide as ph


def main(argv):
    warnings.simplefilter("ignore")
    seed = int(argv[1]); N = int(argv[2])
    rng = random.Random(seed)
    OPS = ["+", "-", "*", "/", "//", "%", "**", "<", "==", "min", "max", "abs", "neg", "int", "float", "round", "&", "and", "or", "not", "ifexp", "chain", "and", "or", "ifexp"]
    def expr(d):
        if d == 0 or rng.random() < 0.25:
            r = rng.random()
            if r < 0.5: return rng.choice(["x", "y", "z"])
            if r < 0.7: return repr(rng.choice([0, 1, -1, 2, 3, -7, 2**31, 2**62, 10]))
            return repr(rng.choice([0.0, -0.0, 0.5, -1.5, 2.0, 1e300, 1e-300, 3.0]))
        op = rng.choice(OPS)
        a, b = expr(d - 1), expr(d - 1)
        if op in ("min", "max"): return f"{op}({a}, {b})"
        if op == "abs": return f"abs({a})"
        if op == "neg": return f"(-{a})"
        if op in ("int", "float", "round"): return f"{op}({a})"
        if op in ("<", "=="): return f"({a} {op} {b})"
        if op == "and": return f"({a} and {b})"
        if op == "or": return f"({a} or {b})"
        if op == "not": return f"(not {a})"
        if op == "ifexp": return f"({a} if {expr(d - 1)} else {b})"
        if op == "chain": return f"({a} < {b} <= {expr(d - 1)})"
        return f"({a} {op} {b})"
    VALS = [0, 1, -1, 3, -7, 2**40, 0.0, -0.0, 2.5, -2.5, 1e308, -1e-310, math.inf, -math.inf, math.nan, 7.0]
    d = tempfile.mkdtemp(prefix="sfuzz_")
    counts = {}
    for p in range(N):
        convs = [rng.choice(["", "float", "int"]) for _ in range(3)]
        head = "".join(f"    {v} = {c}({v}a[0])\n" if c else f"    {v} = {v}a[0]\n" for v, c in zip("xyz", convs))
        src = f"def f(xa, ya, za):\n{head}    return {expr(rng.choice([2, 3, 3, 4]))}\n"
        path = os.path.join(d, f"s{seed}_{p}.py"); open(path, "w").write(src)
        spec = importlib.util.spec_from_file_location(f"s{seed}_{p}", path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
        k = ph.pipeline(m.f)
        for _ in range(6):
            args = []
            for c in convs:
                if c == "int":
                    args.append(np.array([rng.choice([0, 1, -1, 3, -7, 2**40, 5])]).astype(rng.choice([np.int64, np.int8, np.uint8])) if rng.random() < .5 else np.array([rng.choice([0.0, 2.5, -2.5, 7.0, 1e10])]))
                else:
                    args.append(np.array([rng.choice(VALS)], np.float64) if rng.random() < 0.6 else np.array([rng.choice([0, 1, -1, 3, -7, 127])]).astype(rng.choice([np.int64, np.int8, np.uint8, np.float32])))
            args = tuple(args)
            try: want = ("ok", m.f(*args))
            except Exception as e: want = ("exc", type(e))
            try: got = ("ok", k(*args))
            except ph.CompileError: got = ("refused", None)
            except Exception as e: got = ("exc", type(e), str(e)[:100])
            if got[0] == "refused": res = "refused"
            elif want[0] == "ok" and got[0] == "ok":
                w, g = want[1], got[1]
                same = type(w) == type(g) and (w == g and (not isinstance(w, float) or math.copysign(1, w) == math.copysign(1, g)) or (w != w and g != g))
                if isinstance(w, (np.floating, np.integer, np.bool_)) or isinstance(g, (np.floating, np.integer, np.bool_)):
                    same = type(w) == type(g) and (w == g and np.signbit(w) == np.signbit(g) if isinstance(w, np.floating) else w == g) or (w != w and g != g and type(w) == type(g))
                res = "equal" if same else "WRONG"
            elif want[0] == "ok": res = "false_error" if got[1] in (OverflowError, NotImplementedError) else "WRONGEXC"
            elif got[0] == "ok": res = "LOST"
            else: res = "equal" if want[1] == got[1] else "WRONGEXC"
            counts[res] = counts.get(res, 0) + 1
            if res in ("WRONG", "LOST", "WRONGEXC"):
                print(res, src.strip().splitlines()[1:], args, "py", want, "ph", got, flush=True)
            if got[0] == "refused": break
    print("COUNTS", seed, counts)


if __name__ == "__main__":
    main(sys.argv)
