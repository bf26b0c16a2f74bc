"""Written arguments computed in place: the caller's array is the kernel's
output buffer, without the copy into a fresh buffer and the copy back
(arg_writes.py describes the copying protocol).

    in_place_run(spec, env, pipe, bufs, shapes, args) -> (call, positions) | None

A call is eligible when every written argument (positions `spec.written`)
is one real array (not complex), whose output Func is one of the pipeline's
own outputs (not wrapped to more dimensions), and, in this call: a NumPy
array of native byte order, C-contiguous, aligned, writeable, of the
output's shape and dtype, and at least MIN_BYTES large (below that the
copies cost less than what leaving the compiled entry of dispatch.py costs:
such keys take the Python fast path). The kernel is the in-place variant
(lowering/in_place.py: the output's copy stage dropped; refused where the
kernel would read the argument after changing it or could fail after a
store into it; or a variant that does not compile): the specialization then
remembers the refusal (`spec.in_place_refused`) and calls copy as before.

The argument is passed both as its input image (which the variant never
reads) and as the output buffer; the kernel's `noalias` holds, since only
the output is accessed."""
from __future__ import annotations

import numpy as np

from pyhalide.ir.config import debug_print
from pyhalide.ir.errors import CompileError, InPlaceRefused

# the smallest written argument computed in place (bytes)
MIN_BYTES = 1 << 16


def _pairs(spec):
    """(output Func name -> the argument's image name, [(flat output
    index, argument position, output slot)]) of the written arguments, or
    None when one of them cannot be computed in place."""
    written = spec.written
    flat_of, k = [], 0
    for _, dtypes in spec.output_layout():
        flat_of.append(k)
        k += len(dtypes)
    pairs, places = {}, []
    for name, pos, slots in zip(written.names, written.positions, written.slots):
        if len(slots) != 1:
            return None
        func, _ = spec.out_funcs[slots[0]]
        if spec.wrapped[slots[0]] is not func or len(spec.output_layout()[slots[0]][1]) != 1:
            return None
        image = spec.builder.inputs[name].image
        pairs[func.name()] = image.name()
        places.append((flat_of[slots[0]], pos, slots[0]))
    return pairs, places


def _eligible(a, shape, dtype) -> bool:
    return isinstance(a, np.ndarray) and a.dtype.isnative and a.flags.c_contiguous and \
        a.flags.aligned and a.flags.writeable and a.nbytes >= MIN_BYTES and \
        a.shape == tuple(shape) and a.dtype == dtype


def in_place_run(spec, env, pipe, bufs, shapes, args):
    """The kernel call (as pipe.kernel_call returns it) of the in-place
    variant on `bufs` (the outputs allocated for the call), the written
    arguments replacing their outputs (bufs is changed so), and the
    argument positions computed in place; None when the call is not
    eligible or the variant is refused (bufs unchanged)."""
    if spec.in_place_refused:
        return None
    made = spec.in_place_pairs
    if made is False:
        made = spec.in_place_pairs = _pairs(spec)
    if made is None:
        return None
    pairs, places = made
    layout = spec.output_layout()
    for flat, pos, slot in places:
        if not _eligible(args[pos], shapes[slot], layout[slot][1][0]):
            return None
    trial = list(bufs)
    for flat, pos, _ in places:
        trial[flat] = args[pos]
    try:
        call = spec.reported(env, pipe.kernel_call, trial, pairs)
    except (InPlaceRefused, CompileError) as e:      # (the copying kernel reports its own)
        debug_print(1, f"pyhalide: {spec.pf.name}: no in-place variant ({e})")
        spec.in_place_refused = True
        return None
    bufs[:] = trial
    return call, frozenset(pos for _, pos, _ in places)
