"""An input read only under a condition is not loaded before its loop
(lowering/promote_accumulators.py): bounds inference needs an input's
elements only where its readers' conditions hold (`a[k]` under `if i > 5`,
read through `_unless_empty` only where `a` has an element), so a load moved
out of the loop would read an empty array's element 0 (no error, but outside
the buffer). Loads of read-only inputs moved out of a loop happen only where
the loop runs."""
import re

import numpy as np

import pyhalide as ph
from tests.frontend.frontend_check import same


@ph.pipeline
def late_reads(a, m, k):
    s = 0.0
    for i in range(m):
        if i > 5:
            s += a[k]
    return s


@ph.pipeline
def every_iteration(a, m, k):
    s = 0.0
    for i in range(m):
        s += a[k % a.shape[0]]
    return s


_LOAD_OF_A = re.compile(r"(?<![\w.$])a\[")


def _before_first_loop(text: str) -> str:
    return text.split("for (", 1)[0]


def test_conditional_input_load_stays_in_its_loop():
    for args in [(np.zeros(0), 3, 0), (np.zeros(0), 0, 0), (np.arange(3.0), 9, 1),
                 (np.arange(3.0), 9, -1)]:
        assert same(late_reads(*args), late_reads.py_func(*args)), args
    assert not _LOAD_OF_A.search(_before_first_loop(late_reads.lower("final")))


def test_hoisted_input_load_only_where_the_loop_runs():
    for args in [(np.arange(4.0), 0, 2), (np.arange(4.0), 5, 7)]:
        assert same(every_iteration(*args), every_iteration.py_func(*args)), args
    text = every_iteration.lower("final")
    before = _before_first_loop(text)
    if _LOAD_OF_A.search(before):          # moved out: under the loop's extent test
        assert re.search(r"if \(\(0 < ", before)
