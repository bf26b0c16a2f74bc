"""Compile a final Stmt to native code and wrap it as a Kernel.

    compile_pipeline(stmt, name, buffers, params, *, target=None, options=None) -> Kernel
    generate_text(stmt, name, buffers, params, *, stage="llvm", target=None,
                  options=None) -> str        stage: "llvm", "llvm_opt" or "asm"
    JitOptions(loop_vectorization=True, slp_vectorization=True,
               reassociate=False, opt_level=2, loop_unrolling=True)
    default_options() -> JitOptions   (options=None: config.llvm_pipeline's)
    clear_memory_cache() -> None

and, for the other users of compiled objects (kernel_cache.py):

    llvm_lock() -> the lock around all LLVM work
    target_machine(target) -> llvm TargetMachine
    cached_object(object_key, target) -> bytes | None
    load_entry(obj, target, tm, entry, parallel) -> (engine, address)
    make_kernel(name, engine, address, buffers, params, errors, parallel, object_key)

(JitOptions, llvm_lock, target_machine and cached_object are those of
llvm_objects.py, which also loads the hand-written runtimes.)

`buffers` is a list of runtime.BufferArg, `params` a list of ir.ScalarParam,
`target` a Halide-style target string (default: config.target, i.e.
PYHALIDE_TARGET or "host"). The Kernel is called as kernel(arrays, values)
(runtime.py).

Flow: codegen_llvm builds the module; its unoptimized IR text, the target,
the options and the llvmlite/LLVM/pyhalide versions form the cache key
(llvm_objects.object_key). On a miss the IR is parsed, optimized with the
new pass manager at opt_level for the target machine (options=None: those
of config.llvm_pipeline, PYHALIDE_LLVM_PIPELINE "full", "lean" or "lean-vec"),
and emitted as an
object file (a module of at least split_module.MIN_SPLIT_LINES lines, when
parallel loops may use two or more threads: as parts, PARTS_PER_THREAD per
thread, on those threads at once; its cold tasks, split_module.split_cold,
as a part of their own, not optimized and emitted at LLVM's level 0; the
parts' objects packed into one: _compile_object), which is stored in
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
import re
import sys
import threading
import time
from dataclasses import replace

import llvmlite.binding as llvm

from pyhalide.ir.config import config, debug_print
from pyhalide.ir.lru import capacity

from . import codegen_trig, interrupt, native_entry, parallel_runtime, runtime_ahead
from .codegen_text import codegen_text
from .gc_pause import cycle_collection_paused
from .llvm_objects import (
    JitOptions,
    cached_object,
    default_options,
    llvm_lock,
    load_object,
    new_machine,
    object_key,
    pack_objects,
    store_object,
    target_machine,
    unlocked_emit,
    unlocked_run,
)
from .parallel_loops import has_parallel
from .runtime import Kernel
from .runtime_unroll import without_runtime_unrolling
from .split_module import MIN_SPLIT_LINES, split_cold, split_parts
from .target import Target, check_runs_on_host, parse_target

__all__ = ["compile_pipeline", "generate_text", "JitOptions", "default_options",
           "clear_memory_cache", "llvm_lock", "target_machine", "cached_object", "load_entry", "make_kernel"]


_loaded: "collections.OrderedDict" = collections.OrderedDict()   # key -> (engine, address)
_released: list = []                 # engines no Kernel holds any more (see _Code)


class _Code:
    """A Kernel's hold on its engine. When the Kernel goes, the engine moves
    to _released, whose entries are dropped under llvm_lock() by the next compile:
    an engine is disposed (its machine code freed) when its last reference
    goes, and LLVM must not do that while another thread compiles."""

    __slots__ = ("engine",)

    def __init__(self, engine):
        self.engine = engine

    def __del__(self, released=_released):     # (bound now: at exit globals are None)
        released.append(self.engine)


def _dispose_released():
    """Drop the engines of dead Kernels (under llvm_lock()); an engine still in
    _loaded lives on there."""
    while _released:
        _released.pop()


def _timer():
    last = [time.perf_counter(), time.process_time()]

    def lap(what):
        now = [time.perf_counter(), time.process_time()]
        if config.time_passes:
            print(f"pyhalide: {what}: {(now[0] - last[0]) * 1e3:.2f} ms "
                  f"({(now[1] - last[1]) * 1e3:.2f} ms CPU)", file=sys.stderr)
        last[:] = now
    return lap


def _build(stmt, name, buffers, params, target, options):
    """(target, target machine, codegen output, IR text) of a Stmt."""
    t = parse_target(target or config.target)
    tm = target_machine(t)
    with cycle_collection_paused():
        out, text = codegen_text(stmt, name, buffers, params, triple=t.triple,
                                 data_layout=str(tm.target_data),
                                 reassociate=options.reassociate, cpu=t.cpu,
                                 features=t.features)
    return t, tm, out, text


def _optimize(ir_text: str, tm, options: JitOptions, unlocked: bool = False):
    """The optimized module, in an LLVM context of its own: what it creates
    (types, constants, metadata) is freed with the module, where the global
    context would keep it for the life of the process. `unlocked`: the
    passes run without llvmlite's lock (llvm_objects.unlocked_run)."""
    mod = llvm.parse_assembly(ir_text, context=llvm.create_context())
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=options.opt_level)
    pto.loop_vectorization = options.loop_vectorization
    pto.slp_vectorization = options.slp_vectorization
    pto.loop_unrolling = options.loop_unrolling
    pb = llvm.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    if unlocked:
        unlocked_run(mpm, mod, pb)
    else:
        mpm.run(mod, pb)
    if "alwaysinline" in ir_text:       # vector versions the loop vectorizer called
        mpm = llvm.create_new_module_pass_manager()     # (codegen_trig._function)
        mpm.add_always_inliner_pass()
        if unlocked:
            unlocked_run(mpm, mod, pb)
        else:
            mpm.run(mod, pb)
    return mod


def generate_text(stmt, name, buffers, params, *, stage: str = "llvm", target=None,
                  options: JitOptions | None = None) -> str:
    """The LLVM IR ("llvm": as generated, "llvm_opt": optimized) or the
    assembly ("asm") of a Stmt, for inspection; nothing is executed."""
    options = options or default_options()
    with llvm_lock():
        t, tm, out, text = _build(stmt, name, buffers, params, target, options)
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
    options = options or default_options()
    lap = _timer()
    # the runtimes this process has not loaded yet, compiled on another core meanwhile
    runtime_ahead.start((parallel_runtime.ahead_jobs() if has_parallel(stmt) else [])
                        + native_entry.ahead_jobs() + interrupt.ahead_jobs())
    with llvm_lock():
        _dispose_released()
        t, tm, out, ir_text = _build(stmt, name, buffers, params, target, options)
        check_runs_on_host(t)
        lap("codegen")
        options = _for_size(ir_text, options)
        key = object_key(ir_text, t, options)
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
                spare = (parallel_runtime.ahead_jobs() if out.uses_parallel else []) + \
                    native_entry.ahead_jobs()
                obj = _compile_object(ir_text, t, tm, options, name, spare)
                lap("optimize + emit object")
                store_object(key, t, obj)
            engine, address = load_entry(obj, t, tm, out.entry_name, out.uses_parallel)
            lap("load")
            _loaded[key] = (engine, address)
            while len(_loaded) > capacity():
                _loaded.popitem(last=False)
    return make_kernel(name, engine, address, buffers, params, out.errors, out.uses_parallel,
                       key)


# A split module's parts per thread: more parts than threads, taken by the
# threads largest first as each finishes its last, even out the error of the
# parts' estimated work (interpolate: its slower thread's LLVM time about
# 0.94 -> 0.84 s in 4 parts instead of 2), as long as each part has about
# MIN_SPLIT_LINES lines (a part's own parse and pass set-up cost the rest).
PARTS_PER_THREAD = 2


def _split_count(ir_text: str, workers: int) -> int:
    return min(PARTS_PER_THREAD * workers, max(workers, ir_text.count("\n") // MIN_SPLIT_LINES))


# The work of a line of cold code (split_cold's part: emitted at LLVM's
# level 0, no passes) against a line the full pipeline optimizes and emits
# (interpolate: about 80 ms for 9,500 cold lines, 2 s for 12,400 others).
COLD_WORK_PER_LINE = 0.05


def _compile_object(ir_text: str, t, tm, options: JitOptions, name: str,
                    spare=()) -> bytes:
    """The object code of a module's IR text: its cold tasks (split_cold)
    apart, emitted with LLVM's fast instruction selector and register
    allocator; the rest optimized and emitted as one module, or, when
    split_module splits it, as parts on up to config.num_threads threads
    at once, each thread taking the largest part left (the packed objects
    of the parts: llvm_objects.pack_objects).
    Called under llvm_lock(); the other threads work on objects of their
    own (a context, a target machine, a pass builder) with llvmlite's lock
    released around the long calls (llvm_objects.unlocked_run/_emit).
    `spare`: (name, IR) of runtimes the kernel loads next
    (runtime_ahead.compile_here), compiled by the first thread that finds
    no part left while another still works (a parallel kernel's largest
    part is often that other thread's critical path)."""
    workers = config.num_threads if isinstance(config.num_threads, int) else 1
    if options.loop_unrolling and not options.runtime_unrolling:
        ir_text = without_runtime_unrolling(ir_text)
    hot, cold = split_cold(ir_text)
    parts = [(text, work, False) for text, work in (
        split_parts(hot, _split_count(hot, workers)) if workers > 1 else [(hot, 0.0)])]
    if cold is not None:
        parts.append((cold, COLD_WORK_PER_LINE * cold.count("\n"), True))
    if len(parts) == 1:
        return _optimize_and_emit(ir_text, t, tm, options, name, False)
    debug_print(1, f"pyhalide: {name}: compiled in {len(parts)} parts "
                   f"({', '.join(str(p.count(chr(10))) + (' cold' if c else '') for p, _, c in parts)}"
                   f" lines)")
    objs: list = [None] * len(parts)
    cpu: list = [0.0] * len(parts)
    failures: list = []
    todo = sorted(range(len(parts)), key=lambda i: (-parts[i][1], i))
    take = threading.Lock()

    def work(machine, cold_machine):
        while not failures:
            with take:
                if not todo:
                    break
                i = todo.pop(0)
            start = time.thread_time()
            text, _, is_cold = parts[i]
            try:
                if is_cold:
                    objs[i] = _emit_cold(text, t, cold_machine or new_machine(t, 0),
                                         f"{name} (cold part {i})")
                else:
                    objs[i] = _optimize_and_emit(text, t, machine, options,
                                                 f"{name} (part {i})", True)
            except BaseException as exc:       # re-raised by the caller's thread
                failures.append(exc)
            cpu[i] = time.thread_time() - start
        else:
            return
        if any(o is None for o in objs):     # another thread is still at a part
            runtime_ahead.compile_here(spare)
    threads = [threading.Thread(target=work, args=(new_machine(t), None),
                                name=f"pyhalide-llvm-{k}")
               for k in range(1, min(workers, len(parts)))]
    for th in threads:
        th.start()
    try:
        work(tm, target_machine(t, 0))
    finally:
        for th in threads:
            th.join()
    if failures:
        raise failures[0]
    if config.time_passes:
        print(f"pyhalide: parts' optimize + emit: "
              f"{', '.join(f'{c * 1e3:.2f}' for c in cpu)} ms CPU", file=sys.stderr)
    return pack_objects(objs)


def _emit_cold(ir_text: str, t, tm, name: str) -> bytes:
    """The object of split_cold's cold part: its functions are `optnone`
    (the helpers copied beside them run only from there), so no pass runs;
    `tm` is a machine at level 0 (fast instruction selection and register
    allocation), this thread's own, used without llvmlite's lock."""
    mod = llvm.parse_assembly(ir_text, context=llvm.create_context())
    mod.verify()
    debug_print(3, f"; ---- LLVM IR of {name} (cold: not optimized)\n{mod}")
    return _emit_object(mod, t, tm, name, True)


def _optimize_and_emit(ir_text: str, t, tm, options: JitOptions, name: str,
                       unlocked: bool) -> bytes:
    """Optimize and emit one module (`unlocked`: with llvmlite's lock
    released around the long calls; tm is then this thread's own)."""
    mod = _optimize(ir_text, tm, options, unlocked)
    debug_print(3, f"; ---- LLVM IR of {name} (after optimization)\n{mod}")
    if config.debug >= 4:
        debug_print(4, f"; ---- assembly of {name}\n{tm.emit_assembly(mod)}")
    return _emit_object(mod, t, tm, name, unlocked)


# LLVM 22's X86CompressEVEX pass turns VPMOV*2M + KMOV (a vector mask moved to
# a scalar) into a VEX VMOVMSKPS/PD or VPMOVMSKB without checking the source
# register (llvm/llvm-project#191304): VEX cannot name xmm16-31/ymm16-31, so the
# instruction reads xmm0-15 instead, a wrong mask (schedule-fuzz seed 9303: a sum
# of Euclidean remainders lost its +9 corrections by the sign bits of an unrelated
# register). The object is emitted first; only when its bytes may hold a VEX
# VMOVMSKPS/PD or VPMOVMSKB at all (_VEX_MASK_MOVE_BYTES, a superset: data bytes
# may match too) is the optimized module (kept as bitcode: code generation
# rewrites the module it emits) emitted as assembly, the bodies of the functions
# that move a vector of i1 into scalars only; where that shows such an
# instruction of xmm16-31, the module is emitted again without AVX512BW/DQ (no
# VPMOV*2M).
_MASK_TO_SCALAR = re.compile(r"bitcast <\d+ x i1>|extractelement <\d+ x i1>|reduce\.\w+\.v\d+i1")
_VEX_MASK_OF_EXTENDED = re.compile(r"\b(?:vmovmskp[sd]|vpmovmskb)\s+%[xy]mm(?:1[6-9]|2\d|3[01])\b")
# Every VEX encoding of VMOVMSKPS/PD (map 0F, opcode 50, pp none or 66) and
# VPMOVMSKB (66 0F D7): the two-byte prefix C5 [R vvvv L pp], the three-byte
# C4 [R X B 00001] [W vvvv L pp]; vvvv is 1111 (no second source), R, X, B, W
# and L any.
_VEX2_PS_PD = b"[\x78\x79\x7c\x7d\xf8\xf9\xfc\xfd]"
_VEX2_66 = b"[\x79\x7d\xf9\xfd]"
_VEX3_MAP0F = b"[\x01\x21\x41\x61\x81\xa1\xc1\xe1]"
_VEX_MASK_MOVE_BYTES = re.compile(
    b"\xc5" + _VEX2_PS_PD + b"\x50|\xc5" + _VEX2_66 + b"\xd7|"
    b"\xc4" + _VEX3_MAP0F + _VEX2_PS_PD + b"\x50|\xc4" + _VEX3_MAP0F + _VEX2_66 + b"\xd7")


def _emit_object(mod, t, tm, name: str, unlocked: bool = False) -> bytes:
    """The object code of optimized module `mod` for target t (machine tm),
    avoiding LLVM's wrong VEX mask moves (see above). `unlocked`: code
    generation runs without llvmlite's lock (llvm_objects.unlocked_emit),
    on machines of this thread's own."""
    def emit(machine, m, use_object=True):
        if unlocked:
            return unlocked_emit(machine, m, use_object)
        return machine.emit_object(m) if use_object else machine.emit_assembly(m).encode()

    if "+avx512dq" not in t.features and "+avx512bw" not in t.features:
        return emit(tm, mod)
    optimized = mod.as_bitcode()
    obj = emit(tm, mod)
    if not _VEX_MASK_MOVE_BYTES.search(obj):
        return obj
    mod = llvm.parse_bitcode(optimized, context=llvm.create_context())
    suspects = _mask_moving_functions(str(mod))
    if suspects is not None and _VEX_MASK_OF_EXTENDED.search(emit(
            tm, llvm.parse_assembly(suspects, context=llvm.create_context()), False).decode()):
        debug_print(1, f"pyhalide: {name}: LLVM encoded a mask move of xmm16-31 with VEX "
                       f"(llvm/llvm-project#191304): emitted without AVX512BW/DQ")
        safe = replace(t, features=t.features + ",-avx512dq,-avx512bw")
        return emit(new_machine(safe) if unlocked else target_machine(safe), mod)
    return obj


def _mask_moving_functions(text: str):
    """The optimized module's text with only the bodies of the functions that
    move a vector of i1 into scalars (each other body is `unreachable`), or
    None when no function does. The assembly of that module shows what the
    whole module's would for those functions (instruction selection and
    register allocation work one function at a time) at a fraction of the
    cost: local Laplacian's bookkeeping function is a fifth of its module."""
    if not _MASK_TO_SCALAR.search(text):
        return None
    out, body, header = [], [], None
    for line in text.split("\n"):
        if header is None:
            if line.startswith("define ") and line.rstrip().endswith("{"):
                header, body = line, []
            else:
                out.append(line)
        elif line == "}":
            out.append(header)
            if _MASK_TO_SCALAR.search("\n".join(body)):
                out.extend(body)
            else:
                out.append("entry:\n  unreachable")
            out.append(line)
            header = None
        else:
            body.append(line)
    return "\n".join(out)


# LLVM's loop vectorizer takes time superlinear in the size of a loop body
# (a 2000-term sum: 2.5 s of its 3.2 s of optimization, and a vector copy that
# triples code generation). pyhalide vectorizes what the schedule asks for
# itself, so past this many lines of IR the vectorizer is left out.
LOOP_VECTORIZE_MAX_LINES = 2000
# Past this many, LLVM's runtime unrolling is left out too (runtime_unroll.py):
# in Halide's apps it unrolls pyhalide's vector loops over rows by 2
# (interpolate: 25 loops, a quarter of its LLVM CPU time, the kernel no
# faster; session 23). Suite 4's harris scheduled (4,288 lines) is past it:
# LLVM unrolled its row loops by 2, 4 and 8, and loop strength reduction over
# the copies made its parallel task's LLVM time 0.55-0.60 s instead of 0.33 s
# (the first compile's critical path), the kernel no faster (session 24:
# 13.7-15.4 against 14.5-15.4 ms CPU per call). The kernels below it keep it
# (amax, argmin, sum_axis1 scheduled, gray_scott scheduled, matmul: 2,100-3,200
# lines; blur 2,845, bilateral grid 3,850, which measured no slower without it;
# none of suites 1, 2, 3, 6 past 2,100).
RUNTIME_UNROLL_MAX_LINES = 4000


def _for_size(ir_text: str, options: JitOptions) -> JitOptions:
    runtime = options.loop_unrolling and options.runtime_unrolling
    if not options.loop_vectorization and not runtime:
        return options
    lines = ir_text.count("\n") - codegen_trig.library_lines(ir_text)   # no loops in those
    if lines > LOOP_VECTORIZE_MAX_LINES and options.loop_vectorization:
        debug_print(1, f"pyhalide: {lines} lines of LLVM IR: no LLVM loop vectorization")
        options = replace(options, loop_vectorization=False)
    if lines > RUNTIME_UNROLL_MAX_LINES and runtime:
        debug_print(1, f"pyhalide: {lines} lines of LLVM IR: no LLVM runtime unrolling")
        options = replace(options, runtime_unrolling=False)
    return options


def load_entry(obj: bytes, t: Target, tm, entry: str, parallel: bool):
    """(engine, address of `entry`) of a kernel's object, loaded after the
    parallel runtime when the kernel calls it (its entry must resolve).
    Called under llvm_lock(), which is where dead kernels' engines are disposed."""
    _dispose_released()
    if parallel:
        parallel_runtime.ensure_loaded()
    engine, (address,) = load_object(obj, t, [entry], tm)
    return engine, address


def make_kernel(name, engine, address, buffers, params, errors, parallel, object_key):
    """The callable Kernel over loaded code; `object_key` names its object in
    the on-disk cache."""
    kernel = Kernel(name, address, buffers, params, errors, keepalive=_Code(engine),
                    parallel=parallel)
    kernel.object_key = object_key
    return kernel


def clear_memory_cache():
    """Forget the objects loaded in this process (live Kernels keep theirs)."""
    with llvm_lock():
        _loaded.clear()
        _dispose_released()
