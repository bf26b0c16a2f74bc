"""The runtime side of a kernel compiled without some cold copies
(lazy_copies.py): a call that reaches one fails with LAZY_ERROR; the whole
kernel is compiled then, once, and every call runs through it.

    LazyState(errors) -> state;  state.complete();  state.record(code)

A lazy kernel's entry first reads err[FORWARD_SLOT] of the call's error
array (codegen_llvm._entry): the address of `state.cell`, which holds 0
until complete() stores there the entry of the whole kernel; from then on
the entry calls that one, and shifts an error code it reports past the
lazy kernel's own, so that codes 1..len(errors) are the lazy kernel's and
the next ones the whole kernel's (record). Every caller of the entry
(runtime._Scratch, the compiled call entries of dispatch_ir.py) writes
`state.address` into err[FORWARD_SLOT] (0 for a kernel that is not lazy).

complete() calls `state.thunk` (set by whoever compiled the kernel:
realize.Pipeline._kernel; it lowers and compiles the pipeline with all its
copies) and keeps the Kernel it returns alive as long as the state. The
call that failed runs again from the start (Kernel._failed), which
lazy_copies.rerun_safe made exact: the failed run's partial writes are
all written again.
"""
from __future__ import annotations

import ctypes
import threading

from .codegen_llvm import LAZY_ERROR


class LazyState:
    """Whether and where the whole kernel of a lazy kernel is compiled."""

    def __init__(self, errors):
        self.cell = ctypes.c_void_p(0)
        self.address = ctypes.addressof(self.cell)
        self.own = len(errors)
        self.lazy_codes = frozenset(i + 1 for i, e in enumerate(errors) if e.error == LAZY_ERROR)
        self.thunk = None           # () -> the whole Kernel
        self.full = None            # that Kernel, once compiled
        self._lock = threading.Lock()

    def complete(self) -> None:
        """Compile the whole kernel (once) and forward every call to it."""
        with self._lock:
            if self.full is not None:
                return
            if self.thunk is None:
                raise RuntimeError("a kernel compiled without some of its cold copies needs "
                                   "them, and nothing can compile them (no pipeline to lower)")
            full = self.thunk()
            if full.parallel:
                from . import parallel_runtime
                parallel_runtime.ensure_threads()
            self.full = full
            self.cell.value = full.address

    def record(self, code: int):
        """The whole kernel's error record of a shifted code, or None."""
        if self.full is None or not self.own < code <= self.own + len(self.full.errors):
            return None
        return self.full.errors[code - self.own - 1]
