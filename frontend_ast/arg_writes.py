"""Argument arrays the function writes into, as in Python: the caller sees
the writes after the call.

A written argument is a local array whose pure definition copies the
argument (so every read in the function, before or after a write, sees
what Python sees there); its final version is an output of the pipeline,
copied back into the caller's array after the run (where the call and the
kernel allow, the caller's array is that output itself and nothing is
copied: in_place_args.py). Which arguments are
written is found by building: the first write into an argument set up
read-only raises arrays.ArgumentWritten, and the specialization is built
again with that argument writable (specialize.py).

At call time, before anything runs, a written argument that is read-only
raises NumPy's ValueError (even where this call would not run the write),
and one that shares memory with another array argument or with itself (a
stride of 0) is a ValueError too (the compiled reads of the other argument
would not see the writes)."""
from __future__ import annotations

import numpy as np

from .array_complex import ComplexArr
from .values import Arr


def make_writable(b, name) -> Arr:
    """Argument `name` of Builder `b` (set up, not yet built) becomes a
    local array copied from the argument: the Arr every name of the
    function holds stays the same object, its reads now go to its Funcs;
    b.inputs[name] is a new read-only Arr over the argument's ImageParam.
    A complex argument's two part arrays become local the same way."""
    arr = b.inputs[name]
    if isinstance(arr, ComplexArr):
        srcs = [_local_copy(b, part, name) for part in arr.parts()]
        arr.kind = "local"
        b.inputs[name] = ComplexArr(name, arr.ty, list(arr.shape), "input", arr.loc, *srcs)
        b.inputs[name].arg_name = name
        return arr
    b.inputs[name] = _local_copy(b, arr, name)
    return arr


def _local_copy(b, arr, name) -> Arr:
    """Make `arr` local, copied from a new input Arr over its image (returned)."""
    src = Arr(arr.name, arr.ty, list(arr.shape), "input", arr.loc)
    src.image, src.arg_name = arr.image, name
    src.layout = getattr(arr, "layout", None)
    src.part_of = getattr(arr, "part_of", None)
    arr.kind = "local"
    arr.image = None
    b.defs.copy_of[arr] = src
    return src


def written_parts(arr) -> list:
    """The real arrays holding a written argument's final value: the
    argument's own Arr, or a complex argument's real and imaginary parts."""
    return list(arr.parts()) if isinstance(arr, ComplexArr) else [arr]


class WrittenArgs:
    """The written arguments of one specialization: `positions` (indices
    into the argument list) and `slots` (for each, the output Func slots
    holding its final value: one, or a complex argument's real and
    imaginary parts)."""

    def __init__(self, params, names, slots):
        self.params = list(params)
        self.names = list(names)
        self.positions = [self.params.index(n) for n in names]
        self.slots = list(slots)

    def check(self, args):
        """NumPy's errors for a write into a read-only array, and the
        refusal of memory shared with another array argument, before
        anything is computed."""
        for name, k in zip(self.names, self.positions):
            a = args[k]
            if not a.flags.writeable:
                raise ValueError(f"assignment destination is read-only (argument {name!r} "
                                 f"is written by the function)")
            if a.size and any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape)):
                raise ValueError(f"argument {name!r} is written by the function and several of "
                                 f"its elements are one location in memory (a stride of 0); "
                                 f"pass a copy (e.g. {name}.copy())")
            for j, other in enumerate(args):
                if j == k or not isinstance(other, np.ndarray) or \
                        not np.may_share_memory(a, other):
                    continue
                if np.shares_memory(a, other):
                    raise ValueError(
                        f"argument {name!r} is written by the function and shares memory "
                        f"with argument {self.params[j]!r}; the compiled function reads "
                        f"{self.params[j]!r} as it was on entry, so this call is refused: "
                        f"pass a copy (e.g. {self.params[j]}.copy())")

    def copy_back(self, args, outs, skip=()):
        """The final values into the caller's arrays (any strides); those at
        positions `skip` were computed in place (in_place_args.py)."""
        for k, slots in zip(self.positions, self.slots):
            if k in skip:
                continue
            a = args[k]
            if len(slots) == 2:         # a complex argument: its real and imaginary parts
                np.copyto(a.real, outs[slots[0]][0].reshape(a.shape))
                np.copyto(a.imag, outs[slots[1]][0].reshape(a.shape))
            else:
                np.copyto(a, outs[slots[0]][0].reshape(a.shape))
