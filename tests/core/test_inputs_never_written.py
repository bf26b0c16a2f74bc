"""promote_accumulators keeps a loop-invariant element in a register for a
serial loop; it wrote the element back after the loop even when the loop
only read it, so the lowered code stored into input buffers (a read-only
input's pages would fault; LLVM usually removed the redundant store). A
buffer the loop only reads is now loaded once and never written."""
import re

import numpy as np

import pyhalide as ph


@ph.pipeline
def escape(cx, cy, maxiter):
    out = np.zeros(cx.shape, np.int64)
    for r in range(cx.shape[0]):
        for c in range(cx.shape[1]):
            x = 0.0
            y = 0.0
            i = 0
            while i < maxiter and x * x + y * y < 4.0:
                x, y = x * x - y * y + cx[r, c], 2 * x * y + cy[r, c]
                i += 1
            out[r, c] = i
    return out


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
