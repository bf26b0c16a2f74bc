"""Halide 21's LoopLevel, VarOrRVar and the enums schedules take, with its
Python names.

LoopLevel(f, x, stage_index=-1), LoopLevel.root(), LoopLevel.inlined():
accepted by Func.compute_at / store_at (one argument). As in Halide a
LoopLevel is a handle: `level.set(other)` after it was given to compute_at
changes that Func's schedule too. An undefined LoopLevel() must be set
before it is used.

VarOrRVar(v) is v itself (pyhalide's schedule calls take a Var or an RVar);
VarOrRVar(name, is_rvar) makes one by name.

MemoryType, LoopAlignStrategy, PrefetchBoundStrategy: Halide's members. No
pyhalide schedule call takes them yet (pyhalide has no store_in, prefetch or
compute_with); they are here so a ported program's names resolve.
"""
from __future__ import annotations

import enum
import weakref

from . import ir
from .errors import CompileError

__all__ = ["LoopLevel", "VarOrRVar", "MemoryType", "LoopAlignStrategy",
           "PrefetchBoundStrategy"]


class MemoryType(enum.IntEnum):
    Auto = 0
    Heap = 1
    Stack = 2
    Register = 3
    GPUShared = 4
    GPUTexture = 5
    LockedCache = 6
    VTCM = 7


class LoopAlignStrategy(enum.IntEnum):
    AlignStart = 0
    AlignEnd = 1
    NoAlign = 2
    Auto = 3


class PrefetchBoundStrategy(enum.IntEnum):
    Clamp = 0
    GuardWithIf = 1
    NonFaulting = 2


class LoopLevel:
    """Where a Func is computed or stored (Halide's LoopLevel)."""

    def __init__(self, func=None, var=None, stage_index: int = -1):
        self._level = None
        self._users = []                     # (weakref to Func, "compute_at"|"store_at")
        if func is not None or var is not None:
            self._level = _at(func, var, stage_index)

    @staticmethod
    def root() -> "LoopLevel":
        return LoopLevel._of(ir.LoopLevel.root())

    @staticmethod
    def inlined() -> "LoopLevel":
        return LoopLevel._of(ir.LoopLevel.inlined())

    @staticmethod
    def _of(level: ir.LoopLevel) -> "LoopLevel":
        out = LoopLevel()
        out._level = level
        return out

    def defined(self) -> bool:
        return self._level is not None

    def is_root(self) -> bool:
        return self._value().is_root()

    def is_inlined(self) -> bool:
        return self._value().is_inlined()

    def stage_index(self) -> int:
        return self._value().stage

    def func(self) -> str:
        return self._value().func

    def var(self):
        from .var import Var
        return Var(self._value().var)

    def lock(self) -> "LoopLevel":
        self._value()
        return self

    def set(self, other: "LoopLevel") -> None:
        """Make this level mean `other`'s; every Func scheduled with it follows."""
        if not isinstance(other, LoopLevel):
            raise TypeError(f"LoopLevel.set takes a LoopLevel, not {type(other).__name__}")
        old, self._level = self._level, other._value()
        for ref, what in list(self._users):
            f = ref()
            if f is None:
                continue
            sched = f.function().schedule
            now = sched.compute_level if what == "compute_at" else sched.store_level
            if old is not None and now == old:   # not rescheduled since
                if what == "compute_at" and sched.store_level == old:
                    sched.store_level = None         # storage follows the computation
                apply_loop_level(f, self, what)

    def _value(self) -> ir.LoopLevel:
        if self._level is None:
            raise CompileError("a LoopLevel() used before it was set (LoopLevel.set, "
                               "or LoopLevel(f, x) / root() / inlined())")
        return self._level

    def __eq__(self, other) -> bool:
        return isinstance(other, LoopLevel) and self._level == other._level

    __hash__ = None

    def __repr__(self) -> str:
        return f"<LoopLevel {self._level if self._level is not None else 'undefined'}>"


def _at(func, var, stage_index: int) -> ir.LoopLevel:
    from .func import Func, Stage
    if isinstance(func, Stage):
        func, stage_index = func.func(), func.index()
    if not isinstance(func, Func) or var is None:
        raise TypeError("LoopLevel(f, x[, stage_index]) needs a Func and a Var or RVar")
    name = var if isinstance(var, str) else var.name()
    return ir.LoopLevel("at", func.name(), name, int(stage_index))


def apply_loop_level(f, level: LoopLevel, what: str):
    """f.compute_at(level) / f.store_at(level): the level's current value,
    and again whenever the level is set (Halide's handle semantics)."""
    if not isinstance(level, LoopLevel):
        raise TypeError(f"{what} takes a Func and a Var, or one LoopLevel; "
                        f"got {type(level).__name__}")
    v = level._value()
    if not any(r() is f and w == what for r, w in level._users):
        level._users.append((weakref.ref(f), what))
    if v.is_root():
        return f.compute_root() if what == "compute_at" else f.store_root()
    if v.is_inlined():
        if what == "compute_at":
            return f.compute_inline()
        raise CompileError(f"Func {f.name()}.store_at(LoopLevel.inlined()): storage needs a "
                           "loop level or root")
    if v.func == f.name():
        raise CompileError(f"Func {f.name()} cannot be computed inside its own loops")
    sched = f.function().schedule
    if what == "store_at":
        sched.store_level = v
        return f
    sched.compute_level = v                  # as Func.compute_at(g, x)
    if sched.store_level is None or sched.store_level.is_inlined():
        sched.store_level = v
    return f


def VarOrRVar(v, is_rvar: bool = False):       # noqa: N802 (Halide's class name)
    """Halide's VarOrRVar: a Var or RVar is itself; a name makes one."""
    from .var import RVar, Var
    if isinstance(v, (Var, RVar)):
        return v
    if isinstance(v, str):
        if is_rvar:
            raise CompileError(f"VarOrRVar({v!r}, True): an RVar comes from an RDom "
                               "(rdom.x), not a name")
        return Var(v)
    raise TypeError(f"VarOrRVar takes a Var, an RVar or a name, not {type(v).__name__}")
