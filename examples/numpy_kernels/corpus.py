"""The kernel record and the list of the corpus's modules."""
from __future__ import annotations

import importlib

MODULES = ("k_elementwise", "k_stencils", "k_reductions", "k_linalg", "k_create",
           "k_masks", "k_loops")


class Kernel:
    """A plain NumPy function, its inputs and how to compare its results.

    fn      the plain function (the oracle; run.py decorates it)
    inputs  fn() -> [tuple of arguments]: a few seeded cases (dtypes, shapes)
    uses    one line: the NumPy features the kernel uses
    ulps    None: results must be bit-exact; else floats may differ from plain
            Python by ulps * eps(dtype) * max|expected| (transcendental
            functions are within 2 ulp of NumPy's, matrix products reassociate)
    """

    def __init__(self, fn, inputs, uses, ulps=None):
        self.fn, self.inputs, self.uses, self.ulps = fn, inputs, uses, ulps
        self.name = fn.__name__


def load() -> list:
    """Every kernel of the corpus, in module order."""
    out = []
    for m in MODULES:
        out.extend(importlib.import_module(f"{__package__}.{m}").KERNELS)
    return out
