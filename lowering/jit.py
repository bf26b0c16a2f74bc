"""Compile a final Stmt to native code and wrap it as a Kernel.

    compile_pipeline(stmt, name, buffers, params, *, target=None, options=None) -> Kernel
    generate_text(stmt, name, buffers, params, *, stage="llvm", target=None,
                  options=None) -> str        stage: "llvm", "llvm_opt" or "asm"
    JitOptions(loop_vectorization=True, slp_vectorization=True,
               reassociate=False, opt_level=2)
    load_runtime_module(ir_text, name, symbols) -> (engine, {symbol: address})
    clear_memory_cache() -> None

and, for the other users of compiled objects (kernel_cache.py,
parallel_runtime.py):

    llvm_lock() -> the lock around all LLVM work
    target_machine(target) -> llvm TargetMachine
    cached_object(object_key, target) -> bytes | None
    load_entry(obj, target, tm, entry, parallel) -> (engine, address)
    make_kernel(name, engine, address, buffers, params, errors, parallel, object_key)

`buffers` is a list of runtime.BufferArg, `params` a list of ir.ScalarParam,
`target` a Halide-style target string (default: config.target, i.e.
PYHALIDE_TARGET or "host"). The Kernel is called as kernel(arrays, values)
(runtime.py).

Flow: codegen_llvm builds the module; its unoptimized IR text, the target,
the options and the llvmlite/LLVM/pyhalide versions form the cache key. On a
miss the IR is parsed, optimized with the new pass manager at opt_level for
the target machine, and emitted as an object file, which is stored in
config.cache_dir (when set; disk_cache.py: a JSON manifest naming the key,
version and target, then the object, verified on load, in a directory only
the user can write). On a hit the stored object is used directly: no
optimization and no code generation run. Either way the object is loaded into
its own MCJIT engine (kept alive by the Kernel) from an empty module. Loaded
engines are also kept in memory for repeated compiles in one process, at
most config.kernel_cache_size of them (pyhalide/ir/lru.py), least recently
used dropped first. An engine's machine code is freed once no Kernel and no
cache entry holds it; the disposal itself runs under the LLVM lock, at the
next compile (LLVM's context is shared by every compile).

Kernels with parallel loops get the parallel runtime (parallel_runtime.py)
loaded first, so that the entry point they call resolves; all LLVM work is
serialized by one lock (compiles from several Python threads are safe).

Debug output (stderr): config.debug >= 1 names each compile and says
"object cache hit"; >= 3 prints the LLVM IR before and after optimization;
>= 4 also the assembly. config.time_passes prints the time of each step.
"""
from __future__ import annotations

import collections
import hashlib
import sys
import threading
import time
from dataclasses import dataclass, replace

import llvmlite
import llvmlite.binding as llvm

from pyhalide.ir.config import config, debug_print
from pyhalide.ir.forksafe import fresh_in_child
from pyhalide.ir.lru import capacity
from pyhalide.ir.version import __version__

from . import disk_cache, parallel_runtime
from .codegen_llvm import codegen
from .runtime import Kernel
from .target import Target, check_runs_on_host, init_llvm, parse_target

__all__ = ["compile_pipeline", "generate_text", "JitOptions", "load_runtime_module",
           "clear_memory_cache", "llvm_lock", "target_machine", "cached_object", "load_entry",
           "make_kernel"]


@dataclass(frozen=True)
class JitOptions:
    """Knobs of LLVM optimization. `reassociate` lets float vector
    reductions combine lanes in any order (see codegen_llvm).

    `opt_level` 2 by default: the lowering already emits the vector code,
    unrolling and loop versions the schedule asks for, and what LLVM's level 3
    adds (higher unrolling thresholds, non-trivial loop unswitching) only
    copies those loops again; it made first compiles 1.5-3x slower for the
    same speed of the benchmark kernels."""

    loop_vectorization: bool = True
    slp_vectorization: bool = True
    reassociate: bool = False
    opt_level: int = 2

    def key(self) -> str:
        return (f"lv={int(self.loop_vectorization)},slp={int(self.slp_vectorization)},"
                f"ra={int(self.reassociate)},O{self.opt_level}")


# LLVM objects below are not thread-safe: one lock (a fresh one in a forked child)
_lock = fresh_in_child(sys.modules[__name__], "_lock", threading.RLock)
_machines: dict = {}                 # target.key() -> TargetMachine (optimize + emit)
_loaded: "collections.OrderedDict" = collections.OrderedDict()   # key -> (engine, address)
_released: list = []                 # engines no Kernel holds any more (see _Code)


class _Code:
    """A Kernel's hold on its engine. When the Kernel goes, the engine moves
    to _released, whose entries are dropped under _lock by the next compile:
    an engine is disposed (its machine code freed) when its last reference
    goes, and LLVM must not do that while another thread compiles."""

    __slots__ = ("engine",)

    def __init__(self, engine):
        self.engine = engine

    def __del__(self, released=_released):     # (bound now: at exit globals are None)
        released.append(self.engine)


def _dispose_released():
    """Drop the engines of dead Kernels (under _lock); an engine still in
    _loaded lives on there."""
    while _released:
        _released.pop()


def llvm_lock():
    """The lock that serializes all LLVM work in this process (re-entrant):
    compiles, object loading, engine disposal. A forked child gets a fresh
    one, so read it at each use: `with jit.llvm_lock(): ...`."""
    return _lock


def target_machine(t: Target):
    """The LLVM TargetMachine (optimize + emit) of target `t`, made once;
    use it under llvm_lock()."""
    tm = _machines.get(t.key())
    if tm is None:
        tm = _new_machine(t)
        _machines[t.key()] = tm
    return tm


def _new_machine(t: Target):
    init_llvm()
    if not t.is_host and t.triple.split("-")[0] != llvm.get_process_triple().split("-")[0]:
        llvm.initialize_all_targets()          # cross-compiling (for inspection only)
        llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple(t.triple)
    return target.create_target_machine(cpu=t.cpu, features=t.features, opt=3,
                                        codemodel="jitdefault")


def _timer():
    start = time.perf_counter()
    last = [start]

    def lap(what):
        now = time.perf_counter()
        if config.time_passes:
            print(f"pyhalide: {what}: {(now - last[0]) * 1e3:.2f} ms", file=sys.stderr)
        last[0] = now
    return lap


def _build(stmt, name, buffers, params, target, options):
    t = parse_target(target or config.target)
    tm = target_machine(t)
    out = codegen(stmt, name, buffers, params, triple=t.triple,
                  data_layout=str(tm.target_data), reassociate=options.reassociate,
                  cpu=t.cpu)
    return t, tm, out


def _optimize(ir_text: str, tm, options: JitOptions):
    """The optimized module, in an LLVM context of its own: what it creates
    (types, constants, metadata) is freed with the module, where the global
    context would keep it for the life of the process."""
    mod = llvm.parse_assembly(ir_text, context=llvm.create_context())
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=options.opt_level)
    pto.loop_vectorization = options.loop_vectorization
    pto.slp_vectorization = options.slp_vectorization
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod


def generate_text(stmt, name, buffers, params, *, stage: str = "llvm", target=None,
                  options: JitOptions | None = None) -> str:
    """The LLVM IR ("llvm": as generated, "llvm_opt": optimized) or the
    assembly ("asm") of a Stmt, for inspection; nothing is executed."""
    options = options or JitOptions()
    with _lock:
        t, tm, out = _build(stmt, name, buffers, params, target, options)
        text = str(out.module)
        if stage == "llvm":
            return text
        mod = _optimize(text, tm, options)
        if stage == "llvm_opt":
            return str(mod)
        if stage == "asm":
            return tm.emit_assembly(mod)
    raise ValueError(f"unknown stage {stage!r}; expected llvm, llvm_opt or asm")


def compile_pipeline(stmt, name, buffers, params, *, target=None,
                     options: JitOptions | None = None) -> Kernel:
    """Compile `stmt` into a Kernel (see the module docstring)."""
    options = options or JitOptions()
    lap = _timer()
    with _lock:
        _dispose_released()
        t, tm, out = _build(stmt, name, buffers, params, target, options)
        check_runs_on_host(t)
        ir_text = str(out.module)
        lap("codegen")
        options = _for_size(ir_text, options)
        key = _cache_key(ir_text, t, options)
        debug_print(1, f"pyhalide: compiling {name} for {t.text} ({t.cpu}) key {key[:16]}")
        debug_print(3, f"; ---- LLVM IR of {name} (before optimization)\n{ir_text}")
        hit = _loaded.get(key)
        if hit is not None:
            _loaded.move_to_end(key)
            debug_print(1, f"pyhalide: {name}: already loaded in this process")
            engine, address = hit
        else:
            obj = cached_object(key, t)
            if obj is not None:
                debug_print(1, f"pyhalide: {name}: object cache hit")
                if config.debug >= 3:
                    debug_print(3, "; (optimized IR and assembly not regenerated: object cache hit)")
                lap("object cache read")
            else:
                mod = _optimize(ir_text, tm, options)
                lap("optimize")
                debug_print(3, f"; ---- LLVM IR of {name} (after optimization)\n{mod}")
                if config.debug >= 4:
                    debug_print(4, f"; ---- assembly of {name}\n{tm.emit_assembly(mod)}")
                obj = tm.emit_object(mod)
                lap("emit object")
                _cache_store(key, t, obj)
            engine, address = load_entry(obj, t, tm, out.entry_name, out.uses_parallel)
            lap("load")
            _loaded[key] = (engine, address)
            while len(_loaded) > capacity():
                _loaded.popitem(last=False)
    return make_kernel(name, engine, address, buffers, params, out.errors, out.uses_parallel,
                       key)


# LLVM's loop vectorizer takes time superlinear in the size of a loop body
# (a 2000-term sum: 2.5 s of its 3.2 s of optimization, and a vector copy that
# triples code generation). pyhalide vectorizes what the schedule asks for
# itself, so past this many lines of IR the vectorizer is left out.
LOOP_VECTORIZE_MAX_LINES = 2000


def _for_size(ir_text: str, options: JitOptions) -> JitOptions:
    if options.loop_vectorization and ir_text.count("\n") > LOOP_VECTORIZE_MAX_LINES:
        debug_print(1, f"pyhalide: {ir_text.count(chr(10))} lines of LLVM IR: no LLVM loop "
                       f"vectorization")
        return replace(options, loop_vectorization=False)
    return options


def load_entry(obj: bytes, t: Target, tm, entry: str, parallel: bool):
    """(engine, address of `entry`) of a kernel's object, loaded after the
    parallel runtime when the kernel calls it (its entry must resolve).
    Called under llvm_lock(), which is where dead kernels' engines are disposed."""
    _dispose_released()
    if parallel:
        parallel_runtime.ensure_loaded()
    engine, (address,) = _load_object(obj, t, [entry], tm)
    return engine, address


def make_kernel(name, engine, address, buffers, params, errors, parallel, object_key):
    """The callable Kernel over loaded code; `object_key` names its object in
    the on-disk cache."""
    kernel = Kernel(name, address, buffers, params, errors, keepalive=_Code(engine),
                    parallel=parallel)
    kernel.object_key = object_key
    return kernel


def _load_object(obj: bytes, t: Target, symbols, tm):
    """Load an object file into a fresh MCJIT engine; return (engine,
    addresses of `symbols`)."""
    empty = llvm.parse_assembly("")
    empty.triple = t.triple
    empty.data_layout = str(tm.target_data)
    engine = llvm.create_mcjit_compiler(empty, _new_machine(t))
    engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
    engine.finalize_object()
    addresses = []
    for sym in symbols:
        address = engine.get_function_address(sym)
        if not address:
            raise RuntimeError(f"symbol {sym!r} not found in the compiled object")
        addresses.append(address)
    return engine, addresses


# The passes the hand-written runtime IR gets (llvmlite pass-manager methods).
_RUNTIME_PASSES = ("add_always_inliner_pass", "add_sroa_pass", "add_instruction_combine_pass",
                   "add_simplify_cfg_pass")


def _optimize_light(mod, tm):
    """_RUNTIME_PASSES (SROA, instcombine, CFG simplification): 4 ms instead
    of the 55 ms of the full level-2 pipeline, for code whose loops are
    spin-waits and chunk claims."""
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    mpm = llvm.create_new_module_pass_manager()
    for add in _RUNTIME_PASSES:
        getattr(mpm, add)()
    mpm.run(mod, pb)
    return mod


def load_runtime_module(ir_text: str, name: str, symbols):
    """Compile hand-written runtime IR for the host (through the object
    cache) and load it; return (engine, {symbol: address}). The IR gets a
    short pass list (_optimize_light): the parallel runtime compiles in
    about 40 instead of 90 ms, with no measurable change in dispatch, call
    or scaling times (suite 3) or in blur's paired ratio to Halide (three
    15-round pairs each; blur's run-to-run spread is about ±5%)."""
    t = parse_target("host")
    with _lock:
        tm = target_machine(t)
        # (the key names the pass list: the JitOptions level is not used here)
        key = _cache_key(ir_text + "\n; passes: " + ",".join(_RUNTIME_PASSES), t, JitOptions())
        obj = cached_object(key, t)
        if obj is None:
            mod = llvm.parse_assembly(ir_text)
            mod.triple = t.triple
            mod.data_layout = str(tm.target_data)
            mod = _optimize_light(mod, tm)
            obj = tm.emit_object(mod)
            _cache_store(key, t, obj)
        else:
            debug_print(1, f"pyhalide: {name}: object cache hit")
        engine, addresses = _load_object(obj, t, symbols, tm)
    return engine, dict(zip(symbols, addresses))


# ---- on-disk object cache ---------------------------------------------------
def _cache_key(ir_text: str, t: Target, options: JitOptions) -> str:
    h = hashlib.sha256()
    for part in (ir_text, t.key(), options.key(), llvmlite.__version__,
                 ".".join(map(str, llvm.llvm_version_info)), __version__):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def cached_object(key: str, t: Target):
    """The object file cached on disk for `key` (a Kernel's object_key) and
    target `t`, or None (lowering/disk_cache verifies the entry's key,
    version, target and digest)."""
    entry = disk_cache.read_entry(key, "o", {"target": t.key()})
    return None if entry is None else entry[1]


def _cache_store(key: str, t: Target, obj: bytes):
    disk_cache.write_entry(key, "o", {"target": t.key()}, obj)


def clear_memory_cache():
    """Forget the objects loaded in this process (live Kernels keep theirs)."""
    with _lock:
        _loaded.clear()
        _dispose_released()
