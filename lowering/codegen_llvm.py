"""Final lowered Stmt -> llvmlite ir.Module.

    codegen(stmt, name, buffers, params, *, triple="", data_layout="",
            reassociate=False, parallel=True, cpu="") -> CodegenOutput

`buffers` are objects with .name, .type (pyhalide ir.Type), .dimensions and
.is_output (runtime.BufferArg); `params` are ir.ScalarParam. The module
defines one external function, the entry point (named by entry_symbol(name),
i.e. "pyhalide_<name>" unless name already starts with "pyhalide_")

    i32 <entry>(ptr args)

where `args` is an array of pointers: per buffer (data pointer, pointer to
int64[3*dims] = min0, extent0, stride0, min1, ... with strides in elements),
then one pointer per scalar param (to the value in its type, bool as one
byte), then a pointer to an int64[17] error array. It returns 0 on success;
on failure it writes err[0] = index+1 of the failed check in
CodegenOutput.errors and the check's arguments in err[1..15], frees every
live heap allocation and returns 1.

err[16] (CANCEL_SLOT) holds the address of the call's cancel flag (an
int64, set asynchronously: runtime.py's Ctrl-C handling). The code reads it
at each iteration of the outermost two loops of a loop nest that contain a
long loop (one whose extent is not a constant of at most SHORT_LOOP), and at
each iteration of an outlined parallel loop that contains one (so between a
parallel loop's chunks too): one read per row or tile, not per element.
When it is nonzero the call stops like a failed check, with err[0] =
CANCELLED. Short constant loops do not count: LLVM unrolls them fully, and a
check in the loop around them (which becomes innermost then) would keep
LLVM from vectorizing that loop (a fully fused blur ran 17x slower). The
innermost loop of a nest is never interrupted.

The entry loads the data pointers and calls `<entry>.body` (internal), which
takes them as `noalias` parameters: buffers never overlap (runtime.py checks
that outputs share no memory with any other buffer; inputs are only read).

Inside the Stmt, buffer `f` is addressed by Load/Store name `f` and its
geometry is visible as int32 Variables `f.min.<d>`, `f.extent.<d>`,
`f.stride.<d>`; scalar params as Variables named as the param.

Buffer indices are int32 expressions, turned into 64-bit addresses: the
part of an index that does not depend on data is computed in 64-bit
arithmetic (no overflow of 32-bit index arithmetic is assumed, as bounds
inference assumes), a part that depends on data keeps its wrapping int32
value and is sign-extended (see index64).

Serial, vectorized and unrolled loops are emitted as serial loops whose body
is emitted as it is (lowering has already rewritten vectorized loops into
vector expressions). A parallel loop's body is outlined into a task

    i32 <entry>.parN(i32 lo, i32 hi, ptr closure)

that runs iterations [lo, hi) and returns nonzero on failure; the closure is
a struct of every enclosing value and buffer pointer the body uses plus the
error array. The loop itself becomes a call to the parallel runtime's
`pyhalide_par_for(task, min, extent, closure)` (parallel_runtime.py); a
failure inside a task propagates to the caller's cleanup. With
`parallel=False` parallel loops are emitted serially instead.

The else branch of a ShiftInwards small-extent test (`if (f.rD.extent >= k)
{whole chunks} else {copy for regions smaller than one chunk}`,
cold_copies.small_extent_test) that is outside every loop of its function
is outlined the same way into `<entry>.coldN(i32 0, i32 0, ptr closure)`, called once;
it and every task outlined inside it are `cold noinline optnone`: LLVM
spends almost nothing on code that runs only for images smaller than a
chunk (interpolate, local Laplacian: a third of LLVM's time). Such copies
tested inside a loop (a Func computed per tile, whose small pyramid levels
run their copy on every tile) stay in their function, optimized.

A kernel whose top level is mostly straight-line bookkeeping (bounds,
allocation sizes, checks: bookkeeping_body.is_bookkeeping) gets its `.body`
function marked `noinline optnone`, and each serial loop at that top level
outlined the same way into `<entry>.loopN(i32 0, i32 0, ptr closure)`, a
function optimized as before that emits the whole loop, its bounds included
(_emit_outlined_loop): LLVM translates the bookkeeping without optimizing it
(local Laplacian: a third of the module's optimization time).

Expressions are memoized by node identity within one statement, so a DAG
with shared subexpressions is emitted once per use site, not once per path.
Pure operators are also numbered by value across statements (emit): one
applied again to the same LLVM operands, where the first value dominates,
is that value; values of a loop body, a branch or a failure path are
forgotten when it ends (enter_branch/leave_branch).
Integer And/Or evaluate both sides (no short circuit): loads must be guarded
by IfThenElse or by the lazy `if_then_else(cond, a, b)` intrinsic, which
evaluates only the branch its scalar condition picks (Select evaluates both).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field

from llvmlite import ir as ll

from pyhalide import ir
from pyhalide.ir.mutator import children

from . import atomic_updates, pairwise_loads, row_prefetch
from . import codegen_ops as ops
from .allocation_bounds import allocation_bounds
from .bookkeeping_body import is_bookkeeping, share_attributes
from .codegen_explog import has_avx512
from .codegen_mask_parts import MaskParts
from .codegen_math import WIDE
from .codegen_ops import I1, I8, I32, I64, PTR, CodegenError, const, llvm_type
from .cold_copies import exits_outside, small_extent_test
from .half_ramp_loads import clamped_ramp_index, half_ramp_index
from .shared_lane_gathers import lanes_share_coordinate
from .wide_store_loops import wide_store_loop

__all__ = ["codegen", "CodegenOutput", "ErrorRecord", "CodegenError", "ERR_SLOTS",
           "CANCEL_SLOT", "CANCELLED", "FORWARD_SLOT", "LAZY_ERROR"]

PAR_FOR = "pyhalide_par_for"    # the parallel runtime's entry (parallel_runtime.py)
ERR_SLOTS = 16                  # int64 slots of the error array for a failed check
CANCEL_SLOT = ERR_SLOTS         # then: the address of the call's cancel flag
FORWARD_SLOT = ERR_SLOTS + 1    # then: the address of a lazy kernel's forward cell
LAZY_ERROR = "PyhalideLazyCopy"  # a left-out cold copy's check (lazy_copies.py)
CANCELLED = -1                  # err[0] of a call stopped by its cancel flag
SHORT_LOOP = 64                 # loops of at most this constant extent get no cancel check
STACK_LIMIT = 64 * 1024         # allocations bounded by this may go on the stack,
STACK_BUDGET = 256 * 1024       # as long as one function's total stays under this
HEAP_ALIGN = 64
HUGE_PAGE_MIN = 1 << 22         # heap allocations from 4 MiB get MADV_HUGEPAGE (NumPy's rule)
MADV_HUGEPAGE = 14              # Linux


@dataclass(frozen=True)
class ErrorRecord:
    """What the runtime raises when check number i fails: Python exception
    `error` with `message.format(*args)`; arg_kinds says how to read each
    int64 slot: 'i' signed, 'u' unsigned, 'f' float (bits of a double),
    'b' bool."""

    error: str
    message: str
    arg_kinds: tuple


@dataclass
class CodegenOutput:
    module: ll.Module
    entry_name: str
    errors: list = field(default_factory=list)
    uses_parallel: bool = False         # calls the parallel runtime


def entry_symbol(name: str) -> str:
    """The symbol of a kernel's entry point: prefixed with "pyhalide_" so it
    can never shadow a C library function the code calls (a kernel named
    `sinf` or `free`), and kept apart from the parallel runtime's symbols."""
    sym = name if name.startswith("pyhalide_") else "pyhalide_" + name
    if sym == PAR_FOR or sym.startswith("pyhalide_rt_"):
        sym += "_kernel"
    return sym


def codegen(stmt: ir.Stmt, name: str, buffers, params, *, triple: str = "",
            data_layout: str = "", reassociate: bool = False,
            parallel: bool = True, cpu: str = "", features: str = "") -> CodegenOutput:
    """Build the LLVM module for `stmt` (see the module docstring).
    `reassociate` lets every float VectorReduce combine lanes in any order;
    a VectorReduce node with a true `reassoc` attribute opts in by itself.
    `cpu` (an LLVM CPU name) decides which streams are prefetched
    (codegen_ops.min_work_per_stream); `features` (LLVM's feature string; "":
    no target given) how codegen_explog reads its tables."""
    names = [b.name for b in buffers] + [p.name for p in params]
    if len(set(names)) != len(names):
        raise CodegenError(f"duplicate buffer/param names in {names}")
    if not name.isidentifier():
        raise CodegenError(f"kernel name {name!r} is not an identifier")
    mod = ll.Module(name=name)
    mod.pyhalide_features = features        # read by codegen_explog.has_avx512
    name = entry_symbol(name)
    if triple:
        mod.triple = triple
    if data_layout:
        mod.data_layout = data_layout
    state = _ModuleState(mod, name, reassociate, parallel)
    state.prefetch_min_work = ops.min_work_per_stream(cpu)
    state.allocation_bounds = allocation_bounds(stmt)
    state.huge_pages = "linux" in triple if triple else sys.platform.startswith("linux")

    nb = len(buffers)
    body_ty = ll.FunctionType(I32, [PTR] * (1 + nb))
    body_fn = ll.Function(mod, body_ty, name=f"{name}.body")
    body_fn.linkage = "internal"
    body_fn.attributes.add("nounwind")
    for i in range(nb):
        body_fn.args[1 + i].add_attribute("noalias")

    entry_fn = ll.Function(mod, ll.FunctionType(I32, [PTR]), name=name)
    entry_fn.attributes.add("nounwind")

    em = _FunctionEmitter(state, body_fn)
    if is_bookkeeping(stmt):
        em.outline_loops = True
        for a in ("noinline", "optnone"):
            body_fn.attributes.add(a)
    args = body_fn.args[0]
    bb = em.alloca_builder
    for i, buf in enumerate(buffers):
        if buf.type.lanes != 1:
            raise CodegenError(f"buffer {buf.name} has a vector type {buf.type}")
        em.push_buffer(buf.name, body_fn.args[1 + i], buf.type)
        shape = bb.load(bb.gep(args, [ll.Constant(I64, 2 * i + 1)], source_etype=PTR), typ=PTR)
        for d in range(buf.dimensions):
            for k, what in enumerate(("min", "extent", "stride")):
                p = bb.gep(shape, [ll.Constant(I64, 3 * d + k)], source_etype=I64)
                v64 = bb.load(p, typ=I64)
                # runtime.py refuses geometry beyond int32: v64 == sext(v)
                em.bind(f"{buf.name}.{what}.{d}", bb.trunc(v64, I32), v64)
    for j, p in enumerate(params):
        slot = bb.load(bb.gep(args, [ll.Constant(I64, 2 * nb + j)], source_etype=PTR), typ=PTR)
        if p.type.lanes != 1:
            raise CodegenError(f"param {p.name} has a vector type {p.type}")
        v = bb.load(slot, typ=llvm_type(p.type, memory=True))
        if p.type.is_bool():
            v = bb.icmp_unsigned("!=", v, ll.Constant(I8, 0))
        em.bind(p.name, v, bb.sext(v, I64) if p.type == ir.Int(32) else DATA_FREE)
    em.err_ptr = bb.load(bb.gep(args, [ll.Constant(I64, 2 * nb + len(params))],
                                source_etype=PTR), typ=PTR)
    em.emit_stmt(stmt)
    em.finish()
    share_attributes(body_fn, state.outlined_loops)
    _entry(entry_fn, body_fn, nb, 2 * nb + len(params), state.errors)
    return CodegenOutput(mod, name, state.errors, state.uses_parallel)


def _entry(entry_fn, body_fn, nb: int, err_arg: int, errors) -> None:
    """The entry's code: load the data pointers and call `.body`. A lazy
    kernel's (one with a LAZY_ERROR check: lazy_copies.py) first reads
    err[FORWARD_SLOT]: where it is the address of a cell holding the entry
    of the whole kernel (lazy_kernel.py), the call goes there, and a code
    that kernel stores in err[0] is shifted past this kernel's errors."""
    b = ll.IRBuilder(entry_fn.append_basic_block("entry"))
    args = entry_fn.args[0]
    if any(e.error == LAZY_ERROR for e in errors):
        err = b.load(b.gep(args, [ll.Constant(I64, err_arg)], source_etype=PTR), typ=PTR)
        cell = b.load(b.gep(err, [ll.Constant(I64, FORWARD_SLOT)], source_etype=I64), typ=PTR)
        here = entry_fn.append_basic_block("here")
        check = entry_fn.append_basic_block("forward.check")
        b.cbranch(b.icmp_unsigned("==", cell, ll.Constant(PTR, None)), here, check)
        b.position_at_end(check)
        fptr = entry_fn.function_type.as_pointer()
        target = b.load(cell, typ=fptr)
        go = entry_fn.append_basic_block("forward")
        b.cbranch(b.icmp_unsigned("==", target, ll.Constant(fptr, None)), here, go)
        b.position_at_end(go)
        rc = b.call(target, [args])
        shift = entry_fn.append_basic_block("forward.failed")
        done = entry_fn.append_basic_block("forward.done")
        b.cbranch(b.icmp_signed("==", rc, ll.Constant(I32, 0)), done, shift)
        b.position_at_end(shift)
        code = b.load(err, typ=I64)
        fix = entry_fn.append_basic_block("forward.shift")
        b.cbranch(b.icmp_signed("==", code, ll.Constant(I64, CANCELLED)), done, fix)
        b.position_at_end(fix)
        b.store(b.add(code, ll.Constant(I64, len(errors))), err)
        b.branch(done)
        b.position_at_end(done)
        b.ret(rc)
        b.position_at_end(here)
    data = [b.load(b.gep(args, [ll.Constant(I64, 2 * i)], source_etype=PTR), typ=PTR)
            for i in range(nb)]
    b.ret(b.call(body_fn, [args] + data))
    if WIDE in body_fn.attributes and WIDE not in entry_fn.attributes:
        set.add(entry_fn.attributes, WIDE)      # (what prefer_wide_vectors gave `.body`)


class _ModuleState:
    """What all functions of one module share: the error table, options and
    the numbering of outlined parallel tasks and cold functions."""

    def __init__(self, module: ll.Module, name: str, reassociate: bool, parallel: bool):
        self.module = module
        self.name = name
        self.reassociate = reassociate
        self.parallel = parallel
        self.uses_parallel = False
        self.tasks = 0
        self.colds = 0                      # cold functions outlined (_emit_cold)
        self.outlined_loops: list = []      # (task, its body) of each serial loop outlined
                                            # (_emit_outlined_loop)
        self.errors: list = []
        self.allocation_bounds: dict = {}   # id(Allocate) -> bound of its element count
        self.huge_pages = False             # large heap allocations get MADV_HUGEPAGE (Linux)
        self.prefetch_min_work = 0          # see codegen_ops.Loop
        # codegen_ops' loop analyses: the names below each expression
        # (ir.mentioned_names) and each loop's streaming_loop, kept for the module
        self.names_memo: dict = {}

    def add_error(self, error: str, message: str, arg_kinds) -> int:
        self.errors.append(ErrorRecord(error, message, tuple(arg_kinds)))
        return len(self.errors)       # the code stored in err[0]


# Sentinel of bind(): a value of a type other than int32 that depends on no data.
DATA_FREE = object()
_INT32 = ir.Int(32)

# Int32 operators computed in 64 bits by wide_index, as IRBuilder methods.
_WIDE_OPS = {ir.Add: "add", ir.Sub: "sub", ir.Mul: "mul", ir.Min: "smin", ir.Max: "smax"}


def _narrow_unsigned(e) -> bool:
    """Whether e is a scalar int32 cast of an unsigned integer of at most 16 bits."""
    if not isinstance(e, ir.Cast) or e.type != _INT32:
        return False
    t = e.value.type
    return t.lanes == 1 and t.is_uint() and t.bits <= 16


def _const_of(e):
    """The Python value of a scalar constant or a Broadcast of one, else None."""
    while isinstance(e, ir.Broadcast):
        e = e.value
    if isinstance(e, ir.Const):
        return e.value
    return None


class _FunctionEmitter:
    """Emits one LLVM function: the statement walk, expression evaluation,
    scopes, allocations and the shared failure/cleanup path."""

    def __init__(self, state: _ModuleState, fn: ll.Function):
        self.state = state
        self.module = state.module
        self.fn = fn
        self.alloca_block = fn.append_basic_block("allocas")
        self.alloca_builder = ll.IRBuilder(self.alloca_block)
        self.start_block = fn.append_basic_block("start")
        self.b = ll.IRBuilder(self.start_block)
        self.scope: dict = {}           # name -> stack of LLVM values
        self.let_values: dict = {}      # name -> stack of the IR values of LetStmts in scope
        self.buffer_depth: dict = {}    # buffer name -> stack of the loop depths it was bound at
        self.wide: dict = {}            # name -> stack of wide forms (see bind)
        self.let_exprs: dict = {}       # name -> stack of (IR, names used) of vector lets
        self.buffers: dict = {}         # name -> stack of (pointer, ir.Type)
        self.allocated: set = set()     # buffers allocated by the pipeline (not inputs)
        self.heap_slots: list = []      # entry allocas holding live heap pointers
        self.stack_bytes = 0            # allocation bytes placed on the stack so far
        self.cleanup_block = None
        self.err_ptr = None
        self.cancel_flag = None         # pointer to the call's cancel flag, loaded once
        self.cache: list = [{}]         # expression memo layers (see emit)
        self.cache_floor = 0            # layers below this are hidden (shadowing)
        self.numbered: dict = {}        # value-number key -> (value, operands) (see emit)
        self.numbered_log: list = []    # keys in the order numbered
        self.numbered_marks: list = []  # len(numbered_log) at each open branch scope
        self.loops: list = []           # ops.Loop of each serial loop around
        self.row_groups: list = []      # row_prefetch.RowGroups of each serial loop around
        self.exits: dict = {}           # serial loop name -> stack of (function, end block)
        self.cold = False               # a cold function (_cold_function)
        self.outline_loops = False      # a bookkeeping function (_emit_outlined_loop)
        # wide float compares' masks a register at a time (codegen_mask_parts)
        self.mask_parts = MaskParts(self) if has_avx512(self.module) else None

    # ---- scopes ---------------------------------------------------------
    def bind(self, name: str, value, wide=None):
        """Bind `name` to LLVM `value`. `wide` says what index arithmetic may
        assume of it (see wide_index): an i64 value (an int32 that does not
        depend on data, as a 64-bit integer), DATA_FREE (another type, not
        depending on data) or None (may depend on data)."""
        self.scope.setdefault(name, []).append(value)
        self.wide.setdefault(name, []).append(wide)
        self.let_exprs.setdefault(name, []).append(None)

    def unbind(self, name: str):
        stack = self.scope[name]
        stack.pop()
        if not stack:
            del self.scope[name]
        stack = self.wide[name]
        stack.pop()
        if not stack:
            del self.wide[name]
        stack = self.let_exprs[name]
        stack.pop()
        if not stack:
            del self.let_exprs[name]

    def _note_vector_let(self, name: str, value: ir.Expr):
        """Remember the IR of vector let `name` (bound just now) when it may
        be a halved or clamped ramp (half_ramp_loads), with the values of the
        names it uses, for let_expr."""
        if value.type.lanes > 1 and isinstance(value, (ir.Div, ir.Min, ir.Max)):
            used = {v: self.scope[v][-1] for v in ir.free_vars(value) if v in self.scope}
            self.let_exprs[name][-1] = (value, used)

    def let_expr(self, name: str):
        """The IR of vector let `name` in scope, if every name it uses is
        still bound to the same value (else None)."""
        stack = self.let_exprs.get(name)
        entry = stack[-1] if stack else None
        if entry is None:
            return None
        value, used = entry
        if any(self.scope.get(v, [None])[-1] is not x for v, x in used.items()):
            return None
        return value

    def enter_branch(self):
        """Start emitting code that does not dominate what follows its
        end (a loop body, a branch, a failure path): values numbered from
        here on are forgotten at leave_branch."""
        self.numbered_marks.append(len(self.numbered_log))

    def leave_branch(self):
        mark = self.numbered_marks.pop()
        log, numbered = self.numbered_log, self.numbered
        while len(log) > mark:
            del numbered[log.pop()]

    def push_buffer(self, name: str, ptr, t: ir.Type):
        self.buffers.setdefault(name, []).append((ptr, t))
        self.buffer_depth.setdefault(name, []).append(len(self.loops))

    def pop_buffer(self, name: str):
        stack = self.buffers[name]
        stack.pop()
        if not stack:
            del self.buffers[name]
        depths = self.buffer_depth[name]
        depths.pop()
        if not depths:
            del self.buffer_depth[name]

    def lookup_buffer(self, name: str):
        stack = self.buffers.get(name)
        if not stack:
            raise CodegenError(f"access to unknown buffer {name!r}")
        return stack[-1]

    # ---- function frame -------------------------------------------------
    def finish(self):
        """Close the function: return 0 at the end of the emitted code, jump
        from the allocas block to the start, fill in the cleanup block."""
        if self.b.block.terminator is None:
            self.b.ret(ll.Constant(I32, 0))
        self.alloca_builder.branch(self.start_block)
        if self.cleanup_block is not None:
            cb = ll.IRBuilder(self.cleanup_block)
            free = self.runtime_fn("free", ll.VoidType(), [PTR])
            for slot in self.heap_slots:
                cb.call(free, [cb.load(slot, typ=PTR)])
            cb.ret(ll.Constant(I32, 1))

    def runtime_fn(self, name, ret, args):
        fn = self.module.globals.get(name)
        if fn is None:
            fn = ll.Function(self.module, ll.FunctionType(ret, args), name=name)
            fn.attributes.add("nounwind")
        return fn

    def entry_alloca(self, ty, count=None, align=0):
        p = self.alloca_builder.alloca(ty, size=count)
        p.type = PTR          # an opaque pointer (llvmlite types allocas as typed)
        if align:
            p.align = align
        return p

    def get_cleanup(self):
        if self.cleanup_block is None:
            self.cleanup_block = self.fn.append_basic_block("cleanup")
        return self.cleanup_block

    def emit_failure(self, code: int, args):
        """In the current (failure) block: record error `code` and int64 args
        (first failure wins, atomically), then leave through the cleanup."""
        b = self.b
        res = b.cmpxchg(self.err_ptr, ll.Constant(I64, 0), ll.Constant(I64, code),
                        "monotonic", "monotonic")
        won = b.extract_value(res, 1)
        store_bb = self.fn.append_basic_block("store_err_args")
        b.cbranch(won, store_bb, self.get_cleanup())
        b.position_at_end(store_bb)
        for i, a in enumerate(args):
            b.store(a, b.gep(self.err_ptr, [ll.Constant(I64, i + 1)], source_etype=I64))
        b.branch(self.get_cleanup())

    def cancel_check(self):
        """Leave through the cleanup with err[0] = CANCELLED when the call's
        cancel flag is set."""
        if self.cancel_flag is None:
            ab = self.alloca_builder
            slot = ab.gep(self.err_ptr, [ll.Constant(I64, CANCEL_SLOT)], source_etype=I64)
            self.cancel_flag = ab.load(slot, typ=PTR)
        b = self.b
        flag = b.load_atomic(self.cancel_flag, "monotonic", 8, typ=I64)
        stop_bb = self.fn.append_basic_block("cancelled")
        cont_bb = self.fn.append_basic_block("not_cancelled")
        br = b.cbranch(b.icmp_signed("!=", flag, ll.Constant(I64, 0)), stop_bb, cont_bb)
        br.set_weights([1, 1 << 20])
        b.position_at_end(stop_bb)
        self.emit_failure(CANCELLED, [])
        b.position_at_end(cont_bb)

    def check(self, ok, error: str, message: str, args=(), arg_kinds=()):
        """Branch to a failure path raising `error` when the i1 `ok` is false."""
        code = self.state.add_error(error, message, arg_kinds)
        b = self.b
        fail_bb = self.fn.append_basic_block("fail")
        cont_bb = self.fn.append_basic_block("ok")
        br = b.cbranch(ok, cont_bb, fail_bb)
        br.set_weights([1 << 20, 1])
        b.position_at_end(fail_bb)
        self.enter_branch()
        self.emit_failure(code, [a() if callable(a) else a for a in args])
        self.leave_branch()
        b.position_at_end(cont_bb)

    # ---- statements -----------------------------------------------------
    def emit_stmt(self, s):
        method = getattr(self, "emit_" + type(s).__name__, None)
        if method is None or not isinstance(s, ir.Stmt):
            raise CodegenError(f"codegen cannot handle statement {type(s).__name__} "
                               "(it should have been lowered away before codegen)")
        self.cache = [{}]
        self.cache_floor = 0
        method(s)

    def emit_Block(self, s):
        for x in s.stmts:
            self.emit_stmt(x)

    def emit_ProducerConsumer(self, s):
        self.emit_stmt(s.body)

    def emit_Evaluate(self, s):
        self.emit(s.value)

    def emit_LetStmt(self, s):
        self.bind(s.name, self.emit(s.value), self.wide_of(s.value))
        self._note_vector_let(s.name, s.value)
        self.let_values.setdefault(s.name, []).append(s.value)
        self.emit_stmt(s.body)
        stack = self.let_values[s.name]
        stack.pop()
        if not stack:
            del self.let_values[s.name]
        self.unbind(s.name)

    def emit_For(self, s):
        if s.kind not in (ir.ForKind.SERIAL, ir.ForKind.PARALLEL, ir.ForKind.VECTORIZED,
                          ir.ForKind.UNROLLED, ir.ForKind.FALLBACK):
            raise CodegenError(f"unknown loop kind {s.kind!r} for loop {s.name}")
        lo = self._index(self.emit(s.min), s.min, "loop min")
        ext = self._index(self.emit(s.extent), s.extent, "loop extent")
        if s.kind == ir.ForKind.PARALLEL and self.state.parallel:
            self._emit_parallel(s, lo, ext)
        elif self.outline_loops and not self.loops and not exits_outside(s):
            self._emit_outlined_loop(s)
        else:
            self._serial_loop(s.name, lo, ext, s.body, self.wide_index(s.min),
                              plain=s.kind == ir.ForKind.FALLBACK)

    def _serial_loop(self, name, lo, ext, body, wide_lo=None, plain=False):
        """for name in [lo, lo + ext): body, with an i32 trip counter. The
        loop variable's wide form is wide_lo + n (wide_lo defaults to the
        sign extension of lo); when the loop bounds depend on data, the
        variable still indexes without overflow: its values are those of
        an int32 range. `plain`: LLVM neither unrolls nor vectorizes the loop
        (ops.plain_loop_metadata); nor does it one that folds a stream of
        one-line vectors (ops.one_line_stream), and it does not unroll a
        scalar fold of more than 255 iterations (ops.scalar_fold), nor one
        whose integer accumulators fill the registers (ops.crowded_fold)."""
        b = self.b
        # (LLVM's unrolling slows a loop folding one line-wide stream)
        memo = self.state.names_memo
        plain = plain or ops.one_line_stream(name, body, memo) or wide_store_loop(
            body, ext.constant if isinstance(ext, ll.Constant) else None)
        fold = not plain and not (isinstance(ext, ll.Constant) and ext.constant < 256) \
            and (ops.scalar_fold(name, body, memo) or ops.crowded_fold(name, body, memo))
        pre = b.block
        body_bb = self.fn.append_basic_block(f"for.{name}")
        after_bb = self.fn.append_basic_block(f"end.{name}")
        b.cbranch(b.icmp_signed(">", ext, ll.Constant(I32, 0)), body_bb, after_bb)
        b.position_at_end(body_bb)
        n = b.phi(I32, name=f"{name}.n")
        n.add_incoming(ll.Constant(I32, 0), pre)
        x = b.add(lo, n, name=name)
        if wide_lo is None:
            wide_lo = b.sext(lo, I64)
        self.bind(name, x, b.add(wide_lo, b.zext(n, I64)))
        if len(self.loops) < 2 and _contains_long_loop(body):
            self.cancel_check()
        self.loops.append(ops.Loop(name, body, self.state.prefetch_min_work, memo,
                                   ext.constant if isinstance(ext, ll.Constant) else None,
                                   bool(plain or fold)))
        self.row_groups.append(row_prefetch.RowGroups(name, body, memo))
        self.exits.setdefault(name, []).append((self.fn, after_bb))
        self.enter_branch()
        self.emit_stmt(body)
        self.leave_branch()
        self.exits[name].pop()
        self.loops.pop()
        self.row_groups.pop()
        self.unbind(name)
        b = self.b
        # n + 1 <= extent <= INT32_MAX, so the counter increment cannot wrap.
        n1 = b.add(n, ll.Constant(I32, 1), flags=("nsw",))
        n.add_incoming(n1, b.block)
        latch = b.cbranch(b.icmp_signed("<", n1, ext), body_bb, after_bb)
        if plain or fold:
            latch.set_metadata("llvm.loop", ops.plain_loop_metadata(self.module, vectorize=fold))
        b.position_at_end(after_bb)

    def _emit_parallel(self, s, lo, ext):
        """Outline the body of parallel loop s into a task and hand it to
        the parallel runtime with a closure of what the body uses."""
        state = self.state
        state.uses_parallel = True
        state.tasks += 1
        task, closure = self._outline(f"{state.name}.par{state.tasks}", s.body, s.name)
        par_for = self.runtime_fn(PAR_FOR, I32, [PTR, I32, I32, PTR])
        self._propagate_failure(self.b.call(par_for, [task, lo, ext, closure]))

    def _emit_cold(self, stmt):
        """Run stmt through a call of a cold function of its own (see
        cold_copies.small_extent_test)."""
        self.state.colds += 1
        task, closure = self._outline(f"{self.state.name}.cold{self.state.colds}", stmt, None)
        zero = ll.Constant(I32, 0)
        self._propagate_failure(self.b.call(task, [zero, zero, closure]))

    def _emit_outlined_loop(self, s):
        """Run serial loop s through a call of a function of its own,
        optimized (see bookkeeping_body): the function emits s whole, its
        bounds included, from the values of the closure."""
        loops = self.state.outlined_loops
        task, closure = self._outline(f"{self.state.name}.loop{len(loops) + 1}", s, None,
                                      cold=False)
        loops.append((task, self.module.get_global(f"{task.name}.body")))
        zero = ll.Constant(I32, 0)
        self._propagate_failure(self.b.call(task, [zero, zero, closure]))

    def _propagate_failure(self, rc):
        """Continue where the i32 result of an outlined function is 0, else
        leave through the cleanup (the callee recorded the error)."""
        b = self.b
        cont = self.fn.append_basic_block("outlined_ok")
        br = b.cbranch(b.icmp_signed("==", rc, ll.Constant(I32, 0)), cont, self.get_cleanup())
        br.set_weights([1 << 20, 1])
        b.position_at_end(cont)

    def _outline(self, tname, body, loop, cold=None):
        """Outline `body` into a function `i32 tname(i32 lo, i32 hi, ptr
        closure)` that runs it (for `loop` in [lo, hi), or once when loop
        is None) and returns nonzero on failure; return (that function,
        the closure, filled here) of every enclosing value and buffer
        pointer the body uses plus the error array. Code outlined from a
        cold function is cold too (_cold_function); otherwise `cold` (None:
        whether loop is None, a cold copy) says whether the function is."""
        used_vars, used_bufs = _used_names(body)
        values = [(nm, self.scope[nm][-1]) for nm in sorted(used_vars)
                  if nm in self.scope and nm != loop]
        bufs = [(nm,) + self.buffers[nm][-1] for nm in sorted(used_bufs) if nm in self.buffers]
        fields = [v.type for _, v in values] + [PTR] * (len(bufs) + 1)
        cty = ll.LiteralStructType(fields)
        cold = self.cold or (loop is None if cold is None else cold)

        # The task: loads the buffer pointers and calls its body, which takes
        # them as noalias parameters (as the entry point does).
        task = ll.Function(self.module, ll.FunctionType(I32, [I32, I32, PTR]), name=tname)
        task.linkage = "internal"
        task.attributes.add("nounwind")
        body_fn = ll.Function(self.module, ll.FunctionType(I32, [I32, I32, PTR] + [PTR] * len(bufs)),
                              name=f"{tname}.body")
        body_fn.linkage = "internal"
        body_fn.attributes.add("nounwind")
        if cold:
            _cold_function(task)
            _cold_function(body_fn)
        for i in range(len(bufs)):
            body_fn.args[3 + i].add_attribute("noalias")
        tb = ll.IRBuilder(task.append_basic_block("entry"))
        clo = task.args[2]
        ptrs = [tb.load(tb.gep(clo, [ll.Constant(I32, 0), ll.Constant(I32, len(values) + i)],
                               source_etype=cty), typ=PTR) for i in range(len(bufs))]
        tb.ret(tb.call(body_fn, list(task.args) + ptrs))

        em = _FunctionEmitter(self.state, body_fn)
        em.cold = cold
        ab = em.alloca_builder
        clo = body_fn.args[2]

        def field_ptr(i):
            return ab.gep(clo, [ll.Constant(I32, 0), ll.Constant(I32, i)], source_etype=cty)
        for i, (nm, v) in enumerate(values):
            v = ab.load(field_ptr(i), typ=v.type)
            wide = self.wide[nm][-1]
            em.bind(nm, v, ab.sext(v, I64) if isinstance(wide, ll.Value) else wide)
        for i, (nm, _, t) in enumerate(bufs):
            em.push_buffer(nm, body_fn.args[3 + i], t)
        em.allocated = {nm for nm, _, _ in bufs if nm in self.allocated}
        em.err_ptr = ab.load(field_ptr(len(values) + len(bufs)), typ=PTR)
        if loop is None:
            em.emit_stmt(body)
        else:
            t_lo, t_hi = body_fn.args[0], body_fn.args[1]
            em._serial_loop(loop, t_lo, em.b.sub(t_hi, t_lo), body)
        em.finish()

        # The call site's closure
        closure = self.entry_alloca(cty)
        b = self.b
        for i, (_, v) in enumerate(values):
            b.store(v, b.gep(closure, [ll.Constant(I32, 0), ll.Constant(I32, i)],
                             source_etype=cty))
        for i, (_, p, _) in enumerate(bufs + [(None, self.err_ptr, None)]):
            b.store(p, b.gep(closure, [ll.Constant(I32, 0), ll.Constant(I32, len(values) + i)],
                             source_etype=cty))
        return task, closure

    def _index(self, v, e, what):
        if e.type != ir.Int(32):
            raise CodegenError(f"{what} must be int32, not {e.type}: {ir.expr_to_str(e)}")
        return v

    def emit_IfThenElse(self, s):
        if s.condition.type != ir.Bool():
            raise CodegenError(f"if condition must be a scalar bool, not {s.condition.type}")
        cond = self.emit(s.condition)
        b = self.b
        then_bb = self.fn.append_basic_block("then")
        after_bb = self.fn.append_basic_block("endif")
        else_bb = self.fn.append_basic_block("else") if s.else_case is not None else after_bb
        br = b.cbranch(cond, then_bb, else_bb)
        if self.loops and s.else_case is None and self._rare_update(s):
            br.set_metadata("prof", ops.rarely_taken(self.module))
        b.position_at_end(then_bb)
        self.enter_branch()
        self.emit_stmt(s.then_case)
        self.leave_branch()
        self.b.branch(after_bb)
        if s.else_case is not None:
            self.b.position_at_end(else_bb)
            self.enter_branch()
            if not self.cold and not self.loops and small_extent_test(s.condition) and \
                    not exits_outside(s.else_case):
                self._emit_cold(s.else_case)
            else:
                self.emit_stmt(s.else_case)
            self.leave_branch()
            self.b.branch(after_bb)
        self.b.position_at_end(after_bb)

    def _rare_update(self, s) -> bool:
        """Whether `if` s, in a serial loop, updates a running extreme
        (ops.running_extreme_update) that sees many elements between resets:
        its accumulators were allocated outside the loop around the
        innermost one (an argmin over a whole nest), or the innermost loop
        is the function's only loop (a whole 1-D reduction) or has a
        constant trip count of at least 64. Marked rarely taken, LLVM keeps
        the branch instead of folding the update into a chain of cmovs
        through the accumulators: a 2-D argmin over 2^22 int32 ran 1.43 ->
        0.68 ms CPU (AMD EPYC znver5, session 22). An accumulator reset per
        short row (a per-row argmax over rows of 4: an update every 4
        elements at random places) keeps the cmovs (10.3 ms as a branch,
        4.6 ms with cmovs), and so does a loop LLVM leaves rolled
        (kitchen_sink's crowded fold: its min and max as branches ran 10%
        slower)."""
        inner = self.loops[-1]
        if inner.rolled:
            return False
        accs = ops.running_extreme_update(s.condition, s.then_case, self.let_values)
        if not accs:
            return False
        depth = max(self.buffer_depth.get(n, [0])[-1] for n in accs)
        return depth < len(self.loops) - 1 or len(self.loops) == 1 or \
            (inner.extent is not None and inner.extent >= 64)

    def emit_LoopExit(self, s):
        """Branch to the end of the enclosing serial loop named s.loop (in
        this function); without one, nothing (see ir.LoopExit)."""
        targets = self.exits.get(s.loop)
        if not targets or targets[-1][0] is not self.fn:
            return
        self.b.branch(targets[-1][1])
        self.b.position_at_end(self.fn.append_basic_block("after.exit"))

    def emit_AssertStmt(self, s):
        if len(s.args) > ERR_SLOTS - 1:
            raise CodegenError(f"assert has {len(s.args)} args; at most {ERR_SLOTS - 1}")
        cond = self.emit(s.condition)
        if s.condition.type.is_vector():
            cond = ops.vector_reduce(self.b, "and", cond, s.condition.type, 1, False)
        elif not s.condition.type.is_bool():
            raise CodegenError(f"assert condition must be bool, not {s.condition.type}")
        kinds, thunks = [], []
        for a in s.args:
            t = a.type
            if t.is_vector():
                raise CodegenError(f"assert argument {ir.expr_to_str(a)} is a vector")
            kinds.append("f" if t.is_float() else "b" if t.is_bool() else
                         "u" if t.is_uint() else "i")
            thunks.append(lambda a=a: self._to_err_slot(self.emit(a), a.type))
        self.check(cond, s.error, s.message, thunks, kinds)

    def _to_err_slot(self, v, t: ir.Type):
        b = self.b
        if t.is_float():
            if t.bits == 32:
                v = b.fpext(v, ll.DoubleType())
            return b.bitcast(v, I64)
        if t.bits == 64:
            return v
        return b.sext(v, I64) if t.is_int() else b.zext(v, I64)

    def emit_Store(self, s):
        ptr, btype = self.lookup_buffer(s.name)
        t = s.value.type
        self._check_access(s.name, btype, t, s.index, "store")
        if isinstance(s.value, ir.Call) and s.value.name == atomic_updates.ATOMIC:
            return self._atomic_update(s, ptr, btype)
        value = self.emit(s.value)
        if t.is_bool():
            value = self.b.zext(value, llvm_type(t, memory=True))
        self._memory_access(ptr, btype, t, s.index, value, s.name in self.allocated)

    def _atomic_update(self, s, ptr, btype):
        """`f[i] = f[i] op e` of an atomic() stage as one atomicrmw."""
        v = s.value.args[0]
        t = v.type
        op = _ATOMIC_RMW.get(type(v))
        e = None
        for mine, other in ((v.a, v.b), (v.b, v.a)):
            if isinstance(mine, ir.Load) and mine.name == s.name and ir.equal(mine.index, s.index):
                e = other
                break
            if isinstance(v, ir.Sub):
                break
        if op is None or e is None or t.lanes != 1:
            raise ir.CompileError(f"the atomic() update of {s.name} lost its form "
                                  f"{s.name}[i] op e in lowering; please report it")
        if t.is_uint() and op in ("min", "max"):
            op = "u" + op
        mt = ops.scalar_llvm_type(btype, memory=True)
        p = self.b.gep(ptr, [self.index64(s.index, bucket=s.name in self.allocated)],
                       source_etype=mt)
        self.b.atomic_rmw(op, p, self.emit(e), "monotonic")

    def emit_Allocate(self, s):
        """Stack storage (an alloca of the function's entry block, so one per
        function, reused by every iteration of the loops around) when the
        size is a constant, or has a constant upper bound
        (allocation_bounds.py), of at most STACK_LIMIT bytes and the
        function's stack budget allows; heap storage (aligned_alloc/free,
        MADV_HUGEPAGE from 4 MiB: _advise_huge_pages) otherwise. A bounded allocation checks its actual size at run time
        and takes the heap when it exceeds the bound."""
        et = s.type.element_of()
        mt = ops.scalar_llvm_type(et, memory=True)
        esize = et.bytes() * s.type.lanes
        consts = [_const_of(e) for e in s.extents]
        if s.reuse_if is not None:
            self._emit_reused_allocate(s, et, esize)
            return
        if all(isinstance(c, int) for c in consts):
            count = 1
            for c in consts:
                count *= max(c, 0)
            ptr = self._stack_storage(mt, count, s.type.lanes, esize)
            if ptr is not None:
                self._lifetime("start", ptr, count * esize)
                self.push_buffer(s.name, ptr, et)
                self.allocated.add(s.name)
                self.emit_stmt(s.body)
                self.allocated.discard(s.name)
                self.pop_buffer(s.name)
                self._lifetime("end", ptr, count * esize)
                return
        nbytes = self._allocation_bytes(s, esize)
        bound = self.state.allocation_bounds.get(id(s))
        stack = (self._stack_storage(mt, bound, s.type.lanes, esize)
                 if bound is not None else None)
        slot = self.entry_alloca(PTR)
        self.alloca_builder.store(ll.Constant(PTR, None), slot)
        self.heap_slots.append(slot)
        if stack is None:
            p = heap = self._heap_alloc(nbytes, s.name)
        else:
            self._lifetime("start", stack, bound * esize)
            b = self.b
            pre = b.block
            heap_bb = self.fn.append_basic_block(f"heap.{s.name}")
            join_bb = self.fn.append_basic_block(f"storage.{s.name}")
            fits = b.icmp_unsigned("<=", nbytes, ll.Constant(I64, bound * esize))
            b.cbranch(fits, join_bb, heap_bb).set_weights([1 << 20, 1])
            b.position_at_end(heap_bb)
            self.enter_branch()
            h = self._heap_alloc(nbytes, s.name)
            self.leave_branch()
            heap_end = self.b.block
            self.b.branch(join_bb)
            b = self.b
            b.position_at_end(join_bb)
            p = b.phi(PTR)
            p.add_incoming(stack, pre)
            p.add_incoming(h, heap_end)
            heap = b.phi(PTR)
            heap.add_incoming(ll.Constant(PTR, None), pre)
            heap.add_incoming(h, heap_end)
        self.b.store(heap, slot)
        self.push_buffer(s.name, p, et)
        self.allocated.add(s.name)
        self.emit_stmt(s.body)
        self.allocated.discard(s.name)
        self.pop_buffer(s.name)
        free = self.runtime_fn("free", ll.VoidType(), [PTR])
        if stack is None:
            self.b.call(free, [heap])
        else:
            b = self.b
            free_bb = self.fn.append_basic_block(f"free.{s.name}")
            done_bb = self.fn.append_basic_block(f"freed.{s.name}")
            b.cbranch(b.icmp_unsigned("!=", heap, ll.Constant(PTR, None)), free_bb, done_bb)
            b.position_at_end(free_bb)
            b.call(free, [heap])
            b.branch(done_bb)
            b.position_at_end(done_bb)
            self._lifetime("end", stack, bound * esize)
        self.b.store(ll.Constant(PTR, None), slot)

    def _emit_reused_allocate(self, s, et, esize: int):
        """Heap storage that is buffer s.reuse where s.reuse_if holds (then
        nothing is allocated: a request of 0 bytes)."""
        reuse = self.emit(s.reuse_if)
        other, _ = self.lookup_buffer(s.reuse)
        b = self.b
        nbytes = b.select(reuse, ll.Constant(I64, 0), self._allocation_bytes(s, esize))
        slot = self.entry_alloca(PTR)
        self.alloca_builder.store(ll.Constant(PTR, None), slot)
        self.heap_slots.append(slot)
        heap = self._heap_alloc(nbytes, s.name)
        self.b.store(heap, slot)
        self.push_buffer(s.name, self.b.select(reuse, other, heap), et)
        self.allocated.add(s.name)
        self.emit_stmt(s.body)
        self.allocated.discard(s.name)
        self.pop_buffer(s.name)
        self.b.call(self.runtime_fn("free", ll.VoidType(), [PTR]), [heap])
        self.b.store(ll.Constant(PTR, None), slot)

    def _lifetime(self, what: str, ptr, nbytes: int):
        """llvm.lifetime.start/end of a stack allocation: storage of
        allocations whose lifetimes do not overlap (the copies of a loop
        body that partitioning made) can then share stack slots."""
        fn = ops.intrinsic(self.module, f"llvm.lifetime.{what}.p0", ll.VoidType(), [I64, PTR])
        self.b.call(fn, [ll.Constant(I64, max(nbytes, 1)), ptr])

    def _stack_storage(self, mt, count: int, lanes: int, esize: int):
        """An entry-block alloca for `count` elements of esize bytes, or None
        when that is more than STACK_LIMIT or than the function has left
        of STACK_BUDGET."""
        nbytes = max(count, 0) * esize
        if nbytes > STACK_LIMIT or self.stack_bytes + nbytes > STACK_BUDGET:
            return None
        self.stack_bytes += nbytes
        return self.entry_alloca(mt, ll.Constant(I64, max(count * lanes, 1)), align=HEAP_ALIGN)

    def _allocation_bytes(self, s, esize: int):
        """prod(extents) * esize as i64, 0 when any extent <= 0; overflow of
        the product raises MemoryError."""
        b = self.b
        nbytes = ll.Constant(I64, esize)
        overflow = ll.Constant(I1, 0)
        empty = ll.Constant(I1, 0)
        smul = ops.intrinsic(self.module, "llvm.smul.with.overflow.i64",
                             ll.LiteralStructType([I64, I1]), [I64, I64])
        for e in s.extents:
            if e.type != ir.Int(32):
                raise CodegenError(f"allocation extent must be int32: {ir.expr_to_str(e)}")
            ext = self.emit(e)
            empty = b.or_(empty, b.icmp_signed("<=", ext, ll.Constant(I32, 0)))
            r = b.call(smul, [nbytes, b.sext(ext, I64)])
            nbytes = b.extract_value(r, 0)
            overflow = b.or_(overflow, b.extract_value(r, 1))
        nbytes = b.select(empty, ll.Constant(I64, 0), nbytes)
        overflow = b.and_(overflow, b.not_(empty))
        too_big = b.or_(overflow, b.icmp_unsigned(">", nbytes, ll.Constant(I64, 1 << 62)))
        self.check(b.not_(too_big), "MemoryError",
                   f"allocation of {s.name} overflows the address space")
        return nbytes

    def _heap_alloc(self, nbytes, name: str):
        """aligned_alloc of nbytes (MemoryError when it fails)."""
        b = self.b
        # aligned_alloc needs a size that is a multiple of the alignment.
        rounded = b.and_(b.add(nbytes, ll.Constant(I64, HEAP_ALIGN)),
                         ll.Constant(I64, -HEAP_ALIGN))
        alloc = self.runtime_fn("aligned_alloc", PTR, [I64, I64])
        p = b.call(alloc, [ll.Constant(I64, HEAP_ALIGN), rounded])
        self.check(b.icmp_unsigned("!=", p, ll.Constant(PTR, None)), "MemoryError",
                   f"out of memory allocating {{}} bytes for {name}", [nbytes], ["i"])
        self._advise_huge_pages(p, rounded)
        return p

    def _advise_huge_pages(self, p, nbytes):
        """For an allocation of at least HUGE_PAGE_MIN bytes, madvise its
        whole pages MADV_HUGEPAGE, as NumPy does for its arrays: such an
        allocation is mmapped afresh by malloc on every call, and faulting
        it in 4 KiB pages cost more than the kernel's work on a large
        stencil (transparent huge pages in "madvise" mode)."""
        if not self.state.huge_pages:
            return
        b = self.b
        big_bb = self.fn.append_basic_block("huge_pages")
        done_bb = self.fn.append_basic_block("huge_pages.done")
        big = b.icmp_unsigned(">=", nbytes, ll.Constant(I64, HUGE_PAGE_MIN))
        b.cbranch(big, big_bb, done_bb)
        b.position_at_end(big_bb)
        page = ll.Constant(I64, 4096)
        offset = b.sub(page, b.urem(b.ptrtoint(p, I64), page))
        start = b.gep(p, [offset], source_etype=ll.IntType(8))
        madvise = self.runtime_fn("madvise", ll.IntType(32), [PTR, I64, ll.IntType(32)])
        b.call(madvise, [start, b.sub(nbytes, offset), ll.Constant(ll.IntType(32), MADV_HUGEPAGE)])
        b.branch(done_bb)
        b.position_at_end(done_bb)

    def emit_Realize(self, s):
        raise CodegenError(f"Realize of {s.name} reached codegen (storage flattening missing)")

    def emit_Provide(self, s):
        raise CodegenError(f"Provide to {s.name} reached codegen (storage flattening missing)")

    # ---- memory ---------------------------------------------------------
    def _check_access(self, name, btype, t, index, what):
        if t.element_of() != btype:
            raise CodegenError(f"{what} of {t} from/to buffer {name} of type {btype}")
        if index.type.element_of() != ir.Int(32) or index.type.lanes != t.lanes:
            raise CodegenError(f"{what} index of {name} must be int32 x{t.lanes}, "
                               f"not {index.type}")

    def _memory_access(self, ptr, btype, t, index, value=None, allocated=False):
        """Load (value None) or store `value` at `index` of buffer ptr:
        scalar, dense vector (ramp of stride +-1), short-stride load (dense
        load + shuffle), broadcast, or gather/scatter. `allocated`: ptr is a
        buffer the pipeline allocated (its indices are >= 0)."""
        b = self.b
        mt = ops.scalar_llvm_type(btype, memory=True)
        align = btype.bytes()
        lanes = t.lanes
        if lanes == 1:
            p = b.gep(ptr, [self.index64(index, bucket=allocated)], source_etype=mt)
            if value is None:
                return b.load(p, typ=mt, align=align)
            b.store(value, p, align=align)
            return None
        vt = ll.VectorType(mt, lanes)
        if isinstance(index, ir.Ramp) and _const_of(index.stride) in (1, -1):
            base = self.index64(index.base)
            reverse = _const_of(index.stride) == -1
            if reverse:      # lanes base, base-1, ...: dense from base-(lanes-1)
                base = b.sub(base, ll.Constant(I64, lanes - 1))
            p = b.gep(ptr, [base], source_etype=mt)
            rev = list(range(lanes - 1, -1, -1))
            if value is None and self.loops and self.loops[-1].streams(index.base) \
                    and self.loops[-1].first_prefetch(ptr, index.base):
                # a load streamed by a loop that only reads (codegen_ops.prefetch)
                ops.prefetch_vector(b, p, mt, btype.bytes(), lanes, backwards=reverse)
            if value is None:
                v = b.load(p, typ=vt, align=align)
                return ops.shuffle(b, v, rev) if reverse else v
            ops.store_lines(b, ops.shuffle(b, value, rev) if reverse else value, p, mt,
                            btype.bytes(), align)
            return None
        stride = _const_of(index.stride) if isinstance(index, ir.Ramp) else None
        if value is None and stride in (2, 3, 4, -2, -3, -4):
            # A short strided load: dense loads of the span the lanes cover
            # (memory between two addresses of one buffer is readable), then
            # a shuffle picking every |stride|-th element.
            step = abs(stride)
            span = step * (lanes - 1) + 1
            base = self.index64(index.base)
            if stride < 0:
                base = b.sub(base, ll.Constant(I64, span - 1))
            v, at = self._span_load(ptr, mt, base, span, lanes, align)
            pick = [at[step * i] for i in range(lanes)]
            return ops.shuffle(b, v, pick if stride > 0 else pick[::-1])
        if isinstance(index, ir.Broadcast) and index.value.type.is_scalar():
            p = b.gep(ptr, [self.index64(index.value)], source_etype=mt)
            if value is None:
                return ops.splat(b, b.load(p, typ=mt, align=align), lanes)
            # Every lane writes the same place; the last lane wins, as in a scatter.
            b.store(b.extract_element(value, ll.Constant(I32, lanes - 1)), p, align=align)
            return None
        half = half_ramp_index(index, self.let_expr) if value is None else None
        if half is not None:     # ramp(b, 1, 2n) / 2: two dense loads, interleaved
            even, odd, n = half
            half_t = t.with_lanes(n)
            v0 = self._memory_access(ptr, btype, half_t, ir.Ramp(even, ir.index(1), n),
                                     None, allocated)
            v1 = self._memory_access(ptr, btype, half_t, ir.Ramp(odd, ir.index(1), n),
                                     None, allocated)
            return b.shuffle_vector(v0, v1, ops.index_vector(
                [j // 2 + (n if j % 2 else 0) for j in range(lanes)]))
        clamped = clamped_ramp_index(index, self.let_expr) if value is None else None
        if clamped is not None:
            return self._clamped_load(ptr, btype, t, index, clamped, allocated)
        idx = b.sext(self.emit(index), ll.VectorType(I64, lanes))
        ptrs = b.gep(ptr, [idx], source_etype=mt)
        ptrs.type = ll.VectorType(PTR, lanes)     # llvmlite types a vector GEP as scalar
        mask = ll.Constant(ll.VectorType(I1, lanes), [1] * lanes)
        suffix = f"{ops.mangle(vt)}.{ops.mangle(ptrs.type)}"
        if value is None and lanes_share_coordinate(index, self.let_expr):
            r = ll.Constant(vt, ll.Undefined)     # scalar loads (shared_lane_gathers)
            for j in range(lanes):
                pj = b.gep(ptr, [b.extract_element(idx, ll.Constant(I32, j))], source_etype=mt)
                r = b.insert_element(r, b.load(pj, typ=mt, align=align), ll.Constant(I32, j))
            return r
        if value is None:
            fn = ops.intrinsic(self.module, f"llvm.masked.gather.{suffix}", vt,
                               [ptrs.type, mask.type, vt])
            call = b.call(fn, [ptrs, mask, ll.Constant(vt, ll.Undefined)])
            call.arg_attributes[0] = _align_attr(align)
            return call
        # A scatter stores lanes in increasing order: on equal addresses the
        # highest lane wins, as the serial loop would.
        fn = ops.intrinsic(self.module, f"llvm.masked.scatter.{suffix}", ll.VoidType(),
                           [vt, ptrs.type, mask.type])
        call = b.call(fn, [value, ptrs, mask])
        call.arg_attributes[1] = _align_attr(align)
        return None

    def _span_load(self, ptr, mt, base, span: int, lanes: int, align):
        """Elements base .. base + span - 1 of ptr, loaded as vectors of
        `lanes` (the last one moved back to end at the span's end: a load of
        an odd length such as 31 floats is split by LLVM into loads of 16, 8,
        4, 2 and 1), concatenated: (vector, position of element k in it)."""
        b = self.b
        vt = ll.VectorType(mt, lanes)
        if span <= lanes:
            p = b.gep(ptr, [base], source_etype=mt)
            return b.load(p, typ=ll.VectorType(mt, span), align=align), list(range(span))
        offsets = [min(j * lanes, span - lanes) for j in range((span + lanes - 1) // lanes)]
        parts = [b.load(b.gep(ptr, [b.add(base, ll.Constant(I64, o))], source_etype=mt),
                        typ=vt, align=align) for o in offsets]
        at = {}
        for j, o in enumerate(offsets):
            for k in range(lanes):
                at.setdefault(o + k, j * lanes + k)
        v, width = parts[0], lanes
        for part in parts[1:]:        # concatenated (a part widened to v's lanes first)
            if width > lanes:
                part = b.shuffle_vector(part, ll.Constant(vt, ll.Undefined),
                                        ops.index_vector([k % lanes for k in range(width)]))
            v = b.shuffle_vector(v, part, ops.index_vector(
                list(range(width)) + [width + k for k in range(lanes)]))
            width += lanes
        return v, [at[k] for k in range(span)]

    def _clamped_load(self, ptr, btype, t, index, clamped, allocated):
        """A load at broadcast(s) + clamp(ramp(b, stride, n), lo, hi): the
        ramp's own load at s + b (dense, or a short-stride span load) when no
        lane is clamped (the lanes' least and greatest values in [lo, hi],
        tested in 64 bits), else the gather; every value the branches use
        is computed before the branch (the expression memo must not hand
        out a value of one branch to code after it)."""
        b = self.b
        mt = ops.scalar_llvm_type(btype, memory=True)
        vt = ll.VectorType(mt, t.lanes)
        align = btype.bytes()
        s, base, stride, lo, hi, lanes = clamped
        dense_index = base if s is None else ir.Add(s, base)
        dense64 = self.index64(dense_index)
        idx = b.sext(self.emit(index), ll.VectorType(I64, lanes))
        b64 = b.sext(self.emit(base), I64)
        reach = (lanes - 1) * stride
        least = b.add(b64, ll.Constant(I64, min(reach, 0)))
        greatest = b.add(b64, ll.Constant(I64, max(reach, 0)))
        inside = b.and_(b.icmp_signed(">=", least, b.sext(self.emit(lo), I64)),
                        b.icmp_signed("<=", greatest, b.sext(self.emit(hi), I64)))
        with b.if_else(inside, likely=True) as (then, otherwise):
            with then:
                if stride == 1:
                    p = b.gep(ptr, [dense64], source_etype=mt)
                    dense = b.load(p, typ=vt, align=align)
                else:
                    self.enter_branch()
                    dense = self._memory_access(
                        ptr, btype, t, ir.Ramp(dense_index, ir.index(stride), lanes),
                        None, allocated)
                    self.leave_branch()
                dense_block = b.block
            with otherwise:
                ptrs = b.gep(ptr, [idx], source_etype=mt)
                ptrs.type = ll.VectorType(PTR, lanes)
                mask = ll.Constant(ll.VectorType(I1, lanes), [1] * lanes)
                suffix = f"{ops.mangle(vt)}.{ops.mangle(ptrs.type)}"
                fn = ops.intrinsic(self.module, f"llvm.masked.gather.{suffix}", vt,
                                   [ptrs.type, mask.type, vt])
                gathered = b.call(fn, [ptrs, mask, ll.Constant(vt, ll.Undefined)])
                gathered.arg_attributes[0] = _align_attr(align)
                gather_block = b.block
        phi = b.phi(vt)
        phi.add_incoming(dense, dense_block)
        phi.add_incoming(gathered, gather_block)
        return phi

    # ---- index arithmetic in 64 bits -----------------------------------
    # A buffer index is an int32 expression; the address is computed from
    # it in 64 bits. Sign-extending the wrapped int32 result would hide the
    # index's linear form from LLVM (it cannot move a sext through an add
    # that may wrap), so each loop would recompute and re-extend every
    # address. Instead the parts of an index that do not depend on data
    # (loop variables, buffer geometry, scalar params, constants and lets
    # of them, combined by + - * min max) are computed as 64-bit integers,
    # assuming, as bounds inference does, that such index arithmetic does
    # not overflow int32: the result is then the same. A part that depends
    # on data (a load, a call, a let of one) keeps the wrapping int32
    # arithmetic of its value and is sign-extended as a whole, so a
    # data-dependent index is the very int32 value that access checks test.
    # One exception: a whole index into a buffer the pipeline allocated that
    # is a data-free index plus a value cast from an unsigned integer of at
    # most 16 bits (a histogram's bucket, int32(img[x, y])) is added in 64
    # bits (_bucket_index). Its int32 sum can only wrap above INT32_MAX, to a
    # negative index, and an allocated buffer has none (an input view with
    # negative strides has), so for every valid access both sums are equal.
    def index64(self, e, bucket=False):
        """The i64 address index of scalar int32 index e (`bucket`: e indexes a
        buffer the pipeline allocated, see _bucket_index)."""
        w = self.wide_index(e)
        if w is None and bucket:
            w = self._bucket_index(e)
        return w if w is not None else self.b.sext(self.emit(e), I64)

    def _bucket_index(self, e):
        """A whole index `data-free + int32(narrow unsigned)` added in 64 bits,
        else None. Only as a whole index: inside a product or a let the
        exact sum could differ from the wrapped one by a multiple of 2^32
        that lands in bounds."""
        if not isinstance(e, ir.Add):
            return None
        for small, rest in ((e.a, e.b), (e.b, e.a)):
            if _narrow_unsigned(small):
                y = self.wide_index(rest)
                if y is not None:
                    return self.b.add(self.b.zext(self.emit(small.value), I64), y)
        return None

    def wide_of(self, e):
        """What bind() records of a let bound to e."""
        if e.type == _INT32:
            return self.wide_index(e)
        return DATA_FREE if self._data_free(e) else None

    def wide_index(self, e):
        """Scalar int32 e as an i64 value, or None when e depends on data
        (memoized like emit)."""
        if e.type != _INT32:
            return None
        key = ("wide", id(e))
        for layer in reversed(self.cache[self.cache_floor:]):
            hit = layer.get(key)
            if hit is not None and hit[0] is e:
                return hit[1]
        v = self._wide(e)
        self.cache[-1][key] = (e, v)
        return v

    def _wide(self, e):
        b = self.b
        if isinstance(e, ir.Const):
            return ll.Constant(I64, e.value)
        if isinstance(e, ir.Variable):
            stack = self.wide.get(e.name)
            w = stack[-1] if stack else None
            return w if isinstance(w, ll.Value) else None
        op = _WIDE_OPS.get(type(e))
        if op is not None:
            x = self.wide_index(e.a)
            y = self.wide_index(e.b) if x is not None else None
            if y is None:
                return None
            return self._numbered(("wide", op, _value_key(x), _value_key(y)), (x, y),
                                  lambda: _wide_op(b, op, x, y))
        if isinstance(e, ir.Let):
            return self._with_let(e, self.wide_index)
        # Any other operator: exact as the sign extension of its value.
        if not self._data_free(e):
            return None
        v = self.emit(e)
        return self._numbered(("sext", _value_key(v)), (v,), lambda: b.sext(v, I64))

    def _numbered(self, vkey, operands, make):
        """The value numbered vkey in code dominating this point, else
        make()'s, numbered vkey (see emit)."""
        hit = self.numbered.get(vkey)
        if hit is not None:
            return hit[0]
        v = make()
        self.numbered[vkey] = (v, operands)     # (operands: their ids stay unique)
        self.numbered_log.append(vkey)
        return v

    def _data_free(self, e) -> bool:
        """Whether e's value depends on no load, call or data-bound let."""
        key = ("free", id(e))
        for layer in reversed(self.cache[self.cache_floor:]):
            hit = layer.get(key)
            if hit is not None and hit[0] is e:
                return hit[1]
        if isinstance(e, (ir.Load, ir.Call)):
            free = False
        elif isinstance(e, ir.Variable):
            stack = self.wide.get(e.name)
            free = bool(stack) and stack[-1] is not None
        elif isinstance(e, ir.Let):
            free = self._data_free(e.value)
            if free:
                floor = self.cache_floor
                self.cache.append({})
                self.cache_floor = len(self.cache) - 1
                self.wide.setdefault(e.name, []).append(DATA_FREE)
                try:
                    free = self._data_free(e.body)
                finally:
                    self.wide[e.name].pop()
                    if not self.wide[e.name]:
                        del self.wide[e.name]
                    self.cache.pop()
                    self.cache_floor = floor
        else:
            free = all(self._data_free(c) for c in children(e))
        self.cache[-1][key] = (e, free)
        return free

    # ---- expressions ----------------------------------------------------
    def emit(self, e):
        """The LLVM value of Expr e, memoized by identity for this statement
        and, for the pure operators of _NUMBERED, by value number: an
        operator of the same types applied to the same LLVM operand values
        emitted before, in code that dominates this point, is that value
        (lowering repeats the bounds expressions of a tile in the lets and
        overflow checks of every stage: a third of interpolate's LLVM
        instructions were such repeats)."""
        key = id(e)
        for layer in reversed(self.cache[self.cache_floor:]):
            hit = layer.get(key)
            if hit is not None and hit[0] is e:
                return hit[1]
        cls = type(e)
        method = _EXPR_EMITTERS.get(cls) or _expr_emitter(cls)
        if cls in _MASK_NODES and self.mask_parts is not None and self.mask_parts.lanes(e):
            v = method(self, e)     # by parts (codegen_mask_parts): operands not emitted whole
        elif cls in _NUMBERED:
            kids = children(e)
            operands = [self.emit(c) for c in kids]
            vkey = (cls, e.type, *[(c.type, _value_key(v)) for c, v in zip(kids, operands)])
            v = self._numbered(vkey, operands, lambda: method(self, e))
        else:
            v = method(self, e)
        self.cache[-1][key] = (e, v)
        return v

    def emit_Const(self, e):
        return ops.const(e.type, e.value)

    def emit_Variable(self, e):
        stack = self.scope.get(e.name)
        if not stack:
            raise CodegenError(f"undefined variable {e.name!r}")
        v = stack[-1]
        if v.type != llvm_type(e.type):
            raise CodegenError(f"variable {e.name} used as {e.type} but bound to {v.type}")
        return v

    def emit_Cast(self, e):
        return ops.cast(self.b, self.emit(e.value), e.value.type, e.type)

    def _binary(self, e, fn):
        return fn(self.b, self.emit(e.a), self.emit(e.b), e.a.type)

    def emit_Add(self, e):
        tree = pairwise_loads.pairwise_leaves(e)
        if tree is not None:        # NumPy's combine of adjacent accumulators
            name, first, n = tree
            width = n * e.type.lanes
            v = self.emit(ir.Load(e.type.with_lanes(width), name,
                                  ir.Ramp(first, ir.index(1), width)))
            return pairwise_loads.emit_pairwise(self.b, v, e.type.lanes)
        return self._binary(e, ops.add)

    def emit_Sub(self, e):
        return self._binary(e, ops.sub)

    def emit_Mul(self, e):
        return self._binary(e, ops.mul)

    def emit_Div(self, e):
        return ops.div(self.b, self.emit(e.a), self.emit(e.b), e.type, _const_of(e.b))

    def emit_Mod(self, e):
        return ops.mod(self.b, self.emit(e.a), self.emit(e.b), e.type, _const_of(e.b))

    def emit_Min(self, e):
        return self._binary(e, ops.minimum)

    def emit_Max(self, e):
        return self._binary(e, ops.maximum)

    def emit_BitAnd(self, e):
        return self._binary(e, ops.bit_and)

    def emit_BitOr(self, e):
        return self._binary(e, ops.bit_or)

    def emit_BitXor(self, e):
        return self._binary(e, ops.bit_xor)

    def emit_Shl(self, e):
        return self._binary(e, ops.shl)

    def emit_Shr(self, e):
        return self._binary(e, ops.shr)

    def emit_BitNot(self, e):
        return ops.bit_not(self.b, self.emit(e.a), e.type)

    def _by_parts(self, e):
        """Bool vector e as the concatenation of its register parts
        (codegen_mask_parts), or None."""
        mp = self.mask_parts
        h = None if mp is None else mp.lanes(e)
        return None if h is None else mp.whole(mp.parts(e, h))

    def _compare(self, e):
        v = self._by_parts(e)
        if v is not None:
            return v
        return ops.compare(self.b, type(e).__name__, self.emit(e.a), self.emit(e.b), e.a.type)

    emit_EQ = emit_NE = emit_LT = emit_LE = emit_GT = emit_GE = _compare

    def emit_And(self, e):
        v = self._by_parts(e)
        return v if v is not None else self.b.and_(self.emit(e.a), self.emit(e.b))

    def emit_Or(self, e):
        v = self._by_parts(e)
        return v if v is not None else self.b.or_(self.emit(e.a), self.emit(e.b))

    def emit_Not(self, e):
        v = self._by_parts(e)
        return v if v is not None else self.b.xor(self.emit(e.a), const(e.type, True))

    def emit_Select(self, e):
        v = None if self.mask_parts is None else self.mask_parts.select(e)
        if v is not None:
            return v
        return self.b.select(self.emit(e.condition), self.emit(e.true_value),
                             self.emit(e.false_value))

    def emit_Let(self, e):
        return self._with_let(e, self.emit)

    def _with_let(self, e, body_fn):
        """body_fn(e.body) with Let e's name bound, in a memo layer of its own."""
        value = self.emit(e.value)
        floor = self.cache_floor
        self.cache.append({})
        if e.name in self.scope:    # cached values of the outer binding must not leak in
            self.cache_floor = len(self.cache) - 1
        self.bind(e.name, value, self.wide_of(e.value))
        self._note_vector_let(e.name, e.value)
        try:
            return body_fn(e.body)
        finally:
            self.unbind(e.name)
            self.cache.pop()
            self.cache_floor = floor

    def emit_Load(self, e):
        ptr, btype = self.lookup_buffer(e.name)
        self._check_access(e.name, btype, e.type, e.index, "load")
        if self.row_groups and e.type.lanes > 1:
            self._prefetch_next_rows(e, ptr, btype)
        v = self._memory_access(ptr, btype, e.type, e.index, None, e.name in self.allocated)
        if e.type.is_bool():
            v = self.b.icmp_unsigned("!=", v, const(ir.UInt(8, e.type.lanes), 0))
        return v

    def _prefetch_next_rows(self, e, ptr, btype):
        """Where the dense load e is a row of a group the innermost serial
        loop reads side by side (row_prefetch), prefetch into L2 the same
        columns of the row a group further on (rows x the row stride), when
        the buffer's rows span more than row_prefetch.LARGE_BYTES."""
        idx = e.index
        if not (isinstance(idx, ir.Ramp) and _const_of(idx.stride) == 1):
            return
        rows = self.row_groups[-1].rows(e.name, idx.base)
        if not rows:
            return
        stride = row_prefetch.row_term(idx.base, e.name)[1]
        extent = ir.Variable(stride.type, stride.name.replace(".stride.", ".extent."))
        if not self.scope.get(extent.name):     # a buffer without that geometry
            return
        b = self.b
        mt = ops.scalar_llvm_type(btype, memory=True)
        p = b.gep(ptr, [self.index64(idx.base)], source_etype=mt)
        stride64 = b.sext(self.emit(stride), I64)
        large = row_prefetch.larger_than_cache(b, stride64, b.sext(self.emit(extent), I64),
                                               btype.bytes())
        ahead = b.select(large, b.mul(stride64, ll.Constant(I64, rows)), ll.Constant(I64, 0))
        row_prefetch.prefetch_next_group(b, p, mt, btype.bytes(), e.type.lanes, ahead)

    def emit_Ramp(self, e):
        t = e.type
        base = ops.splat(self.b, self.emit(e.base), e.lanes)
        stride = ops.splat(self.b, self.emit(e.stride), e.lanes)
        lanes = ops.vector_const(t, range(e.lanes))
        return ops.add(self.b, base, ops.mul(self.b, stride, lanes, t), t)

    def emit_Broadcast(self, e):
        v = self.emit(e.value)
        k = e.value.type.lanes
        if k == 1:
            return ops.splat(self.b, v, e.lanes)
        if e.lanes % k:
            raise CodegenError(f"broadcast of {k} lanes to {e.lanes} lanes")
        return ops.shuffle(self.b, v, [i % k for i in range(e.lanes)])

    def emit_VectorReduce(self, e):
        mp = self.mask_parts
        h = None if mp is None or e.lanes != 1 or e.op not in ("or", "and") \
            else mp.lanes(e.value)
        if h is not None:       # any/all of a mask by parts: of their Or/And
            parts = mp.parts(e.value, h)
            op = self.b.or_ if e.op == "or" else self.b.and_
            acc = parts[0]
            for p in parts[1:]:
                acc = op(acc, p)
            return ops.vector_reduce(self.b, e.op, acc, e.value.type.with_lanes(h), 1, False)
        reassoc = bool(getattr(e, "reassoc", False)) or self.state.reassociate
        return ops.vector_reduce(self.b, e.op, self.emit(e.value), e.value.type, e.lanes,
                                 reassoc)

    def emit_Call(self, e):
        if e.call_type == ir.INTRINSIC and e.name == "if_then_else":
            return self._if_then_else(e)
        if e.call_type != ir.INTRINSIC:
            raise CodegenError(f"{e.call_type} call to {e.name} reached codegen "
                               "(it should have been lowered to a Load)")
        args = [self.emit(a) for a in e.args]
        if e.name.startswith(ops.TRACE_PREFIX):         # tracing and print
            return ops.emit_trace(self, e.name, args, [a.type for a in e.args])
        v = ops.call_intrinsic(self.b, e.name, args, [a.type for a in e.args], e.type)
        if v.type != llvm_type(e.type):
            raise CodegenError(f"intrinsic {e.name} of {[str(a.type) for a in e.args]} "
                               f"cannot produce {e.type}")
        return v

    def _if_then_else(self, e):
        """The lazy select: only the branch the scalar condition picks is
        evaluated (its blocks meet in a phi). Values a branch computes are
        memoized in a layer of their own, so nothing after the phi reuses
        them (they would not dominate it)."""
        if len(e.args) != 3:
            raise CodegenError(f"if_then_else takes 3 arguments, got {len(e.args)}")
        cond, a, b_ = e.args
        if cond.type != ir.Bool() or a.type != e.type or b_.type != e.type:
            raise CodegenError(f"if_then_else needs a scalar bool condition and branches of "
                               f"its type {e.type}: got {cond.type}, {a.type}, {b_.type} "
                               "(a lane-wise choice is a Select)")
        c = self.emit(cond)
        then_bb = self.fn.append_basic_block("ite.then")
        else_bb = self.fn.append_basic_block("ite.else")
        after_bb = self.fn.append_basic_block("ite.end")
        self.b.cbranch(c, then_bb, else_bb)
        incoming = []
        for block, branch in ((then_bb, a), (else_bb, b_)):
            self.b.position_at_end(block)
            self.cache.append({})
            self.enter_branch()
            try:
                v = self.emit(branch)
            finally:
                self.leave_branch()
                self.cache.pop()
            incoming.append((v, self.b.block))
            self.b.branch(after_bb)
        self.b.position_at_end(after_bb)
        phi = self.b.phi(llvm_type(e.type))
        for v, block in incoming:
            phi.add_incoming(v, block)
        return phi


# Expr class -> _FunctionEmitter's emit_<class name> (emit's dispatch, filled on use)
_EXPR_EMITTERS: dict = {}


def _expr_emitter(cls):
    method = getattr(_FunctionEmitter, "emit_" + cls.__name__, None)
    if method is None or not issubclass(cls, ir.Expr):
        raise CodegenError(f"codegen cannot handle expression {cls.__name__}")
    _EXPR_EMITTERS[cls] = method
    return method


# Pure operators whose value is a function of their types and their operands'
# LLVM values alone (emit numbers them).
# the bool operators MaskParts emits by parts
_MASK_NODES = frozenset({ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or, ir.Not})
_NUMBERED = frozenset({ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Mod, ir.Min, ir.Max, ir.BitAnd,
                       ir.BitOr, ir.BitXor, ir.Shl, ir.Shr, ir.BitNot, ir.EQ, ir.NE, ir.LT,
                       ir.LE, ir.GT, ir.GE, ir.And, ir.Or, ir.Not, ir.Select, ir.Cast,
                       ir.Broadcast, ir.Ramp})


def _wide_op(b, op, x, y):
    """IRBuilder operation `op` of _WIDE_OPS on i64 values x, y."""
    if op in ("smin", "smax"):
        return b.select(b.icmp_signed("<" if op == "smin" else ">", x, y), x, y)
    return getattr(b, op)(x, y)


def _value_key(v):
    """What identifies LLVM value v as an operand: a constant by its type
    and text (equal text is the same constant; -0.0 and 0.0 differ), any
    other value by identity."""
    if isinstance(v, ll.Constant):
        return (str(v.type), v.get_reference())
    return id(v)


class _UsedNames(ir.Visitor):
    def __init__(self):
        super().__init__()
        self.vars, self.bufs = set(), set()

    def visit_Variable(self, v):
        self.vars.add(v.name)

    def visit_Load(self, e):
        self.bufs.add(e.name)
        self.visit_children(e)

    def visit_Store(self, s):
        self.bufs.add(s.name)
        self.visit_children(s)

    def visit_Allocate(self, s):
        if s.reuse_if is not None:
            self.bufs.add(s.reuse)
        self.visit_children(s)


def _contains_long_loop(stmt) -> bool:
    """Whether a For whose extent is not a constant of at most SHORT_LOOP is
    anywhere among the statements of stmt."""
    stack = [stmt]
    while stack:
        s = stack.pop()
        if isinstance(s, ir.For):
            extent = _const_of(s.extent)
            if extent is None or extent > SHORT_LOOP:
                return True
        stack.extend(c for c in children(s) if isinstance(c, ir.Stmt))
    return False


def _cold_function(fn):
    """Mark fn cold and not optimized (optnone, which needs noinline): LLVM's
    optimization passes skip it. Under an optimizing target machine that alone
    does not give it the fast instruction selector and register allocator:
    the JIT moves the tasks made only of such functions, when they are long
    enough, into a module of their own (split_module.split_cold) emitted at
    LLVM's codegen level 0 (jit._emit_cold). For the copies that run only
    when a region is smaller than one chunk of a split
    (cold_copies.small_extent_test):
    they were about half of a tiled pipeline's code (interpolate's output
    loop: 9,800 of 40,500 lines of LLVM IR in the copy for fewer than 32
    rows)."""
    for a in ("cold", "noinline", "optnone"):
        fn.attributes.add(a)


def _used_names(stmt):
    """(variable names, buffer names) mentioned anywhere in stmt."""
    v = _UsedNames()
    v.visit(stmt)
    return v.vars, v.bufs


def _align_attr(align: int):
    a = ll.values.ArgumentAttributes()
    a.align = align
    return a


# atomic() updates: the atomicrmw operation of each operator (atomic_updates.OPS)
_ATOMIC_RMW = {ir.Add: "add", ir.Sub: "sub", ir.Min: "min", ir.Max: "max",
               ir.BitAnd: "and", ir.BitOr: "or", ir.BitXor: "xor"}
