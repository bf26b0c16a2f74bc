"""A kernel's entry call as a CPython builtin function: no ctypes on the
call path.

    entry_function(entry, args, err, head, items=()) -> (call, block) or None
    MISALIGNED                       what `call` returns for a misaligned array
    ahead_jobs() -> [(name, IR)]     for runtime_ahead.start (none once loaded)

`call(*arrays)` is a builtin (METH_FASTCALL) that

- writes the data pointer of each ndarray in `arrays` (read at offset `head`
  of the object: runtime._HEAD) to args[2 i], the pointer slots of the
  entry's argument array, after checking that the first len(items) of them
  are multiples of their item sizes `items` (else it returns MISALIGNED
  without calling: the caller checks those arrays as NumPy sees them);
- stores 0 in err[0] (the error code) and in the cancel flag whose address
  is err[CANCEL_SLOT] (what interrupt.cancel_flag_for_call cleared from
  Python before);
- releases the GIL (PyEval_SaveThread), calls `int32 entry(ptr args)`, takes
  the GIL back (PyEval_RestoreThread), and returns the result as an int:
  what `ctypes.CFUNCTYPE(c_int32, c_void_p)(entry)(args)` did after those
  stores. `call()` with no arrays only calls.

The builtin's `self` is a Python int: the address of `block` (int64 words
{entry, args, err, head, len(items), items...}), which the caller keeps alive
as long as it keeps `call`, as it keeps the memory at `args` and `err`.
The caller guarantees that `arrays` are ndarrays, as many as the entry has
pointer slots or fewer.

Why: after a bandwidth-bound kernel the caches are cold, and each ctypes
operation (a call: argument conversion, libffi, its GIL handling; a store
into a ctypes array; reading a pointer through c_void_p.from_address) costs
microseconds of caller CPU there: cold, the ctypes call alone took ~17 us,
this call ~10 (a 2^24-element max on two threads runs ~1.3 ms). None when
the CPython C API functions cannot be found (the caller keeps ctypes).
"""
from __future__ import annotations

import ctypes

import llvmlite.binding as llvm

from . import runtime_ahead
from .codegen_llvm import CANCEL_SLOT
from .llvm_objects import llvm_lock, load_runtime_module

__all__ = ["entry_function", "ahead_jobs", "MISALIGNED"]

_API = ("PyEval_SaveThread", "PyEval_RestoreThread", "PyLong_FromLong", "PyLong_AsVoidPtr")
MISALIGNED = 1 << 40     # returned instead of calling (entries return int32)

RUNTIME_IR = r"""
declare ptr @PyEval_SaveThread() nounwind
declare void @PyEval_RestoreThread(ptr) nounwind
declare ptr @PyLong_FromLong(i64) nounwind
declare ptr @PyLong_AsVoidPtr(ptr) nounwind

; METH_FASTCALL: %self is an int holding the address of the block
; {entry, args, err, head, checked, item...}; %arrays are ndarrays whose
; data pointers (at offset `head` of each object) go to args[2 i]
define ptr @pyhalide_rt_enter(ptr %self, ptr %arrays, i64 %n) nounwind {
entry:
  %block = call ptr @PyLong_AsVoidPtr(ptr %self)
  %pargs = getelementptr i64, ptr %block, i64 1
  %args = load ptr, ptr %pargs
  %phead = getelementptr i64, ptr %block, i64 3
  %head = load i64, ptr %phead
  %pchecked = getelementptr i64, ptr %block, i64 4
  %checked = load i64, ptr %pchecked
  %any = icmp sgt i64 %n, 0
  br i1 %any, label %loop, label %call
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %store ]
  %parr = getelementptr ptr, ptr %arrays, i64 %i
  %arr = load ptr, ptr %parr
  %pdata = getelementptr i8, ptr %arr, i64 %head
  %data = load i64, ptr %pdata
  %check = icmp slt i64 %i, %checked
  br i1 %check, label %align, label %store
align:
  %k = add i64 %i, 5
  %pitem = getelementptr i64, ptr %block, i64 %k
  %item = load i64, ptr %pitem
  %rem = urem i64 %data, %item
  %ok = icmp eq i64 %rem, 0
  br i1 %ok, label %store, label %misaligned
store:
  %slot = shl i64 %i, 1
  %pslot = getelementptr i64, ptr %args, i64 %slot
  store i64 %data, ptr %pslot
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %call
misaligned:
  ; not called: the caller checks the arrays (NumPy's alignment may differ)
  %m = call ptr @PyLong_FromLong(i64 MISALIGNED)
  ret ptr %m
call:
  %fn = load ptr, ptr %block
  %perr = getelementptr i64, ptr %block, i64 2
  %err = load ptr, ptr %perr
  store i64 0, ptr %err
  %pflag = getelementptr i64, ptr %err, i64 CANCEL_SLOT
  %flag = load ptr, ptr %pflag
  store atomic i64 0, ptr %flag monotonic, align 8
  %ts = call ptr @PyEval_SaveThread()
  %rc = call i32 %fn(ptr %args)
  call void @PyEval_RestoreThread(ptr %ts)
  %rc64 = sext i32 %rc to i64
  %r = call ptr @PyLong_FromLong(i64 %rc64)
  ret ptr %r
}
""".replace("CANCEL_SLOT", str(CANCEL_SLOT)).replace("MISALIGNED", str(MISALIGNED))

_METH_FASTCALL = 0x0080


class _MethodDef(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("meth", ctypes.c_void_p), ("flags", ctypes.c_int),
                ("doc", ctypes.c_char_p)]


_state: dict = {"def": None, "failed": False}
_RUNTIME_NAME = "pyhalide_entry_runtime"


def ahead_jobs() -> list:
    """[(name, IR)] of the trampoline for runtime_ahead.start, or [] once
    loaded (or found unavailable)."""
    return [] if _state["def"] is not None or _state["failed"] else [(_RUNTIME_NAME, RUNTIME_IR)]


def _load() -> bool:
    """Compile and load the trampoline once; False when the C API cannot be
    reached (no pythonapi symbols)."""
    if _state["def"] is not None or _state["failed"]:
        return not _state["failed"]
    with llvm_lock():
        if _state["def"] is not None:
            return True
        try:
            api = {n: ctypes.cast(getattr(ctypes.pythonapi, n), ctypes.c_void_p).value
                   for n in _API}
            make = ctypes.pythonapi.PyCFunction_NewEx
        except (AttributeError, ValueError):
            _state["failed"] = True
            return False
        for name, addr in api.items():
            llvm.add_symbol(name, addr)
        engine, addrs = load_runtime_module(RUNTIME_IR, _RUNTIME_NAME, ["pyhalide_rt_enter"],
                                            runtime_ahead.take(_RUNTIME_NAME))
        make.restype = ctypes.py_object
        make.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p]
        mdef = _MethodDef(b"kernel_entry", addrs["pyhalide_rt_enter"], _METH_FASTCALL, None)
        _state.update(engine=engine, make=make, mdef=mdef)    # kept forever: functions use them
        _state["def"] = ctypes.addressof(mdef)
        return True


def entry_function(entry: int, args: int, err: int, head, items=()):
    """(a builtin running `entry` on `args` with the error array `err`, the
    block it reads: see the module docstring), or None when the trampoline
    is unavailable. `head`: the offset of an ndarray's data pointer in its
    object (None: arrays must not be passed); `items`: the item sizes of the
    first arrays passed, whose data pointers are checked."""
    if not _load():
        return None
    block = (ctypes.c_int64 * (5 + len(items)))(entry, args, err, head or 0, len(items), *items)
    return _state["make"](_state["def"], ctypes.addressof(block), None), block
