"""Ctrl-C during a kernel call: KeyboardInterrupt within milliseconds, not
when the kernel ends.

    cancel_flag_for_call() -> int    the cancel flag address for a call made now
                                     in the main thread (0: none)
    cancel_address(never: int) -> int    the flag address for a call made now
                                     (`never` outside the main thread or
                                     without a handler), not cleared
    in_main_thread() -> bool
    ahead_jobs() -> [(name, IR)]     for runtime_ahead.start (none once loaded)
    stopped_by_signal() -> None      after a call stopped by its flag: run the
                                     Python signal handlers (which may raise)

A kernel runs in native code with the GIL released, and Python runs its
SIGINT handler (the one raising KeyboardInterrupt) in the main thread only,
between bytecodes: not before the call returns. So every call carries the
address of a cancel flag (codegen_llvm.py: CANCEL_SLOT), which the generated
code reads once per row or tile of its outer loops and between the chunks
of parallel loops, stopping through its cleanup (its allocations freed, the
thread pool's job ended) when the flag is set:

- The flag of a call from the main thread is one int64 of this module's
  small LLVM IR runtime; a native SIGINT handler there sets it and then
  calls the handler it replaced, Python's own (which schedules
  KeyboardInterrupt). A call from another thread gets a flag nothing sets:
  Python never interrupts other threads, and neither do kernels.
- The handler is installed (with sigaction, chained to the one in place) at
  the first main-thread call, and again when signal.signal() has changed
  the SIGINT handler since (Python's sigaction replaced ours). It is not
  installed when SIGINT is ignored or has the default action, i.e. when no
  Python handler would run, nor outside Linux (the sigaction layout is
  glibc's/musl's); such calls are not interrupted early.
- Each main-thread call clears the flag before it starts. After a call
  stopped by the flag, runtime.py calls stopped_by_signal(), which runs the
  pending Python signal handlers: the default one raises KeyboardInterrupt
  (so does Python itself as soon as the call returns); if a handler returns
  normally, the call runs again from the start, so a partial result is
  never returned. Outputs of an interrupted call hold unspecified values;
  inputs are only ever read.

The native handler only stores to a static int64 and calls the replaced
handler, so it is async-signal-safe, and it never writes to memory a call
owns (a call's own flag could be freed by the time a late signal lands).
Not taken: running kernels in a helper thread while the main thread waits
interruptibly (a thread hand-off on every call, tens of microseconds), and
signal.set_wakeup_fd (one per process, already owned by asyncio and others).
"""
from __future__ import annotations

import _signal  # signal.getsignal without its enum wrapping (10 us per call)
import ctypes
import os
import signal
import sys
import threading

from . import runtime_ahead
from .llvm_objects import load_runtime_module

__all__ = ["cancel_flag_for_call", "cancel_address", "in_main_thread", "stopped_by_signal",
           "ahead_jobs"]

_SIGINT = int(signal.SIGINT)
_SA_SIGINFO = 4
_SIG_IGN = 1

RUNTIME_IR = r"""
@pyhalide_rt_sigint_flag = global i64 0, align 64
@pyhalide_rt_sigint_prev = global ptr null, align 8
@pyhalide_rt_sigint_prev_siginfo = global i32 0, align 4

; SA_SIGINFO handler: set the flag, then run the replaced handler.
define void @pyhalide_rt_on_sigint(i32 %sig, ptr %info, ptr %ctx) nounwind {
entry:
  store atomic i64 1, ptr @pyhalide_rt_sigint_flag monotonic, align 8
  %prev = load ptr, ptr @pyhalide_rt_sigint_prev
  %p = ptrtoint ptr %prev to i64
  %real = icmp ugt i64 %p, 1
  br i1 %real, label %chain, label %done
chain:
  %si = load i32, ptr @pyhalide_rt_sigint_prev_siginfo
  %three = icmp ne i32 %si, 0
  br i1 %three, label %call3, label %call1
call3:
  call void %prev(i32 %sig, ptr %info, ptr %ctx)
  ret void
call1:
  call void %prev(i32 %sig)
  ret void
done:
  ret void
}
"""


class _Sigaction(ctypes.Structure):
    """struct sigaction of glibc and musl on Linux."""
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * (128 // 8)),
                ("flags", ctypes.c_int), ("restorer", ctypes.c_void_p)]


_state: dict = {"loaded": False, "usable": sys.platform.startswith("linux"),
                "seen": object(), "installed": False}


_RUNTIME_NAME = "pyhalide_sigint_runtime"


def ahead_jobs() -> list:
    """[(name, IR)] of the handler for runtime_ahead.start, or [] once
    loaded (or where it is not used: off Linux, outside the main thread)."""
    if _state["loaded"] or not _state["usable"] or not in_main_thread():
        return []
    return [(_RUNTIME_NAME, RUNTIME_IR)]


def _load():
    engine, addrs = load_runtime_module(RUNTIME_IR, _RUNTIME_NAME, ["pyhalide_rt_on_sigint"],
                                        runtime_ahead.take(_RUNTIME_NAME))
    _state["engine"] = engine     # never released: the handler stays installed
    _state["handler"] = addrs["pyhalide_rt_on_sigint"]
    for name, ctype in (("flag", ctypes.c_int64), ("prev", ctypes.c_void_p),
                        ("prev_siginfo", ctypes.c_int32)):
        addr = engine.get_global_value_address("pyhalide_rt_sigint_" + name)
        _state[name] = ctype.from_address(addr)
    _state["flag_address"] = ctypes.addressof(_state["flag"])
    _state["libc"] = ctypes.CDLL(None, use_errno=True)
    _state["loaded"] = True


def _install() -> bool:
    """Put our handler in front of SIGINT's current one, if that is a
    function; whether ours is in place."""
    libc = _state["libc"]
    old = _Sigaction()
    if libc.sigaction(signal.SIGINT, None, ctypes.byref(old)) != 0:
        return False
    if old.handler == _state["handler"]:
        return True
    if (old.handler or 0) <= _SIG_IGN:        # default action or ignored
        return False
    _state["prev"].value = old.handler
    _state["prev_siginfo"].value = 1 if old.flags & _SA_SIGINFO else 0
    new = _Sigaction()
    new.handler = _state["handler"]
    new.mask = old.mask
    new.flags = old.flags | _SA_SIGINFO
    new.restorer = old.restorer
    return libc.sigaction(signal.SIGINT, ctypes.byref(new), None) == 0


_main = [threading.main_thread().ident]
_get_ident = threading.get_ident
_getsignal = _signal.getsignal


def _main_after_fork():
    _main[0] = threading.main_thread().ident   # the forking thread (threading's hook ran)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_main_after_fork)


def in_main_thread() -> bool:
    """Whether the calling thread is the one Python runs signal handlers in."""
    return threading.get_ident() == _main[0]


def cancel_flag_for_call() -> int:
    """For a call from the main thread: the cleared flag our SIGINT handler
    sets (the handler installed first); 0 when there is none."""
    address = cancel_address(0)
    if address:
        _state["flag"].value = 0
    return address


def cancel_address(never: int) -> int:
    """For a call made now: the address of the flag our SIGINT handler sets
    (installed first) in the main thread, else `never`. The flag is not
    cleared (the native entry clears it: native_entry.py). One function,
    kept flat: called with cold caches after a bandwidth-bound kernel."""
    if _get_ident() != _main[0] or not _state["usable"]:
        return never
    if not _state["loaded"]:
        _load()
    current = _getsignal(_SIGINT)
    if current is not _state["seen"]:
        _state["installed"] = _install()
        _state["seen"] = current
    return _state["flag_address"] if _state["installed"] else never


_check_signals = ctypes.pythonapi.PyErr_CheckSignals
_check_signals.restype = ctypes.c_int


def stopped_by_signal() -> None:
    """Run the pending Python signal handlers now: what they raise
    propagates; when they return, the caller runs its call again."""
    _check_signals()
