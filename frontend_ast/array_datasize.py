"""NumPy functions whose result has a size that depends on the array's
values: np.nonzero (and a.nonzero(), np.where with one argument:
array_ufuncs.py), np.argwhere, np.flatnonzero, np.unique, np.bincount,
np.extract, np.compress. An array's shape in compiled code comes from shapes,
len() and scalar arguments only (FRONTEND.md: a boolean-mask read is an
error for the same reason), so each is a located error whose hint names the
fixed-size way to write it."""
from __future__ import annotations

import numpy as np

from . import array_calls

_HINTS = {
    "nonzero": "use a mask instead (np.where(a != 0, x, y), a[mask] = v), or count with "
               "np.count_nonzero and loop over the array",
    "argwhere": "use a mask instead (np.where(cond, x, y)), or loop over the array",
    "flatnonzero": "use a mask instead (np.where(cond, x, y)), or loop over the array",
    "unique": "sort (np.sort) and compare neighbours (s[1:] != s[:-1]) for a fixed-size "
              "result",
    "bincount": "make the counts array yourself with a known length n: "
                "counts = np.zeros(n, np.int64); np.add.at(counts, x, 1)",
    "extract": "use np.where(cond, a, fill) for a fixed-size result",
    "compress": "use np.where(cond, a, fill) for a fixed-size result",
}


def _refuse(b, name, node):
    raise b.cx.err(node, f"the size of np.{name}'s result depends on the array's values, "
                         f"which compiled code does not support (array shapes come from "
                         f"shapes, len() and scalar arguments)", hint=_HINTS[name])


@array_calls.function(np.nonzero, np.argwhere, np.flatnonzero, np.unique, np.bincount,
                      np.extract, np.compress)
def _data_sized(b, fn, node):
    _refuse(b, fn.__name__, node)


@array_calls.method("nonzero")
def _nonzero_method(b, obj, name, node):
    _refuse(b, "nonzero", node)
