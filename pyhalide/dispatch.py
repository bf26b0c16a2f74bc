"""A compiled entry for the hot call of a @pipeline function: one remembered
call key of the fast path (frontend_ast/direct_call.py) as a builtin
function, so a call with that key runs without Python code.

    compiled_entry(spec, args) -> builtin | None
    MISS                       the entry's answer to any other call

`compiled_entry` builds, for the key of `args` (a call the Python fast path
has an entry for), a METH_FASTCALL builtin (dispatch_ir.py): it checks that
the arguments are exactly those of the key (their count; each array's type,
dtype object, shape, strides and alignment; each scalar's exact type, and
the value of each scalar the call-time functions read; a Python int fits
int64), allocates the outputs with NumPy's PyArray_Empty, fills the kernel's
argument, geometry, param and error arrays on the stack, runs the kernel
with the GIL released, and builds the result (the output arrays, Python
floats, ints or bools read from one-element outputs, the arguments, constants
and tuples of these). Any other call gets MISS and takes the general path,
which raises what a call raises; so does a call whose kernel fails (after
pending signal handlers ran: what they raise is the call's exception), which
the general path runs again (the entry has not written the arguments yet,
so a second run computes the same).

The globals the code read (Specialization.global_reads) must be the same
objects (a closure cell's contents, a module dictionary's entry or its
absence), else the general path compares their values.

A specialization that writes into its arguments computes their final
values into outputs, which the entry copies into the caller's arrays after
the kernel succeeded (dispatch_written.py); a failing kernel leaves them as
they were. A key computed in place passes the argument as its output.

It is not built (None) for what it does not do: written arguments
dispatch_written.py refuses, a specialization whose
Funcs were handed out (p.funcs, p.vars, p.last_specialization,
p.specialization_for: PipelineFunction drops its entry then; or a
schedule function's view, which it may have kept, unless the edit stamp
of ir/function.py vouches for its Funcs: the entry then checks that the
stamp is the object it was, else MISS), or is scheduled automatically for a
size class the key does not fix (an integer argument not in the key);
params the argument is not exactly
the value of (conversions); results other than those above; object layouts
the probes below do not find (another Python or NumPy build).

The entry's constants live in a block of int64 slots (a ctypes array that
is the builtin's `self` and holds, as attributes, every object whose address
is in a slot: while the builtin lives they do), so the code depends only on
the layout and is compiled once per layout in a process.
"""
from __future__ import annotations

import _signal  # signal.getsignal without its enum wrapping
import ctypes
import os
import signal
import struct
import sys
import threading

import numpy as np

from pyhalide.ir.forksafe import fresh_in_child
from pyhalide.ir.function import LAST_EDIT
from pyhalide.lowering import interrupt, parallel_runtime
from pyhalide.lowering.runtime import write_geometry

from .dispatch_written import written_layout

__all__ = ["compiled_entry", "MISS", "Layout", "Arg", "Source", "Out", "Result", "kernel_slots",
           "signal_slots", "make_entry", "available"]


class _Miss:
    __slots__ = ()

    def __repr__(self):
        return "MISS"


MISS = _Miss()

_METH_FASTCALL = 0x80
_API = ctypes.pythonapi
_FNS = ("Py_IncRef", "Py_DecRef", "PyLong_AsLongLongAndOverflow", "PyThread_get_thread_ident",
        "PyObject_Vectorcall", "PyEval_SaveThread", "PyEval_RestoreThread", "PyErr_CheckSignals",
        "PyTuple_New", "PyTuple_SetItem", "PyFloat_FromDouble", "PyLong_FromLongLong",
        "PyDict_GetItemWithError")
_engines: dict = {}                  # IR text -> (engine, entry address), kept for the process
_MAX_LAYOUTS = 256
_lock = fresh_in_child(sys.modules[__name__], "_lock", threading.Lock)
# the thread Python runs signal handlers in (the forking thread in a child)
_MAIN_THREAD = ctypes.c_uint64(threading.main_thread().ident)


def _main_after_fork():
    _MAIN_THREAD.value = threading.main_thread().ident


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_main_after_fork)


class _MethodDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("meth", ctypes.c_void_p), ("flags", ctypes.c_int),
                ("doc", ctypes.c_char_p)]


_new_function = _API.PyCFunction_NewEx
_new_function.restype = ctypes.py_object
_new_function.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p]


def _word(addr: int, ctype=ctypes.c_int64):
    return ctype.from_address(addr).value


def _numpy_api():
    """PyArray_Empty, PyArray_Scalar and PyArray_CopyInto from NumPy's C API
    table (slots 184, 60 and 50), or None."""
    try:
        from numpy._core import _multiarray_umath as m
        get = _API.PyCapsule_GetPointer
        get.restype = ctypes.c_void_p
        get.argtypes = [ctypes.py_object, ctypes.c_char_p]
        table = get(vars(m)["_ARRAY_API"], None)     # NumPy's C API export
        return {"PyArray_Empty": _word(table + 8 * 184, ctypes.c_void_p),
                "PyArray_Scalar": _word(table + 8 * 60, ctypes.c_void_p),
                "PyArray_CopyInto": _word(table + 8 * 50, ctypes.c_void_p)}
    except Exception:            # another NumPy: no compiled entries
        return None


def _probe():
    """The C functions' addresses when the object layouts dispatch_ir.py
    reads are this process's (else None)."""
    api = _numpy_api()
    if api is None or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None
    fns = {n: ctypes.cast(getattr(_API, n), ctypes.c_void_p).value for n in _FNS}
    fns.update(api)
    ok = _word(id(1.5) + 8) == id(float) and \
        ctypes.c_double.from_address(id(2.5) + 16).value == 2.5
    for a in (np.arange(6.0).reshape(2, 3), np.zeros((4, 5), np.int16)[::2, 1:],
              np.ones(3, np.float32)[1:]):
        dims, strides = _word(id(a) + 32), _word(id(a) + 40)
        ok = ok and _word(id(a) + 16) == a.ctypes.data and \
            _word(id(a) + 24, ctypes.c_int32) == a.ndim and \
            [_word(dims + 8 * k) for k in range(a.ndim)] == list(a.shape) and \
            [_word(strides + 8 * k) for k in range(a.ndim)] == list(a.strides) and \
            _word(id(a) + 56) == id(a.dtype) and \
            bool(_word(id(a) + 64, ctypes.c_int32) & 0x100) == a.flags.aligned
    cell = (lambda: ok).__closure__[0]
    ok = ok and _word(id(cell) + 16) == id(cell.cell_contents)
    held = [object()]                   # PyListObject's ob_item at 24
    ok = ok and _word(_word(id(held) + 24)) == id(held[0])
    for v in (np.float64(1.25), np.int32(-7), np.uint8(200), np.float32(3.5)):
        ok = ok and ctypes.string_at(id(v) + 16, v.itemsize) == v.tobytes()
    # PyArray_Empty (it steals the dtype's reference)
    if ok:
        d = np.dtype(np.float64)
        _API.Py_IncRef(ctypes.py_object(d))
        shape = (ctypes.c_ssize_t * 2)(3, 4)
        fn = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_int)(api["PyArray_Empty"])
        made = fn(2, ctypes.addressof(shape), id(d), 0)
        ok = type(made) is np.ndarray and made.shape == (3, 4) and made.dtype is d and \
            made.flags.c_contiguous
        scalar = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p,
                                   ctypes.py_object)(api["PyArray_Scalar"])
        for a in (np.array([-2.5]), np.array([7], np.int16), np.array([True])):
            v = scalar(a.ctypes.data, id(a.dtype), a)
            ok = ok and type(v) is type(a[0]) and v == a[0]
        copy = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.py_object)(
            api["PyArray_CopyInto"])
        dst, src = np.zeros((2, 6))[:, ::2], np.arange(6.0).reshape(2, 3)
        ok = ok and copy(dst, src) == 0 and np.array_equal(dst, src)
    return fns if ok else None


_FNS_OK = _probe()


def available() -> bool:
    """Whether compiled entries can be built in this process (the probes
    found the object layouts)."""
    return _FNS_OK is not None


class Arg:
    def __init__(self, kind, ndim=0, itemsize=8):
        self.kind, self.ndim, self.itemsize = kind, ndim, itemsize
        self.slots = {}


class Source:
    def __init__(self, source, index=-1):
        self.source, self.index = source, index
        self.slots = {}


class Out:
    def __init__(self, ndim):
        self.ndim = ndim
        self.slots = {}
        self.arg = None          # the argument passed as this output (in place)


class Result:
    """A node of the result: tuple (items), output (index: the output
    buffer returned), arg (index), object (slot), float/int/bool (index: the
    one-element output read), np (index, slot: its dtype), union (items:
    (index of a one-element bool output or None, Result), the first whose
    output holds true), call (the whole result only: the Python function in
    `slot` called on the items, what it returns or raises)."""

    def __init__(self, kind, index=-1, items=(), slot=-1):
        self.kind, self.index, self.items, self.slot = kind, index, items, slot


class Layout:
    """The structure of one entry (what its IR depends on) and the values of
    its block's slots."""

    def __init__(self):
        self.values = []              # the block's slots
        self.keep = []                # objects whose addresses are in slots
        self.args, self.buffers, self.params, self.outputs = [], [], [], []
        self.globals = []             # [(kind "cell" or "dict", slots)]
        self.fns = {}
        self.slots = {}
        self.result = None
        self.err_slots = 0
        self.written = []             # [dispatch_written.Written]

    def slot(self, value, obj=None) -> int:
        if obj is not None:
            self.keep.append(obj)
        self.values.append(value)
        return len(self.values) - 1

    def obj(self, obj) -> int:
        return self.slot(id(obj), obj)

    def words(self, values) -> int:
        """Consecutive slots holding `values`; the first one's index."""
        first = len(self.values)
        self.values.extend(int(v) for v in values)
        return first


_IMMUTABLE = (int, float, bool, complex, type(None), np.generic)


class _Refused(Exception):
    """What the compiled entry does not do (the Python paths do it)."""


def compiled_entry(spec, args):
    """The compiled entry of `spec` for the key of `args`, None (see the
    module docstring), or MISS while the fast path has no entry for the key."""
    direct = spec.direct
    stamp = LAST_EDIT[0]
    if _FNS_OK is None or direct is None or \
            not spec.globals_current() or getattr(spec, "handed_out", False) or \
            spec.exposed and not _auto(spec) and direct.stamp != stamp:
        return None
    sizes = getattr(spec, "size_class", None)
    if sizes is not None and not _size_class_fixed(spec, direct, args, sizes):
        return None
    key = direct.key(args)
    if key is None:
        return None
    entry = direct.entries.get(key)
    if entry is None:
        return MISS
    if not interrupt.in_main_thread():
        return None          # (built on the main thread: it may clear the SIGINT flag)
    try:
        layout = _layout(spec, direct, entry, args)
    except _Refused:
        return None
    if spec.exposed:       # its Funcs as they were: nothing edited since (the edit stamp)
        layout.slots["stamp_list"] = layout.obj(LAST_EDIT)
        layout.slots["stamp"] = layout.obj(stamp)
    from pyhalide.lowering.codegen_llvm import CANCEL_SLOT
    layout.err_slots = CANCEL_SLOT
    return make_entry(layout)


def _auto(spec) -> bool:
    """Whether spec's schedule is automatic: its Funcs were exposed to the
    automatic scheduler only, which is done with them."""
    return getattr(spec.schedule_info, "auto", None) is not None


def _size_class_fixed(spec, direct, args, sizes) -> bool:
    """Whether every call with the key of `args` has size class `sizes`
    (an automatic schedule's): the key fixes the shapes, and it must hold
    the value of every integer argument."""
    from pyhalide.frontend_ast.schedules import size_class
    keyed = set(direct.keyed)
    for i, v in enumerate(args):
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and \
                i not in keyed:
            return False
    return size_class(args) == sizes


def _layout(spec, direct, entry, args) -> Layout:
    L = Layout()
    L.fns = {n: L.slot(a) for n, a in _FNS_OK.items()}
    keyed = set(direct.keyed)
    for i, (k, v) in enumerate(zip(spec.key, args)):
        L.args.append(argument(L, k, v, i in keyed))
    for name in spec.global_reads:
        L.globals.append(_global(L, spec.pf.fn, name))
    run = entry.run
    if spec.written is not None:
        L.written = written_layout(L, spec, entry, args) if run is not None else None
        if L.written is None:
            raise _Refused("written arguments the entry does not copy back")
    if run is None:                  # no kernel: the result is made of the arguments
        L.result = _converted(L, spec, entry)
        L.slots["miss"] = L.obj(MISS)
        return L
    kernel = run.kernel
    kernel_slots(L, kernel)
    n_in = len(direct.sources)
    zero = direct.zero
    outputs = [np.empty(full, dt) for full, dt in entry.allocs]    # (for their strides)
    for b, buf in enumerate(kernel.buffers):
        if b < n_in:
            src = direct.sources[b]
            if isinstance(src, tuple):       # .real / .imag of a complex argument
                arr = getattr(args[src[0]], src[1])
                s = Source("part", src[0])
                s.offset = arr.ctypes.data - args[src[0]].ctypes.data
            else:
                s = Source("arg", src) if src >= 0 else Source("zero")
                if src < 0:
                    s.slots["data"] = L.slot(zero.ctypes.data, zero)
                arr = args[src] if src >= 0 else zero
        else:
            s = Source("output", b - n_in)
            arr = outputs[b - n_in]
        if arr.ndim != buf.dimensions or arr.dtype != buf.type.to_numpy():
            raise _Refused("a buffer of another geometry")
        rows = (ctypes.c_int64 * max(3 * arr.ndim, 1))()   # as the kernel reads them
        write_geometry(buf, arr, rows)
        s.slots["geometry"] = L.slot(ctypes.addressof(rows), rows)
        L.buffers.append(s)
    # each output allocated with its slot's shape (the full one's memory layout)
    shapes = [shape for count, shape in entry.slots for _ in range(count)]
    for (full, dt), shape in zip(entry.allocs, shapes):
        shape = full if shape is None else shape
        o = Out(len(shape))
        o.slots["descr"] = L.obj(np.dtype(dt))
        o.slots["shape"] = L.words(shape)
        L.outputs.append(o)
    for w in L.written:
        if w.in_place:
            L.outputs[w.output].arg = w.arg
    live = dict(zip(direct.live, direct.live_args))
    if not all(direct.exact):
        raise _Refused("a param converts its argument")
    for j, (par, value) in enumerate(zip(kernel.params, run.params)):
        if j in live:
            L.params.append(Source("arg", live[j]))
        else:
            s = Source("static")
            raw = np.array(value, par.type.to_numpy()).tobytes()   # (checked by run)
            raw += bytes(8 - len(raw))
            s.slots["value"] = L.slot(int.from_bytes(raw, "little", signed=True))
            L.params.append(s)
    try:
        L.result = _result(L, spec, spec.result, entry)
    except _Refused:
        L.result = _converted(L, spec, entry)
    signal_slots(L)
    return L


def kernel_slots(L: Layout, kernel) -> None:
    """The slots of the kernel an entry runs: the C functions (unless set),
    the kernel, ensure_threads (a parallel kernel)."""
    if not L.fns:
        L.fns = {n: L.slot(a) for n, a in _FNS_OK.items()}
    L.slots["kernel"] = L.slot(kernel.address, kernel)
    # err[FORWARD_SLOT]: a lazy kernel's forward cell (lowering/lazy_kernel.py), else 0
    lazy = getattr(kernel, "lazy", None)
    L.slots["forward"] = L.slot(0 if lazy is None else lazy.address, lazy)
    if kernel.parallel:        # called first: the pool sized to config.num_threads
        L.slots["threads"] = L.obj(parallel_runtime.ensure_threads)


def signal_slots(L: Layout) -> None:
    """The slots of the call's cancel flag (the SIGINT flag of interrupt.py,
    installed for the handler Python has now), MISS, True and False."""
    flag = interrupt.cancel_flag_for_call()
    L.slots["never"] = L.slot(0)
    L.slots["main_thread"] = L.slot(ctypes.addressof(_MAIN_THREAD), _MAIN_THREAD)
    L.slots["getsignal"] = L.obj(_signal.getsignal)
    L.slots["sigint"] = L.obj(int(signal.SIGINT))
    L.slots["seen"] = L.obj(_signal.getsignal(signal.SIGINT))
    L.slots["flag"] = L.slot(flag)
    L.slots["miss"] = L.obj(MISS)
    L.slots["true"], L.slots["false"] = L.obj(True), L.obj(False)


def _global(L: Layout, fn, name):
    """The check that global `name` of fn (frontend_ast.names.lookup_global)
    is still the object it is now: a closure cell's contents, or the module
    dictionary's entry (NULL: absent)."""
    from pyhalide.frontend_ast.names import MISSING, lookup_global
    if isinstance(name, tuple):
        fn, name = name
    value = lookup_global(fn, name)
    cell = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ())).get(name)
    if cell is not None:
        if value is MISSING:
            raise _Refused("an empty closure cell")
        return ("cell", {"cell": L.obj(cell), "value": L.obj(value)})
    d = fn.__globals__
    if type(d) is not dict:
        raise _Refused("globals that are not a dict")
    return ("dict", {"dict": L.obj(d), "name": L.obj(name),
                     "value": L.slot(0) if value is MISSING else L.obj(value)})


def argument(L: Layout, key, v, keyed: bool) -> Arg:
    kind = key[0]
    if kind == "array":
        a = Arg("array", v.ndim)
        a.slots["type"] = L.obj(np.ndarray)
        a.slots["descr"] = L.obj(v.dtype)
        a.slots["shape"] = L.words(v.shape)
        a.slots["strides"] = L.words(v.strides)
        return a
    if kind == "const":          # None, a function, a tuple of scalars: that very object
        a = Arg("object")
        a.slots["object"] = L.obj(v)
        return a
    if kind == "float":
        a = Arg("float", itemsize=8)
        a.slots["type"] = L.obj(float)
        raw = struct.unpack("<q", struct.pack("<d", v))[0]
    elif kind == "int":
        a = Arg("int")
        a.slots["type"] = L.obj(int)
        raw = v
        if keyed and not -(1 << 63) <= v < 1 << 63:
            raise _Refused("a key beyond int64")
    elif kind == "bool":
        a = Arg("bool")
        a.slots["type"] = L.obj(bool)
        if keyed:
            a.slots["key"] = L.obj(v)
        return a
    elif kind == "np" and len(key) == 2 and np.dtype(key[1]).kind in "biuf":
        a = Arg("np", itemsize=v.itemsize)
        a.slots["type"] = L.obj(type(v))
        raw = int.from_bytes(v.tobytes(), "little")
        if raw >= 1 << 63:
            raw -= 1 << 64
    else:
        raise _Refused(f"argument kind {kind}")
    if keyed:
        if v != v:
            raise _Refused("a NaN key never matches")
        a.slots["key"] = L.slot(raw)
    return a


def _result(L: Layout, spec, o, entry) -> Result:
    """The Result node of Out `o` (specialize.Out)."""
    from pyhalide.frontend_ast.types import BOOL, FLOAT, INT, NP
    if o.kind == "tuple":
        return Result("tuple", items=[_result(L, spec, x, entry) for x in o.items])
    if o.kind == "const":
        return Result("object", slot=L.obj(o.value))
    if o.kind == "static":             # computed from the key's shapes and scalars
        value = o.fn(entry.env)
        if not isinstance(value, _IMMUTABLE):
            raise _Refused("a static value the caller may change")
        return Result("object", slot=L.obj(value))
    if o.kind == "input":
        return Result("arg", index=spec.pf.params.index(o.name))
    if o.kind in ("array", "scalar"):
        flat = sum(c for c, _ in entry.slots[:o.slot]) + o.index
        if o.kind == "array":
            return Result("output", index=flat)
        dtype = np.dtype(entry.allocs[flat][1])
        if o.fallback is None:
            kinds = {FLOAT: ("float", "f8"), INT: ("int", "i8"), BOOL: ("bool", "b1")}
            want = kinds.get(o.ty.kind)
            if want is not None and dtype.kind + str(dtype.itemsize) == want[1]:
                return Result(want[0], index=flat)
            if o.ty.kind == NP and o.ty.dtype == dtype and dtype.kind in "biuf":
                return Result("np", index=flat, slot=L.obj(dtype))
    if o.kind == "union":              # the first alternative whose condition holds
        items = []
        for cond, alt in o.alts:
            if cond is None or cond.kind in ("static", "const"):
                if cond is None or bool(cond.value if cond.kind == "const"
                                        else cond.fn(entry.env)):
                    items.append((None, _result(L, spec, alt, entry)))
                    return Result("union", items=items)
                continue
            test = _result(L, spec, cond, entry)
            if test.kind != "bool":
                raise _Refused("a condition of another kind")
            items.append((test.index, _result(L, spec, alt, entry)))
        items.append((None, Result("object", slot=L.obj(None))))
        return Result("union", items=items)
    raise _Refused(f"result kind {o.kind}")


def _converted(L: Layout, spec, entry) -> Result:
    """The result as the specialization's Python converter makes it from the
    outputs and the arguments (views, reshapes, transposes, complex values,
    ...): one call of a Python function by the entry, the whole result."""
    convert, env, slots = spec.result_converter(), entry.env, entry.slots
    n = len(entry.allocs)

    def finish(*objs):
        outs, k = [], 0
        for count, _ in slots:
            outs.append(objs[k:k + count])
            k += count
        return convert(outs, objs[n:], env)
    items = [Result("output", index=i) for i in range(n)] + \
        [Result("arg", index=j) for j in range(len(L.args))]
    return Result("call", items=items, slot=L.obj(finish))


def make_entry(L: Layout):
    from pyhalide.lowering.llvm_objects import load_runtime_module

    from .dispatch_ir import ENTRY, entry_ir
    text = entry_ir(L)
    with _lock:
        loaded = _engines.get(text)
        if loaded is None:
            if len(_engines) >= _MAX_LAYOUTS:
                return None
            engine, addrs = load_runtime_module(text, "pyhalide_dispatch", [ENTRY])
            loaded = _engines[text] = (engine, addrs[ENTRY])
    block_type = type("_Block", (ctypes.c_int64 * max(len(L.values), 1),), {})
    block = block_type(*L.values)
    if _word(id(block) + 16) != ctypes.addressof(block):
        return None
    block.keep = L.keep
    block.method = _MethodDef(b"pyhalide_dispatch", loaded[1], _METH_FASTCALL, None)
    return _new_function(ctypes.addressof(block.method), block, None)
