"""A compiled entry for a repeated Func.realize / Pipeline.realize: the
kernel call of a realize_fast record as one builtin function.

    realize_entry(kernel, buffers, n_inputs, values, given) -> builtin | None | False

The builtin (dispatch.py's compiled entry, built from a Layout made here)
takes the input arrays, in the kernel's order, and

- checks each is exactly an ndarray with the recorded dtype object, shape
  and strides and NumPy's aligned flag (else it returns dispatch.MISS);
- calls parallel_runtime.ensure_threads for a parallel kernel (its
  ValueError is the call's);
- takes the SIGINT cancel flag of interrupt.py when called from the main
  thread with the handler it was built under (else MISS: the Python path
  installs the handler again), a flag nothing sets from another thread;
- allocates the outputs (PyArray_Empty, C order, the recorded shapes),
  runs the kernel with the GIL released, and returns the output array (one
  output) or a tuple of them;
- on a kernel error releases the outputs, runs pending signal handlers
  (what they raise is the call's exception) and returns MISS: the caller
  then runs the Python path, which runs the kernel again and raises its
  error (a realize writes only its fresh outputs, so the run is the same).

The caller (realize_fast.realize_again) has checked what the entry does not
see: the Functions' versions (edit stamp), the sizes, the inputs' sources
(mins, a Buffer set on an ImageParam), the requirements.

None when it is not built: compiled entries unavailable (dispatch.py's
probes), a kernel with params (read from Param objects at each call by the
Python path), buffers not as the kernel describes them, outputs not fresh
C-ordered arrays. False when called from another thread than the main
one (building reads the Python SIGINT handler): the caller tries again at a
later call.
"""
from __future__ import annotations

import ctypes

import numpy as np

from .dispatch import (
    Arg,
    Layout,
    Out,
    Result,
    Source,
    available,
    kernel_slots,
    make_entry,
    signal_slots,
)
from .lowering import interrupt
from .lowering.codegen_llvm import CANCEL_SLOT
from .lowering.runtime import write_geometry

__all__ = ["realize_entry"]


def realize_entry(kernel, buffers, n_inputs: int, values=(), given: bool = False):
    """The compiled entry running `kernel` on input arrays of the geometry of
    buffers[:n_inputs] and fresh outputs like buffers[n_inputs:], with param
    values of the types of `values` (the kernel's params in order), or None.
    `given`: the outputs are arguments too (after the inputs, checked as
    they are), the entry returns None (realize_fast.realize_given)."""
    if not interrupt.in_main_thread():
        return False                 # (built later, from the main thread)
    if not available() or len(kernel.params) != len(values) or \
            len(kernel.buffers) != len(buffers):
        return None
    L = Layout()
    kernel_slots(L, kernel)
    for b, (spec, arr) in enumerate(zip(kernel.buffers, buffers)):
        if type(arr) is not np.ndarray or arr.ndim != spec.dimensions or \
                arr.dtype != spec.type.to_numpy():
            return None
        if b < n_inputs or given:
            a = Arg("array", arr.ndim)
            a.slots["type"] = L.obj(np.ndarray)
            a.slots["descr"] = L.obj(arr.dtype)
            a.slots["shape"] = L.words(arr.shape)
            a.slots["strides"] = L.words(arr.strides)
            L.args.append(a)
            s = Source("arg", b)
        else:
            if not arr.flags.c_contiguous or arr.strides != np.empty(arr.shape, arr.dtype).strides:
                return None
            o = Out(arr.ndim)
            o.slots["descr"] = L.obj(arr.dtype)
            o.slots["shape"] = L.words(arr.shape)
            L.outputs.append(o)
            s = Source("output", b - n_inputs)
        rows = (ctypes.c_int64 * max(3 * arr.ndim, 1))()   # as the kernel reads them
        write_geometry(spec, arr, rows)
        s.slots["geometry"] = L.slot(ctypes.addressof(rows), rows)
        L.buffers.append(s)
    for j, (par, v) in enumerate(zip(kernel.params, values)):
        arg = _param(L, par.type, v)
        if arg is None:
            return None
        L.args.append(arg)
        s = Source("arg", len(L.args) - 1)
        s.single = arg.kind == "float" and par.type.bits == 32
        L.params.append(s)
    outs = [Result("output", index=j) for j in range(len(L.outputs))]
    L.result = Result("object", slot=L.obj(None)) if given else \
        outs[0] if len(outs) == 1 else Result("tuple", items=outs)
    signal_slots(L)
    L.err_slots = CANCEL_SLOT
    return make_entry(L)


def _param(L: Layout, t, v):
    """The argument check of a param of type `t` whose value is `v` now: a
    Python int for an integer type up to 64 bits (its range checked: else
    MISS and the Python path raises), a Python float for Float(32) (rounded
    to float as the ctypes cell does) or Float(64); None for the rest (bool
    params, NumPy scalars, an int for a float param: the Python path)."""
    if type(v) is int and (t.is_int() or t.is_uint()) and not t.is_bool() and \
            t.bits in (8, 16, 32, 64) and int(t.max_value()) < 1 << 63:
        a = Arg("int")
        a.slots["type"] = L.obj(int)
        a.slots["lo"] = L.slot(int(t.min_value()))
        a.slots["hi"] = L.slot(int(t.max_value()))
        return a
    if type(v) is float and t.is_float() and t.bits in (32, 64):
        a = Arg("float", itemsize=8)
        a.slots["type"] = L.obj(float)
        return a
    return None
