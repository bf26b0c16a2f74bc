"""Compile every kernel of the corpus with ph.pipeline, run it on its
inputs and compare with plain Python: values, dtypes, shapes, the changes
made to argument arrays and the exception raised. Prints one row per
kernel (OK / COMPILE ERROR / WRONG / CRASH) and the count of kernels that
compile and match.

    python examples/numpy_kernels/run.py [name ...]
"""
from __future__ import annotations

import os
import re
import sys
import warnings

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "numpy_kernels"

import pyhalide as ph  # noqa: E402
from numpy_kernels import corpus  # noqa: E402

OK, COMPILE, WRONG, CRASH = "OK", "COMPILE ERROR", "WRONG", "CRASH"


class Outcome:
    """A kernel's status, a one-line detail and, for compile errors, the
    code the error points at."""

    def __init__(self, kernel, status, detail="", code="", feature=""):
        self.kernel, self.status, self.detail, self.code = kernel, status, detail, code
        self.feature = feature


def copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def plain(fn, args):
    """(result, exception) of the plain function on copies of args, and the copies."""
    a = copies(args)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*a), None, a
        except Exception as e:     # the compiled call must raise the same type
            return None, e, a


def differs(got, exp, ulps) -> str:
    """Why got is not exp ('' when equal): types, dtypes and shapes exactly;
    values bit-exact, or floats within ulps * eps * max|exp| when ulps is set."""
    if isinstance(exp, tuple):
        if not isinstance(got, tuple) or len(got) != len(exp):
            return f"expected a tuple of {len(exp)}, got {type(got).__name__}"
        return next((f"[{i}] {w}" for i, (g, e) in enumerate(zip(got, exp))
                     if (w := differs(g, e, ulps))), "")
    if type(got) is not type(exp):
        return f"type {type(got).__name__}, expected {type(exp).__name__}"
    if isinstance(exp, np.ndarray):
        if got.dtype != exp.dtype:
            return f"dtype {got.dtype}, expected {exp.dtype}"
        if got.shape != exp.shape:
            return f"shape {got.shape}, expected {exp.shape}"
    g, e = np.asarray(got), np.asarray(exp)
    if e.dtype.kind in "fc":
        if not np.array_equal(np.isnan(g), np.isnan(e)):
            return "nan in different places"
        ok = ~np.isnan(e)
        g, e = g[ok], e[ok]
        if ulps is None or e.size == 0 or not np.all(np.isfinite(e)):
            if np.array_equal(g, e) and np.array_equal(np.signbit(g.real), np.signbit(e.real)):
                return ""
            return f"values differ (bit-exact required): max |diff| {_maxdiff(g, e)}"
        bound = ulps * np.finfo(e.dtype).eps * max(float(np.max(np.abs(e))), 1e-300)
        err = float(np.max(np.abs(g.astype(e.dtype) - e)))
        return "" if err <= bound else f"max |diff| {err:.3g} > {ulps} ulp bound {bound:.3g}"
    return "" if np.array_equal(g, e) else "values differ"


def _maxdiff(g, e):
    with np.errstate(all="ignore"):
        d = np.abs(g.astype(np.complex128) - e.astype(np.complex128))
    return f"{float(np.max(d)) if d.size else 0:.3g}"


def feature(e) -> str:
    """The NumPy feature a located compile error stops at, in short: the
    function or method called around the located code, else the message."""
    reason = getattr(e, "reason", str(e).splitlines()[0])
    loc = getattr(e, "loc", None)
    text = loc.text if loc is not None else ""
    code = located_code(e)
    if "slic" in reason or "array store" in reason or "array subscript" in reason:
        kind = "assignment" if "assign" in reason or "store" in reason else "read"
        what = "slice" if "slic" in reason else "mask/array-index"
        return f"{what} {kind}"
    m = re.match(r"(np\.\w+(?:\.\w+)?|\w+\.\w+)", code)
    if m and code.startswith(m.group(1)) and not code.startswith("np.") and "(" not in code:
        return "." + m.group(1).split(".", 1)[1]          # an attribute: x.sum, a.T
    if m and m.group(1).startswith("np."):
        return m.group(1)
    calls = re.findall(r"(np\.[\w.]+|\.\w+)\(", text[:loc.col] if loc is not None else "")
    if "expected a scalar" in reason and calls:
        return calls[-1] + " of arrays"
    return reason


def located_code(e) -> str:
    """The source the compile error points at, or '' if it is not located."""
    loc = getattr(e, "loc", None)
    if loc is None or not loc.text:
        return ""
    return loc.text[loc.col:loc.col + loc.width].strip()


def run_kernel(k) -> Outcome:
    p = ph.pipeline(k.fn)
    for args in k.inputs():
        exp, exp_exc, exp_args = plain(k.fn, args)
        got_args = copies(args)
        try:
            got = p(*got_args)
        except ph.CompileError as e:
            code = located_code(e)
            reason = getattr(e, "reason", str(e).splitlines()[0])
            if not code:
                return Outcome(k, CRASH, f"CompileError without a location: {reason}")
            return Outcome(k, COMPILE, reason, code, feature(e))
        except Exception as e:
            if exp_exc is not None and isinstance(e, type(exp_exc)):
                continue
            what = f"raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            if exp_exc is not None:
                return Outcome(k, WRONG, f"{what}; plain Python raised {type(exp_exc).__name__}")
            return Outcome(k, CRASH, what)
        if exp_exc is not None:
            return Outcome(k, WRONG, f"returned; plain Python raised {type(exp_exc).__name__}: "
                                     f"{exp_exc}")
        why = differs(got, exp, k.ulps)
        for i, (g, e) in enumerate(zip(got_args, exp_args)):
            if not why and isinstance(e, np.ndarray):
                w = differs(g, e, k.ulps)
                why = f"argument {i} after the call: {w}" if w else ""
        if why:
            return Outcome(k, WRONG, f"{_case(args)}: {why}")
    return Outcome(k, OK)


def _case(args) -> str:
    return "(" + ", ".join(f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray)
                           else type(a).__name__ for a in args) + ")"


def run_all(names=()) -> list:
    kernels = [k for k in corpus.load() if not names or k.name in names]
    return [run_kernel(k) for k in kernels]


def table(outcomes) -> str:
    rows = []
    for o in outcomes:
        detail = o.detail if o.status != COMPILE else \
            f"[{o.feature}] {o.detail}  (at `{o.code}`)"
        rows.append(f"{o.kernel.name:22} {o.status:13} {detail[:150]}")
    n_ok = sum(o.status == OK for o in outcomes)
    rows.append(f"{n_ok} of {len(outcomes)} compile and match")
    return "\n".join(rows)


def blockers(outcomes) -> list:
    """(count, feature, kernel names) of the first compile error of each
    kernel, most frequent first."""
    names = {}
    for o in outcomes:
        if o.status == COMPILE:
            names.setdefault(o.feature, []).append(o.kernel.name)
    return sorted(((len(v), f, v) for f, v in names.items()), key=lambda t: (-t[0], t[1]))


def main(argv) -> int:
    outcomes = run_all(argv)
    print(table(outcomes))
    b = blockers(outcomes)
    if b:
        print("\nfirst compile error of each kernel, by feature:")
        for n, f, names in b:
            print(f"  {n:3}  {f[:60]:60} {' '.join(names)[:100]}")
    return 1 if any(o.status in (WRONG, CRASH) for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
