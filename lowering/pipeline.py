"""The order of the lowering passes — the only place that knows it.

    lower(outputs, env, inputs, params, dense=..., stop_after=None) -> Lowered
    compile_lowered(lowered) -> Kernel

Each pass is one public function in its own file. PYHALIDE_DEBUG=1 lists the
passes with the CPU time each took, 2 prints the IR after each (marking passes that changed nothing),
PYHALIDE_TIME_PASSES=1 times them, PYHALIDE_VERIFY=1 (or config.verify)
verifies the IR after each pass."""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field

from pyhalide import ir
from pyhalide.ir.config import config, debug_print
from pyhalide.ir.mutator import children
from pyhalide.ir.recursion import deep_entry

from . import interrupt, native_entry, runtime_ahead
from .access_checks import add_access_checks
from .assert_fast_path import assert_fast_path
from .bounds_inference import infer_bounds
from .carry_loop_state import carry_loop_state
from .collapse_loops import collapse_loops
from .context import LoweringContext, buffer_name, internal_name
from .drop_invariant_marks import drop_invariant_marks
from .drop_self_stores import drop_self_stores
from .gc_pause import cycle_collection_paused
from .hoist_invariant_if import hoist_invariant_if
from .in_place import check_in_place, drop_copy_in
from .in_place_checks import hoist_loop_checks
from .injective_layout import injective_layout
from .inline import inline_functions
from .invariant_division import hoist_invariant_division
from .invariant_exit import invariant_exit
from .lazy_copies import LAZY_ERROR, lazy_copies
from .loop_range_facts import loop_range_facts
from .loop_synthesis import synthesize_loops
from .partition_loops import partition_loops
from .peel_shift_inwards import peel_shift_inwards
from .promote_accumulators import promote_accumulators
from .promote_tile_accumulators import promote_tile_accumulators
from .ramp_div_mod import ramp_div_mod
from .realization_order import realization_order
from .require_checks import lower_require
from .rotate_loop_exit import rotate_loop_exit
from .select_to_branch import select_to_branch
from .share_subexpressions import share_subexpressions
from .simplify import clear_caches, simplify
from .specialize_rows import specialize_rows
from .split_div_loops import split_div_loops
from .split_exit_store import split_exit_store
from .split_mod_loops import split_mod_loops
from .split_permuted_loops import split_permuted_loops
from .stage_levels import place_at_stages
from .stage_races import stepped_loops
from .storage_flattening import flatten_storage
from .trace_realizations import inject_realization_tracing, traces_realizations
from .trim_guarded_loop import trim_guarded_loop
from .trim_loop_guard import trim_loop_guards
from .trim_no_ops import trim_no_ops
from .unroll import unroll_loops
from .unswitch_clamps import unswitch_clamps
from .unswitch_lazy import unswitch_lazy
from .vectorize import vectorize_loops
from .verify import verify

STAGES = ("defs", "loops", "final", "llvm", "llvm_opt", "asm")


@dataclass
class Lowered:
    name: str
    stmt: ir.Stmt
    buffers: list                 # [runtime.BufferArg]: inputs, then outputs
    params: list                  # [ir.ScalarParam]
    texts: dict = field(default_factory=dict)   # stage -> text, or a thunk making it
    rows: dict = field(default_factory=dict)    # extent name -> the value specialized on
    whole: object = None          # () -> the final Stmt with every cold copy, where
                                  # `stmt` lacks some (lazy_copies.py); else None

    def text(self, stage: str) -> str:
        """The text of a stage, printed on demand (a compile prints nothing)."""
        if stage in self.texts:
            if callable(self.texts[stage]):
                self.texts[stage] = self.texts[stage]()
            return self.texts[stage]
        if stage in ("llvm", "llvm_opt", "asm"):
            from .jit import generate_text
            return generate_text(self.stmt, self.name, self.buffers, self.params, stage=stage)
        raise ValueError(f"unknown stage {stage!r}; choose one of {', '.join(STAGES)}")


def _kernel_name(outputs) -> str:
    return "pyhalide_" + re.sub(r"[^A-Za-z0-9_]", "_", "_".join(outputs))


def _buffer_args(ctx: LoweringContext):
    from .runtime import BufferArg
    out = [BufferArg(img.name, img.type, img.dimensions, False) for img in ctx.inputs]
    for name in ctx.outputs:
        fn = ctx.env[name]
        n = len(fn.output_types)
        for i, t in enumerate(fn.output_types):
            out.append(BufferArg(buffer_name(name, i, n), t, fn.dimensions(), True))
    return out


def _defined_symbols(ctx: LoweringContext, buffers) -> set:
    names = {p.name for p in ctx.params}
    for b in buffers:
        for d in range(b.dimensions):
            for f in ("min", "extent", "stride"):
                names.add(f"{b.name}.{f}.{d}")
    return names


def defs_text(env: dict, order_hint=None) -> str:
    names = order_hint or sorted(env)
    return "\n".join(ir.function_to_str(env[n]) for n in names if n in env)


def lower(outputs, env, inputs, params, dense=None, stop_after=None, rows=None,
          in_place=None, probe=None) -> Lowered:
    """Lower the Funcs `outputs` (ir.Functions; `env` maps every reachable
    name to its Function) to a final Stmt. The simplifier's and linear
    forms' memos serve one compile and are emptied after it (they hold the
    nodes they saw: kept, they would grow with every kernel compiled), before
    the cycle collector runs again: its first collection then has only what
    lowering keeps to traverse (emptied after it, they cost interpolate's
    first collection about 0.1 s). `rows`: extent name -> its value now,
    for specialize_rows. `in_place`: output Func name -> the input image
    its pure definition copies, for the in-place variant (in_place.py:
    InPlaceRefused where it does not apply). `probe`: the kernel's input
    symbols' values at the call it is compiled for, whose cold copies
    that call does not run are left out (lazy_copies.py); None: all
    compiled. A full lowering (no
    `stop_after`) is for a compile: the runtimes a kernel needs that this
    process has not loaded yet are compiled meanwhile on another core
    (runtime_ahead.py; the parallel runtime from jit.compile_pipeline, which
    knows whether the kernel has parallel loops)."""
    if stop_after is None:
        runtime_ahead.start(native_entry.ahead_jobs() + interrupt.ahead_jobs())
    with cycle_collection_paused():
        try:
            return _lower(outputs, env, inputs, params, dense, stop_after, rows, in_place,
                          probe)
        finally:
            clear_caches()


def _lower(outputs, env, inputs, params, dense, stop_after, rows=None, in_place=None,
           probe=None) -> Lowered:
    out_names = [fn.name for fn in outputs]
    ctx = LoweringContext(out_names, dict(env), list(inputs), list(params),
                          frozenset(dense or ()))
    lowered = Lowered(_kernel_name(out_names), None, [], ctx.params)
    lowered.texts["defs"] = lambda: defs_text(env)
    if stop_after == "defs":
        return lowered
    buffers = _buffer_args(ctx)
    lowered.buffers = buffers
    symbols = _defined_symbols(ctx, buffers)
    buffer_names = {b.name for b in buffers}
    verified = [None, False]      # the Stmt verified last, and whether as flattened
    verify_memo = {}              # verify_summary's summaries, by node id

    def checked(stmt, flattened):
        """Verify stmt unless it is the Stmt verified last (a pass that changed
        nothing), checked then at least as strictly."""
        if stmt is not verified[0] or (flattened and not verified[1]):
            verify(stmt, symbols, buffer_names, flattened, verify_memo)
            verified[:] = [stmt, flattened]

    def run(name, fn, stmt, flattened=False, check=True):
        t0, c0 = time.perf_counter(), time.process_time()
        new = fn(stmt)
        cpu = (time.process_time() - c0) * 1e3
        if config.time_passes:
            print(f"pyhalide: pass {name}: {(time.perf_counter() - t0) * 1e3:.2f} ms "
                  f"({cpu:.2f} ms CPU)", file=sys.stderr)
        debug_print(1, f"pyhalide: pass {name} ({cpu:.1f} ms CPU)")
        if config.debug >= 2 and isinstance(new, ir.Stmt):
            mark = " (unchanged)" if new is stmt else ""
            debug_print(2, f"--- after {name}{mark}:\n{ir.to_str(new)}")
        if config.verify and check and isinstance(new, ir.Stmt):
            checked(new, flattened)
        return new

    for fn in env.values():
        if fn.schedule.device:
            raise NotImplementedError(
                f"Func {fn.name} is scheduled with {fn.schedule.device}() for a GPU or DSP: "
                f"pyhalide compiles for the CPU only (no GPU or DSP offload); schedule it "
                f"with parallel() and vectorize()")
    ctx.order = realization_order(ctx)
    debug_print(1, f"pyhalide: realization order: {', '.join(ctx.order)}")
    ctx.env = inline_functions(ctx.env, out_names)
    place_at_stages(ctx)
    # loop synthesis leaves the region symbols to bounds inference: verified after it
    stmt = run("loop synthesis", lambda _: synthesize_loops(ctx), None, check=False)
    stmt = run("require checks", lower_require, stmt, check=False)
    stmt = run("share subexpressions", share_subexpressions, stmt, check=False)
    stmt = run("bounds inference", lambda s: infer_bounds(s, ctx), stmt)
    if in_place:
        stmt = run("drop copy-in", lambda s: drop_copy_in(s, in_place), stmt)
    if traces_realizations(ctx):
        stmt = run("trace realizations", lambda s: inject_realization_tracing(s, ctx), stmt)
    stmt = run("access checks", lambda s: add_access_checks(s, ctx), stmt)
    stmt = run("simplify", simplify, stmt)
    loops = stmt
    lowered.texts["loops"] = lambda: ir.to_str(loops)
    if stop_after == "loops":
        return lowered
    stmt = run("storage flattening", lambda s: flatten_storage(s, ctx), stmt, True)
    stmt = run("simplify", simplify, stmt, True)
    whole = stmt
    if probe is not None and not in_place:
        stmt = run("lazy copies", lambda s: lazy_copies(s, probe), stmt, True)
    cut = stmt is not whole
    pure, stepped, pure_out = _pure_storage(ctx), _stepped(ctx), _pure_outputs(ctx)
    never = _never_partitioned(ctx)

    def finish(stmt, specialized):
        """The passes after storage flattening (`specialized`: the rows
        specialize_rows specialized on)."""
        stmt = _finish(stmt, run, (pure, stepped, pure_out, never), rows, specialized)
        checked(stmt, True)
        if in_place:
            outputs = set(in_place) | {internal_name(o) for o in in_place}
            stmt = run("hoist in-place checks", lambda s: hoist_loop_checks(s, outputs), stmt,
                       True)
            check_in_place(stmt, in_place)
        return stmt
    stmt = finish(stmt, lowered.rows)
    if cut and _has_lazy(stmt):
        lowered.whole = lambda: _later(finish, whole)
    lowered.stmt = stmt
    lowered.texts["final"] = lambda: ir.to_str(stmt)
    return lowered


def _finish(stmt, run, facts, rows, specialized):
    pure, stepped, pure_out, never = facts
    stmt = run("trim no-ops", trim_no_ops, stmt, True)
    stmt = run("drop self stores", drop_self_stores, stmt, True)
    stmt = run("split permuted loops", split_permuted_loops, stmt, True)
    stmt = run("unswitch lazy selects", unswitch_lazy, stmt, True)
    stmt = run("unswitch clamps", unswitch_clamps, stmt, True)
    stmt = run("trim loop guards", trim_loop_guards, stmt, True)
    stmt = run("partition loops", lambda s: partition_loops(s, never), stmt, True)
    stmt = run("select to branch", select_to_branch, stmt, True)
    stmt = run("trim guarded loop", trim_guarded_loop, stmt, True)
    stmt = run("invariant exit", invariant_exit, stmt, True)
    stmt = run("carry loop state", carry_loop_state, stmt, True)
    stmt = run("loop range facts", loop_range_facts, stmt, True)
    stmt = run("rotate loop exit", rotate_loop_exit, stmt, True)
    stmt = run("split exit store", split_exit_store, stmt, True)
    # (an `if` moved out of a loop first: an accumulator promoted inside it is
    # loaded and stored back only where the test holds: carried_zero_ties.py)
    stmt = run("hoist invariant if", hoist_invariant_if, stmt, True)
    stmt = run("promote accumulators", promote_accumulators, stmt, True)
    stmt = run("hoist invariant if", hoist_invariant_if, stmt, True)
    stmt = run("drop invariant marks", drop_invariant_marks, stmt, True)
    stmt = run("vectorize", lambda s: vectorize_loops(s, pure, stepped, pure_out), stmt, True)
    stmt = run("promote vector accumulators", lambda s: promote_accumulators(s, True), stmt, True)
    stmt = run("vector select to branch", lambda s: select_to_branch(s, True), stmt, True)
    stmt = run("unroll", unroll_loops, stmt, True)
    stmt = run("ramp div mod", ramp_div_mod, stmt, True)
    stmt = run("promote unrolled accumulators", lambda s: promote_accumulators(s, tag="u"),
               stmt, True)
    stmt = run("promote tile accumulators", promote_tile_accumulators, stmt, True)
    stmt = run("collapse loops", collapse_loops, stmt, True)
    stmt = run("peel shift-inwards vectors", peel_shift_inwards, stmt, True)
    stmt = run("assert fast path", assert_fast_path, stmt, True)
    stmt = run("specialize rows", lambda s: specialize_rows(s, rows, specialized), stmt, True)
    stmt = run("simplify", simplify, stmt, True)
    stmt = run("split mod loops", split_mod_loops, stmt, True)
    stmt = run("split div loops", split_div_loops, stmt, True)
    return run("invariant division", hoist_invariant_division, stmt, True)


def _has_lazy(stmt) -> bool:
    """Whether a left-out copy's check (lazy_copies.LAZY_ERROR) is in stmt."""
    stack = [stmt]
    while stack:
        s = stack.pop()
        if isinstance(s, ir.AssertStmt) and s.error == LAZY_ERROR:
            return True
        stack.extend(c for c in children(s) if isinstance(c, ir.Stmt))
    return False


def _later(finish, whole):
    """The final Stmt with every cold copy: lowering's last passes on the
    Stmt saved before lazy_copies (a lazy kernel's whole kernel)."""
    with cycle_collection_paused():
        try:
            return finish(whole, {})
        finally:
            clear_caches()


def _pure_storage(ctx: LoweringContext) -> frozenset:
    """The buffers only a pure definition stores to, each point once at an
    address of its own: Funcs without updates, not outputs (whose buffers
    the caller lays out), not folded (vectorize_loops may order their
    stores freely)."""
    names = set()
    for name, fn in ctx.env.items():
        if fn.updates or ctx.is_output(name) or name in ctx.folds or fn.pure is None:
            continue
        n = len(fn.output_types)
        names.update(buffer_name(name, i, n) for i in range(n))
    return frozenset(names)


def _never_partitioned(ctx: LoweringContext) -> frozenset:
    """The loop variables (as loop synthesis named them: a split's outer
    that reuses its dimension's name is renamed) of the dimensions a
    schedule marked partition(v, Partition.Never)."""
    out = set()
    for name, fn in ctx.env.items():
        for k, d in enumerate([fn.pure] + list(fn.updates)):
            never = {x.var for x in d.schedule.dims if not x.partition} if d else ()
            hit = ctx.stage_loops.get((name, k)) if never else None
            if hit is not None and hit[0] is d:
                out.update(lp.var for lp in hit[1].loops if lp.dim in never)
    return frozenset(out)


def _pure_outputs(ctx: LoweringContext) -> dict:
    """Output buffer -> the condition (evaluated when the kernel runs) under
    which it is pure storage too: the outputs _pure_storage leaves out only
    for being outputs, stored in the caller's buffer itself, whose layout
    gives each point an element of its own (injective_layout)."""
    out = {}
    for name, fn in ctx.env.items():
        if fn.updates or not ctx.is_output(name) or name in ctx.folds or fn.pure is None:
            continue
        n = len(fn.output_types)
        for i in range(n):
            buf = buffer_name(name, i, n)
            out[buf] = injective_layout(buf, fn.dimensions(), buf in ctx.dense)
    return out


def _stepped(ctx: LoweringContext) -> dict:
    """Loop name -> the buffers of its Func, for the RVar loops of updates
    the schedule proved free of races although they read the Func at other
    coordinates (stage_races.stepped_loops)."""
    out = {}
    for name, fn in ctx.env.items():
        n = len(fn.output_types)
        for k, d in enumerate(fn.updates):
            for var in stepped_loops(fn, d):
                bufs = [buffer_name(name, i, n) for i in range(n)]
                out[f"{name}.s{k + 1}.{var}"] = frozenset(bufs + [internal_name(b) for b in bufs])
    return out


def compile_lowered(lowered: Lowered):
    """The Kernel of a lowered pipeline; a lazy one (lazy_kernel.py) compiles
    its whole kernel from `lowered.whole` when a call first needs it."""
    from .jit import compile_pipeline
    kernel = compile_pipeline(lowered.stmt, lowered.name, lowered.buffers, lowered.params)
    if kernel.lazy is not None and lowered.whole is not None:
        whole, name, buffers, params = lowered.whole, lowered.name, lowered.buffers, lowered.params
        kernel.lazy.thunk = deep_entry(lambda: compile_pipeline(whole(), name, buffers, params))
    return kernel
