"""An argument named like a pure Var of the Funcs the frontend builds for a
reduction (NumPy's pairwise sum order: sum_order.py; min/max in lanes:
reduce_blocks.py). The lowering substitutes a stage's Vars by name, so a
Param `c` read inside a Func with a Var `c` was read as that Var's loop:
`np.sum(a * c)` returned 0.0 for c=3 (Python: 2460.0), with `j` 3080.0;
`np.sum(a[k:])` raised an internal TypeError. NumPy is the oracle."""
import importlib.util

import numpy as np
import pytest

import pyhalide as ph

SRC = '''
import numpy as np


def scaled_sum({n}, a):
    return np.sum(a * {n})


def tail_sum(a, {n}):
    return np.sum(a[{n}:])


def head_sum(a, {n}):
    return np.sum(a[:{n}])


def scaled_max(a, {n}):
    return np.max(a * {n})


def column_sums(a, {n}):
    return (a * {n}).sum(axis=0)
'''

# the names sum_order.py and reduce_blocks.py use for their Funcs' Vars
NAMES = ["b", "c", "j", "k", "l", "s", "i0", "i1"]
A1 = np.arange(1.0, 41.0)
A2 = np.arange(1.0, 81.0).reshape(40, 2)
CASES = {"scaled_sum": [(3, A1), (3, A2)], "tail_sum": [(A1, 3), (A1, -5)],
         "head_sum": [(A1, 17)], "scaled_max": [(A1, -2), (A2, 3)], "column_sums": [(A2, 3)]}
# the default run: each name where it went wrong or crashed, and the blocked max
CHEAP = [("c", "scaled_sum"), ("j", "scaled_sum"), ("k", "tail_sum"), ("s", "head_sum"),
         ("b", "scaled_max"), ("l", "scaled_max")]


def _module(tmp_path, n):
    path = tmp_path / f"named_{n}.py"
    path.write_text(SRC.format(n=n))
    spec = importlib.util.spec_from_file_location(f"named_{n}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check(tmp_path, n, fname):
    fn = getattr(_module(tmp_path, n), fname)
    p = ph.pipeline(fn)
    for args in CASES[fname]:
        try:
            got = p(*args)
        except ph.CompileError as e:       # a located refusal is allowed, never a crash
            assert getattr(e, "loc", None) is not None, (fname, n, e)
            continue
        exp = fn(*args)
        assert np.array_equal(got, exp) and np.asarray(got).dtype == np.asarray(exp).dtype, \
            (fname, n, got, exp)


@pytest.mark.parametrize("n, fname", CHEAP)
def test_argument_named_like_a_reduction_var(tmp_path, n, fname):
    check(tmp_path, n, fname)


@pytest.mark.slow
@pytest.mark.parametrize("fname", sorted(CASES))
@pytest.mark.parametrize("n", NAMES)
def test_every_name_and_reduction(tmp_path, n, fname):
    check(tmp_path, n, fname)


# a loop variable that rebinds an argument: values computed before the loop
# read the argument (the loop's pure Var was named like it: `rebind` returned
# a * i instead of a * 3)
def rebind(a, i):
    t = i * 1.0
    out = np.zeros(len(a))
    for i in range(len(a)):
        out[i] = a[i] * t
    return out


def rebind_scan(a, i):
    t = i * 1.0
    s = 0.0
    out = np.zeros(len(a))
    for i in range(len(a)):
        s += a[i] * t
        out[i] = s
    return out, s


def rebind_nest(a, j):
    t = j + 1
    out = np.zeros(a.shape)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * t + j
    return out


@pytest.mark.parametrize("fn, a", [(rebind, np.arange(1.0, 11.0)),
                                   (rebind_scan, np.arange(1.0, 11.0)),
                                   (rebind_nest, np.arange(12.0).reshape(3, 4))])
def test_loop_variable_rebinding_an_argument(fn, a):
    got, exp = ph.pipeline(fn)(a, 3), fn(a, 3)
    for g, e in zip(got if isinstance(exp, tuple) else [got],
                    exp if isinstance(exp, tuple) else [exp]):
        assert np.array_equal(g, e) and type(g) is type(e), (fn.__name__, g, e)
