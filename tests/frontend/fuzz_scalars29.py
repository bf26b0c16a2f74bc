"""Seeded fuzzer of scalar expressions (session 29, h4; docs/red_team29.md):
each seed is one program, a random expression over x, y, z (read from
1-element arrays of float64 / int64 / int8 / uint8 / float32, some through
float() or int()) with + - * / // % ** < == &, min, max, abs, round, int,
float, and/or/not, conditional expressions and chained comparisons,
compiled and called on 6 argument sets against plain Python. An argument set
whose plain-Python run would raise a Python int to a power past 4096 (with a
base of 2 or more: `3 ** 2**40` runs for hours) is skipped; the compiled
call's value there cannot fit in int64 anyway.

check_seed(seed): None where every call equals Python's (the value, its
type and the sign of a zero, or the same exception type), "refused" (a
located CompileError), "limit" (OverflowError or NotImplementedError where
Python returns: the documented limits, a false error), else a message: a
wrong value, an error Python raises and the compiled call lost, or another
exception. tests/frontend/test_seeded_fuzzers.py runs seeds in the slow run.

    python -m tests.frontend.fuzz_scalars29 FIRST COUNT"""
from __future__ import annotations

import ast
import math
import random
import sys
import warnings

import numpy as np

import pyhalide as ph
from tests.frontend.seed_runner import load_function, outcome, run_seeds

OPS = ["+", "-", "*", "/", "//", "%", "**", "<", "==", "min", "max", "abs", "neg", "int",
       "float", "round", "&", "and", "or", "not", "ifexp", "chain", "and", "or", "ifexp"]
VALS = [0, 1, -1, 3, -7, 2**40, 0.0, -0.0, 2.5, -2.5, 1e308, -1e-310, math.inf, -math.inf,
        math.nan, 7.0]
CALLS = 6


def _expr(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        r = rng.random()
        if r < 0.5:
            return rng.choice(["x", "y", "z"])
        if r < 0.7:
            return repr(rng.choice([0, 1, -1, 2, 3, -7, 2**31, 2**62, 10]))
        return repr(rng.choice([0.0, -0.0, 0.5, -1.5, 2.0, 1e300, 1e-300, 3.0]))
    op = rng.choice(OPS)
    a, b = _expr(rng, depth - 1), _expr(rng, depth - 1)
    if op in ("min", "max"):
        return f"{op}({a}, {b})"
    if op in ("abs", "int", "float", "round"):
        return f"{op}({a})"
    if op == "neg":
        return f"(-{a})"
    if op in ("and", "or"):
        return f"({a} {op} {b})"
    if op == "not":
        return f"(not {a})"
    if op == "ifexp":
        return f"({a} if {_expr(rng, depth - 1)} else {b})"
    if op == "chain":
        return f"({a} < {b} <= {_expr(rng, depth - 1)})"
    return f"({a} {op} {b})"        # + - * / // % ** < == &


def _program(seed):
    """(source of f(xa, ya, za), the conversion of each argument, the
    seed's generator after the source: it draws the arguments)."""
    rng = random.Random(seed)
    convs = [rng.choice(["", "float", "int"]) for _ in range(3)]
    head = "".join(f"    {v} = {c}({v}a[0])\n" if c else f"    {v} = {v}a[0]\n"
                   for v, c in zip("xyz", convs))
    src = f"def f(xa, ya, za):\n{head}    return {_expr(rng, rng.choice([2, 3, 3, 4]))}\n"
    return src, convs, rng


def kernel_source(seed) -> str:
    return _program(seed)[0]


def _argument(rng, conv):
    if conv == "int":
        if rng.random() < 0.5:
            return np.array([rng.choice([0, 1, -1, 3, -7, 2**40, 5])]).astype(
                rng.choice([np.int64, np.int8, np.uint8]))
        return np.array([rng.choice([0.0, 2.5, -2.5, 7.0, 1e10])])
    if rng.random() < 0.6:
        return np.array([rng.choice(VALS)], np.float64)
    return np.array([rng.choice([0, 1, -1, 3, -7, 127])]).astype(
        rng.choice([np.int64, np.int8, np.uint8, np.float32]))


class _TooBig(Exception):
    pass


def _pow(a, b):
    """a ** b, or _TooBig where both are Python ints, |a| >= 2 and b > 4096."""
    if type(a) is int and type(b) is int and abs(a) >= 2 and b > 4096:
        raise _TooBig
    return a ** b


class _Powers(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Pow):
            return node
        return ast.Call(ast.Name("_pow", ast.Load()), [node.left, node.right], [])


def _oracle(src):
    """The plain-Python f of src with each `**` through _pow."""
    tree = ast.fix_missing_locations(_Powers().visit(ast.parse(src)))
    env = {"_pow": _pow}
    exec(compile(tree, "<oracle>", "exec"), env)
    return env["f"]


def _same(want, got) -> bool:
    """The same value of the same type (NaN equal to NaN, a zero's sign compared)."""
    if type(want) is not type(got):
        return False
    if want != want:
        return got != got
    if isinstance(want, (float, np.floating)):
        return bool(want == got) and np.signbit(want) == np.signbit(got)
    return bool(want == got)


def check_seed(seed):
    src, convs, rng = _program(seed)
    k = ph.pipeline(load_function(src, f"s{seed}", "sfuzz_", "f"))
    f = _oracle(src)
    out = None
    for _ in range(CALLS):
        args = tuple(_argument(rng, c) for c in convs)
        want, _ = outcome(f, args)
        if want is _TooBig:
            continue
        got, _ = outcome(k, args)
        if isinstance(got, type) and issubclass(got, ph.CompileError):
            return "refused"
        if isinstance(want, type) and isinstance(got, type):
            if got is not want:
                return f"{args}: Python raises {want.__name__}, compiled {got.__name__}"
        elif isinstance(got, type):
            if got not in (OverflowError, NotImplementedError):
                return f"{args}: Python {want!r}, compiled raises {got.__name__}"
            out = "limit"
        elif isinstance(want, type):
            return f"{args}: Python raises {want.__name__}, compiled {got!r} (lost)"
        elif not _same(want, got):
            return f"{args}: Python {want!r}, compiled {got!r} (wrong)"
    return out


def main(argv):
    warnings.simplefilter("ignore")
    run_seeds(argv, check_seed, kernel_source, ok=(None, "refused", "limit"))


if __name__ == "__main__":
    main(sys.argv)
