"""The caller's arrays as they were before a plain-Python run.

check_order.raise_plain runs the plain function on the caller's own
arguments to learn which exception Python raises. Where the plain function
completes, the compiled call raises its own error (a limit of the compiled
code), which must leave the arguments as they were: `snapshot` copies each
writeable ndarray argument (also inside tuples and lists) before the run and
`restore` writes the copies back (np.copyto). The run is on the real arrays,
not on copies, so arguments that share memory stay aliased as Python sees
them (a call whose written argument shares memory with another is refused
before, arg_writes.WrittenArgs.check; arrays that only share memory with
what the function does not write need no care); restoring every copy, in
any order, gives the memory its old contents, since every copy holds the
contents from before the run."""
from __future__ import annotations

import numpy as np


def snapshot(values) -> list:
    """[(array, copy)] of the writeable ndarrays among `values` (nested in
    tuples and lists): the copies keep dtype and layout (order 'K')."""
    out = []
    todo = list(values)
    while todo:
        v = todo.pop()
        if isinstance(v, np.ndarray):
            if v.flags.writeable:
                out.append((v, np.copy(v, order="K")))
        elif isinstance(v, (tuple, list)):
            todo.extend(v)
    return out


def restore(saved: list) -> None:
    """Write each snapshot back into its array."""
    for arr, old in saved:
        np.copyto(arr, old, casting="no")
