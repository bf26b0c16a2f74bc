"""A loop whose carried state nothing reads still raises where Python's loop
raises (loop-nest fuzz seed 1000): `for i in range(6): if a[i] == 7: break`
with nothing else carried has only its stop flag, which no output read, so
the loop was never computed and an out-of-bounds read returned normally.
Such a top-level loop's state is now realized as an unreturned output
(check_order.unrealized_checked); in a nest, the inner loop's stop flag is
stored at each iteration of the enclosing loops (check_order.LoopSinks,
session 24; it was refused before)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


def search_only(a):
    for i in range(6):
        if a[i] == 7:
            break
    return 0


def while_search(a, n):
    i = 0
    while i < n:
        i += 1
        if a[i] == 7:
            break
    return n


def unused_count(a, n):
    s = 0
    for i in range(n):
        if a[i] == 7:
            break
        s += 1
    return 0


def nested_search(a, n):
    for i in range(n):
        for j in range(2):
            if a[i + j] == 7:
                break
    return 0


CASES = [(search_only, [np.array([1, 2, 3, 4])]),          # raises at i == 4
         (search_only, [np.array([1, 7, 3])]),             # breaks first: no error
         (search_only, np.arange(8)[None]),
         (while_search, [np.array([1, 2, 3]), 3]),         # raises at i == 3
         (while_search, [np.array([1, 2, 7]), 5]),
         (unused_count, [np.array([1, 2, 3]), 4]),
         (unused_count, [np.array([1, 7, 3]), 9]),
         (unused_count, [np.array([1, 2, 3]), 0])]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{f.__name__}-{k}" for k, (f, _) in
                                                 enumerate(CASES)])
def test_unused_loop_state_raises_as_python(fn, args):
    check(ph.pipeline(fn), *args)


def test_raises_index_error_at_the_read():
    with pytest.raises(IndexError, match="index 4 is out of bounds"):
        ph.pipeline(search_only)(np.array([1, 2, 3, 4]))


def test_unused_nested_loop_state_raises_as_python():
    compiled = ph.pipeline(nested_search)
    for a in ([1, 2, 3], [7, 2, 3], [1, 7, 3], [1, 2, 7], [1], [7]):
        for n in range(5):          # raises where i + j reaches len(a) before a 7
            check(compiled, np.array(a), n)
