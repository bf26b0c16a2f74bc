"""The written arguments of a compiled call entry (dispatch.py): a
specialization that writes into argument arrays (frontend_ast/arg_writes.py)
computes each one's final value into an output, which the entry copies into
the caller's array after the kernel succeeded (a failing kernel leaves the
arguments as they were, so the general path's run again computes the same).
A key the fast path computes in place (frontend_ast/in_place_args.py: the
argument is the output buffer, and the kernel cannot fail after storing
into it) passes the argument as that output and copies nothing.

    written_layout(L, spec, entry, args) -> [Written] | None

Before anything runs, the entry checks that each written argument is
writeable and that its bytes meet no other array argument's (the key fixes
shapes and strides: each array's byte span around its data pointer is a
constant of the key); else the call goes to the general path, which raises
NumPy's ValueError or runs a call whose arrays only interleave. None (no
entry) where the key itself is refused (a stride of 0 over several
elements), for a complex argument (two parts), or where the output's
geometry is not the argument's."""
from __future__ import annotations

import numpy as np


class Written:
    """One written argument: `arg` (its position), `output` (the output
    buffer holding its final value), `span` (slot of its byte span's two
    words), `others` ([(position, slot of its span)] of the other array
    arguments whose bytes could meet its) and `in_place` (the output buffer
    is the argument itself: frontend_ast/in_place_args.py; nothing to copy)."""

    def __init__(self, arg, output, span, others, in_place=False):
        self.arg, self.output, self.span, self.others = arg, output, span, others
        self.in_place = in_place


def byte_span(a: np.ndarray):
    """(lo, hi): the bytes of `a` are within [data + lo, data + hi); None
    when it has no element."""
    if a.size == 0:
        return None
    lo = sum(s * (n - 1) for s, n in zip(a.strides, a.shape) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(a.strides, a.shape) if s > 0) + a.itemsize
    return lo, hi


def written_layout(L, spec, entry, args):
    """[Written] for the written arguments of `spec` at the key of `args`
    (slots added to Layout L), or None (see the module doc)."""
    written = spec.written
    in_place = dict(getattr(entry, "in_place", ()))     # output index -> argument
    spans = {}
    for i, v in enumerate(args):
        if isinstance(v, np.ndarray):
            span = byte_span(v)
            if span is not None:
                spans[i] = L.words(span)
    out = []
    for k, slots in zip(written.positions, written.slots):
        a = args[k]
        if len(slots) != 1 or not isinstance(a, np.ndarray):
            return None
        if a.size and any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape)):
            return None
        flat = sum(c for c, _ in entry.slots[:slots[0]])
        full, dt = entry.allocs[flat]
        shape = entry.slots[slots[0]][1]
        if tuple(full if shape is None else shape) != a.shape or np.dtype(dt) != a.dtype:
            return None
        if k not in spans:                      # no element: nothing to copy or meet
            continue
        others = [(j, s) for j, s in spans.items() if j != k]
        out.append(Written(k, flat, spans[k], others, in_place.get(flat) == k))
    return out
