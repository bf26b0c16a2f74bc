"""The schedule-free reference evaluator: the oracle tests compare the JIT with.

It evaluates the algorithm — each Func's pure and update definitions —
directly with NumPy, and shares no code with `lowering/` (it imports only
NumPy, the standard library and `pyhalide.ir`), so it can catch lowering's
bugs.

    evaluate(funcs, outputs, region, inputs, params) -> list of arrays

- `funcs`: name -> `ir.Function`, every Func the outputs (transitively) call.
- `outputs`: names of the Funcs to evaluate.
- `region`: [(min, extent)] per dimension, dimension 0 first, the same for
  every output.
- `inputs`: image name -> NumPy array; `buf(x, y)` is `array[y, x]`. The
  params `<buf>.min.<d>` (0), `<buf>.extent.<d>` and `<buf>.stride.<d>` (in
  elements) come from these arrays.
- `params`: scalar param name -> value.

Returns, for each output and each of its tuple elements in order, an array
over the region with reversed axes (shape (extent_{n-1}, ..., extent_0)) and
the element type's dtype; a zero-dimensional Func gives a 0-d array.

Values are region-independent: a Func's value at a point is its pure
definition there, then each update in order (updates.py), wherever the
updates write. Modules: ops.py (operators), exprs.py (expressions),
funcs.py (Funcs, images, params), updates.py (update definitions),
chains.py (reductions into one point), points.py (sets of points).

Errors: an image read outside the array or of an unknown image raises
IndexError naming the image and the point; a wrong image dtype TypeError;
an unknown Func or param KeyError; a definition without meaning (no pure
definition, an update that reads its own pure Var elsewhere than at its own
position, ...) ValueError.
"""
from __future__ import annotations

import numpy as np

from ..ir.errors import counted
from ..ir.recursion import deep_entry
from .funcs import Realizer

__all__ = ["evaluate"]


@deep_entry
def evaluate(funcs: dict, outputs: list, region: list, inputs: dict, params: dict) -> list:
    realizer = Realizer(funcs, inputs or {}, params or {})
    region = [(int(m), int(e)) for m, e in region]
    results = []
    with np.errstate(all="ignore"):
        for name in outputs:
            f = realizer.function(name)
            if len(f.args) != len(region):
                raise ValueError(f"{name} has {counted(len(f.args), 'dimension')}, the region has {len(region)}")
            for value, expr in zip(realizer.realize(name, region), f.pure.values):
                results.append(np.array(value, dtype=expr.type.to_numpy(), copy=True))
    return results
