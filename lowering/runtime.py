"""NumPy marshalling and the entry call of a compiled kernel.

    BufferArg(name: str, type: ir.Type, dimensions: int, is_output: bool)
    Kernel(name, address, buffers, params, errors, keepalive=None, parallel=False)
    kernel(buffers: list[np.ndarray], params: list = ()) -> None
    kernel.prepared(buffers, params) -> PreparedCall;  prepared(buffers) -> None

A Kernel calls the JIT entry `int32 name(ptr args)` (codegen_llvm.py) on
NumPy arrays without copying them: `args` holds each array's data pointer
and a pointer to its geometry rows [min, extent, stride] in Halide order
(buffer dimension d is NumPy axis ndim-1-d, strides in elements, min 0), a
pointer to each scalar param's value, and the error array.

Before the call it checks every array: an np.ndarray of exactly the buffer's
dtype (TypeError), the buffer's number of dimensions (ValueError), aligned,
byte strides divisible by the item size, and extents, strides and every
element offset that fit int32 (ValueError), outputs writeable and sharing no memory with any other buffer
(ValueError). Scalar params must be numbers that fit their type (TypeError).
A failed check inside the kernel raises the Python exception its AssertStmt
names, with the message formatted with its arguments.

The pointer array and geometry rows are preallocated and only rewritten when
an array's shape or strides change; a second thread calling the same kernel
while the first is inside it gets its own scratch, so concurrent calls are
safe. A PreparedCall has its own scratch with the geometry rows and params
of one call already written and checked: its calls (on arrays of that
geometry, which its caller guarantees) write only the data pointers. The
ctypes call releases the GIL. A kernel with parallel loops first
sizes the thread pool to config.num_threads (parallel_runtime.py).

Ctrl-C (interrupt.py): a call from the main thread passes the cancel flag
the SIGINT handler sets, so it stops within a row or tile of work; then the
Python signal handlers run (KeyboardInterrupt), and if they return the call
runs again. Other threads' calls pass a flag nothing sets.
"""
from __future__ import annotations

import builtins
import ctypes
import dataclasses
import operator
import re
import struct
from dataclasses import dataclass

import numpy as np

from pyhalide import ir
from pyhalide.ir.errors import counted
from pyhalide.ir.forksafe import fresh_in_child

from . import interrupt, native_entry, parallel_runtime
from .codegen_llvm import CANCEL_SLOT, CANCELLED, FORWARD_SLOT, LAZY_ERROR
from .lazy_kernel import LazyState

__all__ = ["BufferArg", "Kernel", "PreparedCall"]

_INT32_MAX = (1 << 31) - 1

_CTYPES = {
    ("bool", 1): ctypes.c_uint8, ("int", 8): ctypes.c_int8, ("int", 16): ctypes.c_int16,
    ("int", 32): ctypes.c_int32, ("int", 64): ctypes.c_int64, ("uint", 8): ctypes.c_uint8,
    ("uint", 16): ctypes.c_uint16, ("uint", 32): ctypes.c_uint32,
    ("uint", 64): ctypes.c_uint64, ("float", 32): ctypes.c_float,
    ("float", 64): ctypes.c_double,
}

_ENTRY_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p)


@dataclass(frozen=True)
class BufferArg:
    """A buffer the kernel reads (inputs) or writes (outputs)."""

    name: str
    type: ir.Type
    dimensions: int
    is_output: bool


class _Scratch:
    """The per-call memory handed to the kernel: pointer array, geometry
    rows, param cells and the error array."""

    def __init__(self, kernel: "Kernel", items=()):
        nb, np_ = len(kernel.buffers), len(kernel.params)
        self.args = (ctypes.c_void_p * (2 * nb + np_ + 1))()
        # the entry is called with the array's address as an int: ctypes
        # converts an int argument faster than an array (~8 us less per call
        # with cold caches, after a bandwidth-bound kernel)
        self.address = ctypes.addressof(self.args)
        self.geometry = [(ctypes.c_int64 * max(3 * b.dimensions, 1))() for b in kernel.buffers]
        self.last = [None] * nb            # (shape, strides) the rows describe
        self.span = [(0, 0)] * nb           # bytes an array covers, from its data pointer
        self.ptrs = [0] * nb
        self.cells = [_CTYPES[(p.type.code, p.type.bits)]() for p in kernel.params]
        self.err = (ctypes.c_int64 * (FORWARD_SLOT + 1))()
        if kernel.lazy is not None:
            self.err[FORWARD_SLOT] = kernel.lazy.address
        self.never = ctypes.c_int64(0)     # the cancel flag of a call nothing interrupts
        self.never_address = ctypes.addressof(self.never)
        for i, g in enumerate(self.geometry):
            self.args[2 * i + 1] = ctypes.addressof(g)
        for j, c in enumerate(self.cells):
            self.args[2 * nb + j] = ctypes.addressof(c)
        self.args[2 * nb + np_] = ctypes.addressof(self.err)
        # the entry as a builtin that writes the data pointers of the arrays
        # it is given (those of item sizes `items` checked), clears err[0]
        # and the cancel flag (native_entry.py; None: called through
        # ctypes), and the flag address err[CANCEL_SLOT] holds (written when
        # it changes)
        made = native_entry.entry_function(kernel.address, self.address,
                                           ctypes.addressof(self.err), _HEAD, items)
        self.enter, self._block = made if made is not None else (None, None)
        self.flag = None


class Kernel:
    """A compiled pipeline, callable as kernel(buffers, params)."""

    def __init__(self, name: str, address: int, buffers, params, errors, keepalive=None,
                 parallel: bool = False):
        if not address:
            raise RuntimeError(f"kernel {name}: null entry address")
        self.name = name
        self.buffers = tuple(buffers)
        self.params = tuple(params)
        self.errors = tuple(errors)
        self.address = address
        self._keepalive = keepalive        # owns the machine code (the JIT engine)
        self._fn = _ENTRY_TYPE(address)
        self._dtypes = tuple(b.type.to_numpy() for b in self.buffers)
        self._outputs = tuple(i for i, b in enumerate(self.buffers) if b.is_output)
        self._output_set = frozenset(self._outputs)
        self._param_check = tuple(_param_converter(p) for p in self.params)
        # compiled without some cold copies: lazy_kernel.py
        self.lazy = LazyState(self.errors) if any(
            e.error == LAZY_ERROR for e in self.errors) else None
        self._rename = None                 # (a renamed copy) its message renaming
        self._scratch = _Scratch(self)
        fresh_in_child(self, "_lock")     # owns _scratch during a call
        self.parallel = parallel           # calls the parallel runtime
        # token -> name, of the graph it was compiled from (graph.canonical):
        # with_names renames its buffers, params and messages
        self.names = {}
        self._renamed = {}

    def __repr__(self):
        return f"<Kernel {self.name}: {len(self.buffers)} buffers, {len(self.params)} params>"

    def __call__(self, buffers, params=(), fresh_outputs: bool = False):
        """Run on `buffers` (inputs then outputs, NumPy arrays) and `params`.
        fresh_outputs: the caller allocated the output arrays just now, so
        they are writeable and share memory with nothing (not checked)."""
        if self._lock.acquire(False):
            scratch, lock = self._scratch, self._lock
        else:                               # another thread is inside: private scratch
            scratch, lock = _Scratch(self), None
        try:
            self._fill(scratch, buffers, params, fresh_outputs)
            self._invoke(scratch)
        finally:
            if lock is not None:
                lock.release()

    def with_names(self, canonical: dict) -> "Kernel":
        """This kernel for a graph equal to the one it was compiled from up to
        the names of Funcs, Vars, RVars, images and Params (`canonical`: that
        graph's token -> name, pyhalide/graph.py): the same code, with the
        buffer and param names and error messages in that graph's names."""
        mine = self.names
        if mine == canonical:
            return self
        rename = {}
        for t in sorted(mine, key=lambda t: t[1] == "f"):   # Func names win a clash
            if t in canonical and canonical[t] != mine[t]:
                rename[mine[t]] = canonical[t]
        if not rename:
            return self
        key = tuple(sorted(rename.items()))
        other = self._renamed.get(key)
        if other is None:
            if len(self._renamed) >= 16:
                self._renamed.clear()
            other = self._renamed[key] = self._renamed_copy(rename)
        return other

    def _renamed_copy(self, rename: dict) -> "Kernel":
        pattern = re.compile(r"(?<![\w$.'])(" + "|".join(
            re.escape(n) for n in sorted(rename, key=len, reverse=True)) + r")(?![\w$])")

        def text(s: str) -> str:
            return pattern.sub(lambda m: rename[m.group(1)], s)
        buffers = [BufferArg(text(b.name), b.type, b.dimensions, b.is_output)
                   for b in self.buffers]
        params = [ir.ScalarParam(text(p.name), p.type) for p in self.params]
        errors = [dataclasses.replace(e, message=text(e.message)) for e in self.errors]
        other = Kernel(self.name, self.address, buffers, params, errors,
                       keepalive=self._keepalive, parallel=self.parallel)
        if self.lazy is not None:          # (one whole kernel for all the copies)
            other.lazy = self.lazy
            other._scratch.err[FORWARD_SLOT] = self.lazy.address
            other._rename = text
        other.object_key = getattr(self, "object_key", None)
        other.names = {t: rename.get(n, n) for t, n in self.names.items()}
        return other

    def prepared(self, buffers, params, live=(), exact=(),
                 check_alignment: int = 0) -> "PreparedCall":
        """A call of this kernel on arrays of the geometry of `buffers` (inputs,
        then freshly allocated outputs) with these `params`, checked now,
        except the params at positions `live`, passed at each call (`exact`:
        per live param, whether the caller guarantees a value of the param's
        own type, stored without the check; `check_alignment`: each call
        checks that the data pointers of that many first buffers are
        aligned, as a Kernel call does)."""
        return PreparedCall(self, buffers, params, live, exact, check_alignment)

    def _fill(self, scratch, buffers, params, fresh_outputs):
        """Check the arrays and params and write them into `scratch`."""
        nb = len(self.buffers)
        if len(buffers) != nb:
            raise ValueError(f"kernel {self.name} takes {nb} buffers, got {len(buffers)}")
        if len(params) != len(self.params):
            raise ValueError(f"kernel {self.name} takes {len(self.params)} params, "
                             f"got {len(params)}")
        args = scratch.args
        ptrs = scratch.ptrs
        last = scratch.last
        dtypes = self._dtypes
        for i, arr in enumerate(buffers):
            if not isinstance(arr, np.ndarray):
                raise TypeError(f"buffer {self.buffers[i].name} must be a numpy.ndarray, "
                                f"not {type(arr).__name__}")
            if arr.dtype != dtypes[i]:
                raise TypeError(f"buffer {self.buffers[i].name} has dtype {arr.dtype}; "
                                f"expected {dtypes[i]}")
            geom = (arr.shape, arr.strides)
            if geom != last[i]:                 # (the same shape: the same ndim)
                spec = self.buffers[i]
                if arr.ndim != spec.dimensions:
                    raise ValueError(f"buffer {spec.name} has {counted(arr.ndim, 'dimension')}; "
                                     f"expected {spec.dimensions}")
                scratch.span[i] = write_geometry(spec, arr, scratch.geometry[i])
                last[i] = geom
            p = _data_pointer(arr)
            # strides are whole items (write_geometry): the pointer decides
            if p % arr.itemsize and not arr.flags.aligned:
                raise _misaligned(self.buffers[i])
            ptrs[i] = args[2 * i] = p
        if self._outputs and not fresh_outputs:
            self._check_outputs(buffers, scratch)
        for j, conv in enumerate(self._param_check):
            scratch.cells[j].value = conv(params[j])

    def _invoke(self, scratch, arrays=()):
        """Call the entry on the filled `scratch` (`arrays`: ndarrays whose
        data pointers the native entry writes first, scratch.enter only);
        raise what its error array reports."""
        if self.parallel or (self.lazy is not None and self.lazy.full is not None
                             and self.lazy.full.parallel):
            parallel_runtime.ensure_threads()
        err = scratch.err
        enter = scratch.enter
        while True:
            if enter is not None:          # (it clears err[0] and the flag)
                flag = interrupt.cancel_address(scratch.never_address)
                if flag != scratch.flag:
                    err[CANCEL_SLOT] = scratch.flag = flag
                rc = enter(*arrays)
                if rc == 0:
                    return
                arrays = self._failed(scratch, rc, arrays)
                continue
            err[0] = 0
            err[CANCEL_SLOT] = (interrupt.in_main_thread() and interrupt.cancel_flag_for_call()) \
                or scratch.never_address
            if self._fn(scratch.address) == 0:
                return
            self._failed(scratch, 1, ())

    def _failed(self, scratch, rc: int, arrays):
        """After a call that returned rc != 0: raise its error, or (a call
        stopped by the cancel flag, the signal handlers returning; the native
        entry finding a misaligned pointer, NumPy calling the array aligned)
        return the arrays to pass when it runs again."""
        if rc == native_entry.MISALIGNED:
            self._write_pointers(scratch, arrays)    # raises if misaligned
            return ()
        if self.lazy is not None and scratch.err[0] in self.lazy.lazy_codes:
            self.lazy.complete()          # a left-out copy needed: the whole kernel
            return arrays
        if scratch.err[0] != CANCELLED:
            self._raise(scratch.err)
        interrupt.stopped_by_signal()   # KeyboardInterrupt, unless a handler returns
        return arrays

    def _write_pointers(self, scratch, arrays):
        """Write the data pointers of `arrays` into `scratch` (what the
        native entry does); ValueError for a misaligned array."""
        for i, arr in enumerate(arrays):
            p = _data_pointer(arr)
            if p % arr.itemsize and not arr.flags.aligned:
                raise _misaligned(self.buffers[i])
            scratch.args[2 * i] = p

    def _check_outputs(self, buffers, scratch):
        """Outputs are writeable and share no memory with another buffer:
        byte ranges that meet (what np.may_share_memory compares; an empty
        array covers none) are found by a sweep in address order, and only
        those pairs get the exact test."""
        ptrs, span = scratch.ptrs, scratch.span
        ranges = sorted((ptrs[j] + lo, ptrs[j] + hi, j)
                        for j, (lo, hi) in enumerate(span) if hi > lo)
        meets = {}                              # output -> buffers whose ranges meet its
        outputs = self._output_set
        for a, (_, hi_a, ja) in enumerate(ranges):
            for lo_b, _, jb in ranges[a + 1:]:
                if lo_b >= hi_a:
                    break
                if ja in outputs:
                    meets.setdefault(ja, []).append(jb)
                if jb in outputs:
                    meets.setdefault(jb, []).append(ja)
        for i in self._outputs:
            out = buffers[i]
            spec = self.buffers[i]
            if not out.flags.writeable:
                raise ValueError(f"output buffer {spec.name} is not writeable")
            for j in sorted(meets.get(i, ())):
                try:
                    overlap = np.shares_memory(out, buffers[j], max_work=1 << 16)
                except np.exceptions.TooHardError:
                    overlap = True
                if overlap:
                    raise ValueError(f"output buffer {spec.name} shares memory with buffer "
                                     f"{self.buffers[j].name}; pass distinct arrays")

    def _raise(self, err):
        code = err[0]
        rec = self.lazy.record(code) if self.lazy is not None else None
        if rec is not None:                 # the whole kernel's (lazy_kernel.py)
            if self._rename is not None:
                rec = dataclasses.replace(rec, message=self._rename(rec.message))
        elif not 1 <= code <= len(self.errors):
            raise RuntimeError(f"kernel {self.name} failed with unknown error code {code}")
        else:
            rec = self.errors[code - 1]
        args = [_decode(err[k + 1], kind) for k, kind in enumerate(rec.arg_kinds)]
        exc = getattr(builtins, rec.error, None)
        if not (isinstance(exc, type) and issubclass(exc, Exception)):
            exc = RuntimeError
        try:
            msg = rec.message.format(*args)
        except (IndexError, KeyError, ValueError):
            msg = f"{rec.message} {tuple(args)}"
        raise exc(msg)


class PreparedCall:
    """kernel(buffers, params, True) for buffers of one fixed geometry (the
    shapes and strides of those given when it was made, checked then) and
    params fixed but for those at positions `live`: a call writes the arrays'
    data pointers and the live params (checked as Kernel.__call__ checks
    them) into a scratch of its own. The caller guarantees the geometry,
    dtypes and that the outputs are fresh (frontend_ast/direct_call.py keys
    its calls by shapes and strides), and the alignment of the buffers but
    the first `check_alignment` ones, which each call checks. A call while
    another thread is inside runs through the kernel's checked path
    instead."""

    def __init__(self, kernel: Kernel, buffers, params, live=(), exact=(),
                 check_alignment: int = 0):
        self.kernel = kernel
        self.params = list(params)
        self._items = tuple(a.itemsize for a in buffers[:check_alignment]) or None
        self._scratch = _Scratch(kernel, self._items or ())
        kernel._fill(self._scratch, buffers, self.params, True)
        # the native entry writes the data pointers (and checks alignment)
        self._native = _HEAD is not None and self._scratch.enter is not None
        self._slots = tuple(range(0, 2 * len(buffers), 2))
        self._live = tuple(live)
        exact = tuple(exact) or (False,) * len(self._live)
        self._cells = tuple((None if ok else kernel._param_check[j], self._scratch.cells[j])
                            for j, ok in zip(self._live, exact))
        fresh_in_child(self, "_lock")

    def __call__(self, buffers, values=()):
        """Run on `buffers` with the live params `values` (in `live` order).
        Kept flat: a call after a bandwidth-bound kernel runs with cold
        caches, where each function called costs cache misses."""
        lock = self._lock
        if not lock.acquire(False):
            params = list(self.params)
            for j, v in zip(self._live, values):
                params[j] = v
            return self.kernel(buffers, params, True)
        try:
            scratch = self._scratch
            for (conv, cell), v in zip(self._cells, values):
                cell.value = v if conv is None else conv(v)
            if self._native:               # (Kernel._invoke, inlined: cold caches)
                kernel = self.kernel
                if kernel.parallel:
                    parallel_runtime.ensure_threads()
                flag = interrupt.cancel_address(scratch.never_address)
                if flag != scratch.flag:
                    scratch.err[CANCEL_SLOT] = scratch.flag = flag
                rc = scratch.enter(*buffers)
                if rc != 0:
                    kernel._invoke(scratch, kernel._failed(scratch, rc, buffers))
                return
            args = scratch.args
            if _HEAD is None:
                for k, arr in zip(self._slots, buffers):
                    args[k] = _data_pointer(arr)
            else:                           # _data_pointer, inlined
                for k, arr in zip(self._slots, buffers):
                    args[k] = _read_pointer(id(arr) + _HEAD).value
            items = self._items
            if items is not None:
                for k, arr, item in zip(self._slots, buffers, items):
                    if (args[k] or 0) % item and not arr.flags.aligned:
                        self._check_alignment(buffers, args)    # raises
            self.kernel._invoke(scratch)
        finally:
            lock.release()

    def _check_alignment(self, buffers, args):
        """The ValueError a Kernel call raises for a data pointer that is not
        a multiple of its item size (in a misaligned array)."""
        for i, (k, item) in enumerate(zip(self._slots, self._items)):
            if (args[k] or 0) % item and not buffers[i].flags.aligned:
                raise _misaligned(self.kernel.buffers[i])


def _misaligned(spec: BufferArg) -> ValueError:
    return ValueError(f"buffer {spec.name} is not aligned to its item size")


def write_geometry(spec: BufferArg, arr: np.ndarray, rows) -> tuple:
    """Fill the geometry rows of `arr`; return the byte range [lo, hi) it
    covers, relative to its data pointer ((0, 0) when empty)."""
    item = arr.itemsize
    nd = arr.ndim
    span = 0
    lo = hi = 0
    for d in range(nd):
        axis = nd - 1 - d
        extent = arr.shape[axis]
        byte_stride = arr.strides[axis]
        if byte_stride % item:
            raise ValueError(f"buffer {spec.name}: stride of axis {axis} ({byte_stride} bytes) "
                             f"is not a multiple of the item size {item}")
        stride = byte_stride // item
        if extent > _INT32_MAX or not -_INT32_MAX <= stride <= _INT32_MAX:
            raise ValueError(f"buffer {spec.name}: axis {axis} (extent {extent}, stride "
                             f"{stride}) does not fit 32-bit indexing")
        rows[3 * d] = 0
        rows[3 * d + 1] = extent
        rows[3 * d + 2] = stride
        if extent > 0:
            span += (extent - 1) * abs(stride)
            reach = (extent - 1) * byte_stride
            lo, hi = lo + min(reach, 0), hi + max(reach, 0)
    if span > _INT32_MAX and arr.size:
        raise ValueError(f"buffer {spec.name} spans {span + 1} elements; element offsets "
                         "must fit 32-bit indexing")
    if arr.size > _INT32_MAX:
        # (a broadcast view may hold more elements than it spans): reduction
        # positions over a buffer's dimensions are 32-bit (pyhalide/rfactor_lex.py)
        raise ValueError(f"buffer {spec.name} has {arr.size} elements; pyhalide indexes "
                         f"with 32 bits (at most {_INT32_MAX} elements per buffer)")
    return (lo, hi + item) if arr.size else (0, 0)


_read_pointer = ctypes.c_void_p.from_address


def _probe_head():
    """The offset of an ndarray's data pointer in its object: the `data` field
    that follows the object header of NumPy's PyArrayObject, read directly
    (~10x cheaper than `arr.ctypes.data`), when probing shows that layout;
    else None (read through ctypes)."""
    head = object.__basicsize__
    probes = [np.arange(7, dtype=np.int16), np.zeros((3, 4))[1:, ::-2], np.empty(())]
    if all((_read_pointer(id(a) + head).value or 0) == a.ctypes.data for a in probes):
        return head
    return None


_HEAD = _probe_head()


def _data_pointer(arr) -> int:
    """An ndarray's data pointer."""
    if _HEAD is None:
        return arr.ctypes.data
    return _read_pointer(id(arr) + _HEAD).value or 0


def _decode(raw: int, kind: str):
    if kind == "u":
        return raw & ((1 << 64) - 1)
    if kind == "f":
        return struct.unpack("<d", struct.pack("<q", raw))[0]
    if kind == "b":
        return bool(raw)
    return raw


def _param_converter(p):
    """A function checking a Python value for param p and returning what its
    ctypes cell stores."""
    t = p.type

    if t.is_float():
        def conv(v):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.number)) \
                    or isinstance(v, np.complexfloating):
                raise TypeError(f"param {p.name} expects a real number, not {v!r}")
            return float(v)
        return conv

    lo, hi = int(t.min_value()), int(t.max_value())

    def conv(v):
        if isinstance(v, np.bool_):
            v = bool(v)
        try:
            iv = operator.index(v)
        except TypeError:
            raise TypeError(f"param {p.name} expects an integer of type {t}, not {v!r}") from None
        if not lo <= iv <= hi:
            raise TypeError(f"param {p.name}: {iv} does not fit {t}")
        return iv
    return conv
