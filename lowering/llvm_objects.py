"""Compiled objects and the engines that load them: what the JIT (jit.py)
and the hand-written runtimes (parallel_runtime.py, interrupt.py) share.

    JitOptions(loop_vectorization=True, slp_vectorization=True,
               reassociate=False, opt_level=2, loop_unrolling=True)
    default_options() -> JitOptions of config.llvm_pipeline ("full", "lean", "lean-vec")
    llvm_lock() -> the lock around all LLVM work
    target_machine(target, opt=3) -> llvm TargetMachine
    object_key(ir_text, target, options) -> str
    cached_object(object_key, target) -> bytes | None
    store_object(object_key, target, obj) -> None
    load_object(obj, target, symbols, tm) -> (engine, [address of each symbol])
    pack_objects(objs) -> bytes; unpack_objects(blob) -> [bytes]
    new_machine(target, opt=3) -> a TargetMachine of its own (another thread's)
    unlocked_run(mpm, module, pb), unlocked_emit(tm, module, use_object=True) -> bytes
    runtime_object(ir_text, name, unlocked=False) -> bytes
    load_runtime_module(ir_text, name, symbols, obj=None) -> (engine, {symbol: address})

An object's key hashes its unoptimized IR text, the target, the options and
the llvmlite/LLVM/pyhalide versions; objects are cached on disk under it
(disk_cache.py, when config.cache_dir is set). Each loaded object gets its
own MCJIT engine, made from an empty module. LLVM objects are not
thread-safe: all LLVM work runs under llvm_lock().
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.resources
import struct
import sys
import threading
from dataclasses import dataclass

import llvmlite
import llvmlite.binding as llvm
from llvmlite.binding import ffi
from llvmlite.utils import get_library_name

from pyhalide.ir.config import config, debug_print
from pyhalide.ir.forksafe import fresh_in_child
from pyhalide.ir.version import __version__

from . import disk_cache
from .target import Target, init_llvm, parse_target

__all__ = ["JitOptions", "default_options", "llvm_lock", "target_machine", "new_machine", "object_key",
           "cached_object", "store_object", "load_object", "load_runtime_module", "runtime_object",
           "pack_objects", "unpack_objects", "unlocked_run", "unlocked_emit"]


@dataclass(frozen=True)
class JitOptions:
    """Knobs of LLVM optimization. `reassociate` lets float vector
    reductions combine lanes in any order (see codegen_llvm).

    `opt_level` 2 by default: the lowering already emits the vector code,
    unrolling and loop versions the schedule asks for, and what LLVM's level 3
    adds (higher unrolling thresholds, non-trivial loop unswitching) only
    copies those loops again; it made first compiles 1.5-3x slower for the
    same speed of the benchmark kernels. `loop_unrolling` False turns LLVM's
    loop unrolling passes off (the lean pipeline: default_options);
    `runtime_unrolling` False only its unrolling of loops whose trip count is
    known at run time (runtime_unroll.py: jit._for_size for a large module)."""

    loop_vectorization: bool = True
    slp_vectorization: bool = True
    reassociate: bool = False
    opt_level: int = 2
    loop_unrolling: bool = True
    runtime_unrolling: bool = True

    def key(self) -> str:
        return (f"lv={int(self.loop_vectorization)},slp={int(self.slp_vectorization)},"
                f"ra={int(self.reassociate)},O{self.opt_level}"
                + ("" if self.loop_unrolling else ",unroll=0")
                + ("" if self.runtime_unrolling else ",rtunroll=0"))


# config.llvm_pipeline -> the options of a kernel compiled without explicit ones.
# "lean": pyhalide's lowering already vectorizes and unrolls what its schedule
# asks for, so LLVM's level 1 without its loop vectorizer, SLP vectorizer and
# unrolling only cleans the code up, in less compile time (session 19, load
# ~1: suites 1, 4 and 7 ran as fast under "lean-vec" as under "full", first
# compiles 4-45% shorter; it is not the default because at level 1 the 64-lane
# rfactor accumulators of tests/backend/test_wide_vectors.py spill to the
# stack, and tests/backend/test_avx512_vex_mask_moves.py no longer sees the
# code shape it guards against).
# But the frontend's default schedules leave some loops to LLVM's loop
# vectorizer (suite 4's chain_transc, whose exp/log/tanh it replaces by
# codegen_trig's vector versions: 4x slower under "lean", session 19):
# "lean-vec" is "lean" with the loop vectorizer.
_PIPELINES = {
    "full": JitOptions(),
    "lean": JitOptions(loop_vectorization=False, slp_vectorization=False,
                       opt_level=1, loop_unrolling=False),
    "lean-vec": JitOptions(slp_vectorization=False, opt_level=1, loop_unrolling=False),
}


def default_options() -> JitOptions:
    """The JitOptions of config.llvm_pipeline (PYHALIDE_LLVM_PIPELINE)."""
    try:
        return _PIPELINES[config.llvm_pipeline]
    except (KeyError, TypeError):
        raise ValueError(f"PYHALIDE_LLVM_PIPELINE={config.llvm_pipeline!r}: expected one of "
                         f"{', '.join(sorted(_PIPELINES))}") from None


# LLVM objects below are not thread-safe: one lock (a fresh one in a forked child)
_lock = fresh_in_child(sys.modules[__name__], "_lock", threading.RLock)
# llvmlite's own lock around each call into LLVM (an RLock inside one object
# that every wrapped function holds): the threads of jit._compile_object and
# parallel_runtime.start_compiling take it for short calls (parsing, pass
# builders) while another thread may fork; a forked child gets it unlocked.
fresh_in_child(ffi.lib._lock, "_lock", threading.RLock)
_machines: dict = {}                 # target.key() -> TargetMachine (optimize + emit)


def llvm_lock():
    """The lock that serializes all LLVM work in this process (re-entrant):
    compiles, object loading, engine disposal. A forked child gets a fresh
    one, so read it at each use: `with llvm_lock(): ...`."""
    return _lock


def target_machine(t: Target, opt: int = 3):
    """The LLVM TargetMachine (optimize + emit) of target `t` at code
    generation level `opt`, made once; use it under llvm_lock()."""
    tm = _machines.get((t.key(), opt))
    if tm is None:
        tm = new_machine(t, opt)
        _machines[(t.key(), opt)] = tm
    return tm


def new_machine(t: Target, opt: int = 3):
    """A TargetMachine of target `t` of its own (not shared: another thread's,
    an engine's). `opt` 0 selects LLVM's fast instruction selector and
    register allocator (jit.py: for cold code)."""
    init_llvm()
    if not t.is_host and t.triple.split("-")[0] != llvm.get_process_triple().split("-")[0]:
        llvm.initialize_all_targets()          # cross-compiling (for inspection only)
        llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple(t.triple)
    return target.create_target_machine(cpu=t.cpu, features=t.features, opt=opt,
                                        codemodel="jitdefault")


def load_object(obj: bytes, t: Target, symbols, tm):
    """Load an object file, or the objects packed by pack_objects, into a
    fresh MCJIT engine (which links them); return (engine, addresses of
    `symbols`). Called under llvm_lock()."""
    empty = llvm.parse_assembly("")
    empty.triple = t.triple
    empty.data_layout = str(tm.target_data)
    engine = llvm.create_mcjit_compiler(empty, new_machine(t))
    for part in unpack_objects(obj):
        engine.add_object_file(llvm.ObjectFileRef.from_data(part))
    engine.finalize_object()
    addresses = []
    for sym in symbols:
        address = engine.get_function_address(sym)
        if not address:
            raise RuntimeError(f"symbol {sym!r} not found in the compiled object")
        addresses.append(address)
    return engine, addresses


# Several objects of one kernel (jit.py compiles the parts of a split module
# apart): this header, their count and sizes, then the objects. An object
# file itself starts with its format's magic ("\x7fELF"), never with this.
_PACK_MAGIC = b"\0pyhalide-objects\0"


def pack_objects(objs) -> bytes:
    """One blob (cached and loaded as one object) of several objects."""
    if len(objs) == 1:
        return objs[0]
    head = struct.pack(f"<I{len(objs)}Q", len(objs), *map(len, objs))
    return _PACK_MAGIC + head + b"".join(objs)


def unpack_objects(blob: bytes) -> list:
    """The objects of a pack_objects blob (a plain object: itself)."""
    if not blob.startswith(_PACK_MAGIC):
        return [blob]
    at = len(_PACK_MAGIC)
    (count,) = struct.unpack_from("<I", blob, at)
    sizes = struct.unpack_from(f"<{count}Q", blob, at + 4)
    at += 4 + 8 * count
    out = []
    for n in sizes:
        out.append(blob[at:at + n])
        at += n
    if at != len(blob):
        raise ValueError("a packed object blob of the wrong size")
    return out


def _raw_library():
    """llvmlite's shared library through ctypes of our own (the same handle:
    dlopen counts references), without llvmlite's wrappers, which hold
    its global lock around every call into LLVM."""
    lib = ctypes.CDLL(str(importlib.resources.files("llvmlite.binding") / get_library_name()))
    p = ctypes.c_void_p
    lib.LLVMPY_RunNewModulePassManager.argtypes = [p, p, p]
    lib.LLVMPY_RunNewModulePassManager.restype = None
    lib.LLVMPY_TargetMachineEmitToMemory.argtypes = [p, p, ctypes.c_int, p]
    lib.LLVMPY_TargetMachineEmitToMemory.restype = p
    lib.LLVMPY_GetBufferStart.argtypes = [p]
    lib.LLVMPY_GetBufferStart.restype = p
    lib.LLVMPY_GetBufferSize.argtypes = [p]
    lib.LLVMPY_GetBufferSize.restype = ctypes.c_size_t
    lib.LLVMPY_DisposeMemoryBuffer.argtypes = [p]
    lib.LLVMPY_DisposeMemoryBuffer.restype = None
    return lib


_raw: list = []         # [the library of _raw_library], made at first use


def _unlocked():
    if not _raw:
        _raw.append(_raw_library())
    return _raw[0]


def unlocked_run(mpm, mod, pb) -> None:
    """mpm.run(mod, pb) without llvmlite's global lock, which serializes
    every call into LLVM: ctypes releases the GIL around the call, so two
    threads optimize at once. Only for objects no other thread touches
    (a module in a context of its own, a pass builder over a target
    machine of its own): LLVM's optimizer is reentrant across contexts."""
    _unlocked().LLVMPY_RunNewModulePassManager(mpm, mod, pb)


def unlocked_emit(tm, mod, use_object: bool = True) -> bytes:
    """tm.emit_object(mod) (or emit_assembly's bytes) without llvmlite's
    lock (see unlocked_run)."""
    lib = _unlocked()
    with ffi.OutputString() as outerr:
        mb = lib.LLVMPY_TargetMachineEmitToMemory(tm, mod, int(use_object), outerr)
        if not mb:
            raise RuntimeError(str(outerr))
    try:
        return ctypes.string_at(lib.LLVMPY_GetBufferStart(mb), lib.LLVMPY_GetBufferSize(mb))
    finally:
        lib.LLVMPY_DisposeMemoryBuffer(mb)


# The passes the hand-written runtime IR gets (llvmlite pass-manager methods).
_RUNTIME_PASSES = ("add_always_inliner_pass", "add_sroa_pass", "add_instruction_combine_pass",
                   "add_simplify_cfg_pass")


def _optimize_light(mod, tm, unlocked: bool = False):
    """_RUNTIME_PASSES (SROA, instcombine, CFG simplification): 4 ms instead
    of the 55 ms of the full level-2 pipeline, for code whose loops are
    spin-waits and chunk claims (`unlocked`: see unlocked_run)."""
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    mpm = llvm.create_new_module_pass_manager()
    for add in _RUNTIME_PASSES:
        getattr(mpm, add)()
    if unlocked:
        unlocked_run(mpm, mod, pb)
    else:
        mpm.run(mod, pb)
    return mod


def runtime_object(ir_text: str, name: str, unlocked: bool = False) -> bytes:
    """The host object of hand-written runtime IR, through the object cache.
    The IR gets a short pass list (_optimize_light): the parallel runtime
    compiles in about 40 instead of 90 ms, with no measurable change in
    dispatch, call or scaling times (suite 3) or in blur's paired ratio to
    Halide (three 15-round pairs each; blur's run-to-run spread is about
    ±5%). `unlocked`: for a thread other than the one holding llvm_lock()
    (parallel_runtime.start_compiling): the module in a context of its own,
    a target machine of its own, the passes and code generation without
    llvmlite's lock (unlocked_run, unlocked_emit)."""
    t = parse_target("host")
    # (the key names the pass list: the JitOptions level is not used here)
    key = object_key(ir_text + "\n; passes: " + ",".join(_RUNTIME_PASSES), t, JitOptions())
    obj = cached_object(key, t)
    if obj is not None:
        debug_print(1, f"pyhalide: {name}: object cache hit")
        return obj
    if unlocked:
        tm = new_machine(t)
        mod = llvm.parse_assembly(ir_text, context=llvm.create_context())
    else:
        tm = target_machine(t)
        mod = llvm.parse_assembly(ir_text)
    mod.triple = t.triple
    mod.data_layout = str(tm.target_data)
    mod = _optimize_light(mod, tm, unlocked)
    obj = unlocked_emit(tm, mod) if unlocked else tm.emit_object(mod)
    store_object(key, t, obj)
    return obj


def load_runtime_module(ir_text: str, name: str, symbols, obj: bytes | None = None):
    """Compile hand-written runtime IR for the host (runtime_object; `obj`:
    that object, compiled already) and load it; return (engine,
    {symbol: address})."""
    t = parse_target("host")
    with _lock:
        tm = target_machine(t)
        if obj is None:
            obj = runtime_object(ir_text, name)
        engine, addresses = load_object(obj, t, symbols, tm)
    return engine, dict(zip(symbols, addresses))


# ---- on-disk object cache ---------------------------------------------------
# changed when the object emitted for the same IR changes (jit._emit_object:
# objects cached before its check of LLVM's VEX mask moves may be wrong)
_EMIT_REVISION = "vex-mask-move-check"


def object_key(ir_text: str, t: Target, options: JitOptions) -> str:
    """The cache key of the object compiled from `ir_text` for `t` with `options`."""
    h = hashlib.sha256()
    for part in (ir_text, t.key(), options.key(), llvmlite.__version__,
                 ".".join(map(str, llvm.llvm_version_info)), __version__, _EMIT_REVISION):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def cached_object(key: str, t: Target):
    """The object file cached on disk for `key` (a Kernel's object_key) and
    target `t`, or None (lowering/disk_cache verifies the entry's key,
    version, target and digest)."""
    entry = disk_cache.read_entry(key, "o", {"target": t.key()})
    return None if entry is None else entry[1]


def store_object(key: str, t: Target, obj: bytes):
    """Cache object `obj` on disk under `key` for target `t`."""
    disk_cache.write_entry(key, "o", {"target": t.key()}, obj)
