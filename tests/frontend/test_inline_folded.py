"""A helper of assignments and a return, called where it is evaluated only
sometimes (after `and`/`or`, in a branch of `x if c else y`, in a generator
expression's element), is inlined as one expression
(inline_calls._folded), compared with plain Python; an assignment whose
value would never be evaluated keeps the call refused."""
import numpy as np

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

A = np.array([3.0, -1.0, 4.0, 1.5, -5.0, 9.0])


def shifted_read(a, i):
    j = i + 1
    k = j % len(a)
    return a[k] * 2.0


def unused_read(a, i):
    t = a[i + 100]         # noqa: F841 (IndexError in Python, whatever the result)
    return a[0] + i


def in_branch(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] if a[i] > 0 else shifted_read(a, i)
    return s


def unused_in_branch(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] if a[i] > 0 else unused_read(a, i)
    return s


def test_assignments_fold_into_the_expression():
    check(ph.pipeline(in_branch), A)


def test_an_assignment_never_evaluated_is_refused():
    expect_error(unused_in_branch, (A,), "unused_read(a, i)", "only sometimes")
