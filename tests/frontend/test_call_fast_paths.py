"""Calls that used to miss the fast paths. A tuple argument (numpy-benchmarks'
check_mask: `mask=(1, 0, 1)`, a default) takes the compiled entry
(pyhalide/dispatch.py), which checks that it is the very tuple object of its
key (a tuple of scalars: the same object is the same value); an equal tuple of
another identity, or another tuple, takes the general path. Complex array
arguments (make_decision) take the Python fast path
(frontend_ast/direct_call.py: the parts' views passed to the kernel). Every
result equals plain Python's."""
import numpy as np

import pyhalide as ph
from pyhalide.dispatch import MISS
from tests.frontend.test_tuple_operands import check_mask  # numpy-benchmarks' kernel


def test_default_tuple_takes_the_compiled_entry():
    p = ph.pipeline(check_mask)
    rng = np.random.default_rng(0)
    db = rng.integers(0, 2, (1000, 4)).astype(bool)
    exp = check_mask(db)
    for _ in range(12):
        np.testing.assert_array_equal(p(db), exp)
    assert p._entry is not None
    got = p._entry(db, check_mask.__defaults__[0])
    assert got is not MISS
    np.testing.assert_array_equal(got, exp)
    # an equal tuple of another identity, another tuple: the general path
    other = tuple([1, 0, 1][k] for k in range(3))
    assert other is not check_mask.__defaults__[0]
    assert p._entry(db, other) is MISS
    np.testing.assert_array_equal(p(db, other), exp)
    for mask in ((1, 1, 1), (0, 0, 0), (True, False, True)):
        np.testing.assert_array_equal(p(db, mask), check_mask(db, mask))
    np.testing.assert_array_equal(p(db[:7]), check_mask(db[:7]))
    np.testing.assert_array_equal(p(db), exp)


def scaled_nearest(E, symbols, k):
    out = np.zeros(E.shape[0], dtype=E.dtype)
    for i in range(E.shape[0]):
        im = np.argmin(abs(E[i] - symbols) ** 2)
        out[i] = symbols[im] * k
    return out


def test_complex_arrays_take_the_fast_path():
    p = ph.pipeline(scaled_nearest)
    rng = np.random.default_rng(1)
    E = rng.standard_normal(37) + 1j * rng.standard_normal(37)
    sym = rng.standard_normal(5) + 1j * rng.standard_normal(5)
    for _ in range(6):
        np.testing.assert_array_equal(p(E, sym, 2.0), scaled_nearest(E, sym, 2.0))
    spec = p._last              # (not last_specialization: that hands the Funcs out)
    assert spec.direct is not None and spec.direct.entries
    assert spec.direct.call((E, sym, 2.0)) is not MISS
    # other data with the same key, views, complex64, another length, -0.0
    for args in ((E[::-1].copy(), sym, 3.0), (E[::2], sym, 1.0), (E[1:], sym[1:], -0.0),
                 (E.astype(np.complex64), sym.astype(np.complex64), 0.5),
                 (np.repeat(E, 2)[::2], sym, 2.0), (E[:0], sym, 2.0)):
        for _ in range(3):
            got, exp = p(*args), scaled_nearest(*args)
            assert got.dtype == exp.dtype
            np.testing.assert_array_equal(got, exp)
            np.testing.assert_array_equal(np.signbit(got.real), np.signbit(exp.real))
