"""promote_accumulators keeps a loop-invariant element in a register for a
serial loop; it wrote the element back after the loop even when the loop
only read it, so the lowered code stored into input buffers (a read-only
input's pages would fault; LLVM usually removed the redundant store). A
buffer the loop only reads is now loaded once and never written."""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples"))
from escape_time import escape  # noqa: E402  (the example's @pipeline kernel)


def test_no_store_into_an_input_buffer():
    n = 8
    text = escape.lower("final", [("cx", "float64", (n, n)), ("cy", "float64", (n, n)),
                                  ("maxiter", "int64", None)])
    stores = [ln for ln in text.splitlines() if re.match(r"\s*c[xy]\[.*\] = ", ln)]
    assert not stores, stores


def test_read_only_inputs_give_plain_pythons_result():
    n = 16
    cx = np.linspace(-2, 1, n * n).reshape(n, n)
    cy = np.linspace(-1.5, 1.5, n * n).reshape(n, n).T.copy()
    cx.flags.writeable = False
    cy.flags.writeable = False
    np.testing.assert_array_equal(escape(cx, cy, 40), escape.py_func(cx, cy, 40))
