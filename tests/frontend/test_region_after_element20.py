"""An element write and a slice store of one array in one loop nest, the
slice store reading the element (issue 17's `a[i, 0] *= 2; a[i, 1:] =
a[i, 0]`, which raised an AttributeError from inside the frontend):
with a literal index, a one-element slice store (element_regions.py) and
both compile as one update in phases, equal to plain Python; with a
variable index, a located error. A slice store in a loop reading its array outside the stored
region (frontend_ast/region_disjoint.py proves it) compiles and equals
plain Python; one that may read its own region stays a located error."""
import numpy as np

from pyhalide import pipeline
from tests.frontend.located_errors import expect_error
from tests.frontend.outcomes import outcome


def element_then_row(a):
    n = a.shape[0]
    for i in range(n):
        a[i, 0] *= 2
        a[i, 1:] = a[i, 0]
    return a


def row_then_element(a):
    for i in range(a.shape[0]):
        a[i, 1:] = a[i, 0] + 1.0
        a[i, 0] = a[i, 1] * 3.0
    return a


def variable_column(a):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] *= 2
        a[i, 1:] = a[i, 0]
    return a


def separate_loops(a):
    n = a.shape[0]
    for i in range(n):
        a[i, 0] *= 2
    for i in range(n):
        a[i, 1:] = a[i, 0]
    return a


def other_row(a):
    for i in range(1, a.shape[0]):
        a[i, :] = a[i - 1, 0] * 2.0
    return a


def every_other(a):
    for i in range(a.shape[0]):
        a[i, 2::2] = a[i, 1] + a[i, -1]     # a[i, -1] is in the region for odd sizes
    return a


def own_region(a):
    for i in range(a.shape[0]):
        a[i, :2] = a[i, 1] + 1.0
    return a


def from_argument(a, k):
    for i in range(a.shape[0]):
        a[i, k:] = a[i, 0]                  # k = 0: the region holds the read
    return a


def test_reads_outside_the_region_compile():
    for fn in (separate_loops, other_row):
        for shape in ((4, 3), (3, 1), (1, 5), (2, 0)):
            a = np.arange(float(np.prod(shape))).reshape(shape)
            got, exp = outcome(pipeline(fn), a.copy()), outcome(fn, a.copy())
            assert got[0] == exp[0], (fn, shape)
            assert np.array_equal(got[1], exp[1]) if got[0] == "ok" else got == exp, (fn, shape)


def test_reads_maybe_inside_the_region_are_refused():
    a = np.arange(12.0).reshape(3, 4)
    expect_error(every_other, (a,), "a[i, 2::2] = a[i, 1] + a[i, -1]", "other elements")
    expect_error(own_region, (a,), "a[i, :2] = a[i, 1] + 1.0", "other elements")
    expect_error(from_argument, (a, 1), "a[i, k:] = a[i, 0]", "other elements")


def test_element_and_row_in_one_loop_as_python():
    for fn in (element_then_row, row_then_element):
        for shape in ((4, 3), (3, 1), (1, 5), (2, 0), (0, 3)):
            a = np.arange(float(np.prod(shape))).reshape(shape)
            plain, comp = a.copy(), a.copy()
            got, exp = outcome(pipeline(fn), comp), outcome(fn, plain)
            assert got[0] == exp[0], (fn, shape)
            if got[0] == "ok":
                assert np.array_equal(got[1], exp[1]) and np.array_equal(comp, plain), (fn, shape)
            else:
                assert got == exp, (fn, shape)


def test_variable_element_and_row_in_pythons_order():
    # (refused until session 27: phase mode's Blocks now run the nest in
    # Python's order, specialize._build_with_blocks)
    f = pipeline(variable_column)
    for shape in ((4, 3), (1, 1), (3, 5), (0, 2)):
        a = np.arange(float(np.prod(shape))).reshape(shape)
        np.testing.assert_array_equal(f(a.copy()), variable_column(a.copy()))


def test_separate_loops_compile():
    a = np.arange(12.0).reshape(4, 3)
    got, exp = pipeline(separate_loops)(a.copy()), separate_loops(a.copy())
    assert np.array_equal(got, exp)


def int_row(a):
    for i in range(a.shape[0]):
        a[i, 0] += 7
        a[i, 1:] = a[i, 0] // 3
    return a


def test_int_element_and_row_as_python():
    a = np.arange(12).reshape(4, 3)
    plain, comp = a.copy(), a.copy()
    assert np.array_equal(pipeline(int_row)(comp), int_row(plain))
    assert np.array_equal(comp, plain)
