"""`Function`: one Func's definitions and schedule, as plain data.

This is what lowering reads (Halide's internal `Function`); the user-facing
`Func` in `pyhalide.func` is a thin wrapper that edits it.

The edit stamp: LAST_EDIT[0] changes at every attribute assignment on a
Function, FuncSchedule, Definition or StageSchedule and at every in-place
edit of an EditedList (each takes a new value of one process-wide counter,
after the edit). A repeated realize (pyhalide/realize_fast.py) whose
Functions hold only EditedLists skips comparing them when the stamp is the
one it recorded: nothing of any of them can have changed since. Lists are
made EditedLists where they are created fresh (`EditedList(...)`, the
default factories, copy_stage); a plain list assigned to a field stays
plain (wrapping it would separate it from the caller's reference), and a
Function holding one is always compared.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Optional

from .nodes import Expr
from .types import Type

_EDITS = itertools.count(1)
LAST_EDIT = [0]      # the edit stamp (module docstring); read, never written, elsewhere


def edited() -> None:
    """Record an edit of a Function's data (after making it)."""
    LAST_EDIT[0] = next(_EDITS)


class EditedList(list):
    """A list whose in-place edits change the edit stamp (module docstring)."""

    __slots__ = ()


def _stamping(name: str):
    """list's method `name`, changing the edit stamp after it ran."""
    base = getattr(list, name)

    def method(self, *args, **kw):
        out = base(self, *args, **kw)
        edited()
        return out
    method.__name__ = name
    return method


for _name in ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
              "__setitem__", "__delitem__", "__iadd__", "__imul__"):
    setattr(EditedList, _name, _stamping(_name))


class _Edited:
    """Mixin of the mutable data classes below: every attribute assignment
    changes the edit stamp."""

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        edited()


def tracked(fn: "Function") -> bool:
    """Whether every list `fn` holds (its updates, bounds, and each
    definition's predicates, splits, reduction variables and loops) is an
    EditedList: then the edit stamp covers all of `fn`."""
    if type(fn.updates) is not EditedList or type(fn.schedule.bounds) is not EditedList:
        return False
    for d in fn.definitions():
        s = d.schedule
        if type(d.predicates) is not EditedList or type(s.splits) is not EditedList \
                or type(s.rvars) is not EditedList or type(s.dims) is not EditedList:
            return False
    return True


@dataclass(frozen=True)
class SourceLoc:
    file: str
    line: int
    col: int = 0
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


def at(loc: SourceLoc | None, what: str = "at") -> str:
    """'\n  at file:line: text' for messages (`what` in place of 'at'), or ''."""
    if loc is None:
        return ""
    text = f": {loc.text.strip()}" if loc.text else ""
    return f"\n  {what} {loc.file}:{loc.line}{text}"


@dataclass(frozen=True)
class ReductionVariable:
    name: str
    min: Expr
    extent: Expr


@dataclass(frozen=True)
class Split:
    """One step of a stage's loop structure rewrite, applied in order.

    kind "split": old -> outer, inner with `factor` and `tail` strategy;
    kind "fuse": outer, inner -> old (the fused variable);
    kind "rename": old -> outer.
    """

    kind: str
    old: str
    outer: str
    inner: str
    factor: Optional[Expr] = None
    tail: str = "Auto"


@dataclass(frozen=True)
class Dim:
    """One loop of a stage, listed innermost first (Halide's convention).
    Immutable: a schedule replaces the entry (pyhalide.realize compares
    schedules by the Dim objects they hold)."""

    var: str
    kind: str = "serial"          # ForKind value
    is_rvar: bool = False
    task_size: Optional[Expr] = None
    partition: bool = True        # False: partition(v, Partition.Never), the loop is
                                  # never partitioned (lowering/partition_loops.py)


@dataclass
class StageSchedule(_Edited):
    dims: list = field(default_factory=EditedList)       # [Dim], innermost first
    splits: list = field(default_factory=EditedList)     # [Split]
    rvars: list = field(default_factory=EditedList)      # [ReductionVariable] current
    allow_race_conditions: bool = False
    # Stage.atomic(): `f[args] = f[args] op e` (integer op with an atomicrmw) is
    # one atomic read-modify-write, so iterations writing one element may run in parallel
    atomic: bool = False


def copy_stage(s: StageSchedule) -> StageSchedule:
    """A copy of s's loops, splits, reduction variables and race permission
    (not `atomic`), the lists new."""
    return StageSchedule(EditedList(s.dims), EditedList(s.splits), EditedList(s.rvars),
                         s.allow_race_conditions)


@dataclass(frozen=True)
class LoopLevel:
    """Where a Func is computed or stored: inlined, at root, or at loop `var`
    of stage `stage` of Func `func`. Stage -1 (Halide's default) is every
    stage of `func` that uses the Func (lowering/stage_levels.py resolves it;
    the last stage where none or another Func computed inside does)."""

    kind: str                      # "inlined" | "root" | "at"
    func: Optional[str] = None
    var: Optional[str] = None
    stage: int = -1

    @staticmethod
    def inlined() -> "LoopLevel":
        return LoopLevel("inlined")

    @staticmethod
    def root() -> "LoopLevel":
        return LoopLevel("root")

    def is_inlined(self) -> bool:
        return self.kind == "inlined"

    def is_root(self) -> bool:
        return self.kind == "root"

    def __str__(self) -> str:
        return self.kind if self.kind != "at" else f"{self.func}.{self.var}"


@dataclass(frozen=True)
class FuncBound:
    """Halide's Bound: `bound(var, min, extent)`, `bound_extent(var, extent)`
    (min None), `align_bounds(var, modulus, remainder)` and
    `align_extent(var, modulus)` (remainder None); index Exprs."""
    var: str
    min: Optional[Expr] = None
    extent: Optional[Expr] = None
    modulus: Optional[Expr] = None
    remainder: Optional[Expr] = None


@dataclass
class FuncSchedule(_Edited):
    compute_level: Optional[LoopLevel] = None   # None: the default for its kind
    store_level: Optional[LoopLevel] = None
    # [FuncBound], applied in order to the region computed (bound: consumers
    # must need no more; align: the region grows)
    bounds: list = field(default_factory=EditedList)
    # a GPU or DSP directive (gpu_tile, hexagon, ...): compiling is refused
    device: str = ""
    # Func.trace_realizations: the compiled code reports its realizations
    trace_realizations: bool = False
    # an output whose region may reach past its buffer (an update over an
    # RDom) is computed in its buffer when a run-time test shows the region
    # inside it, else in scratch storage and copied out (parallel_scan sets
    # it; lowering/storage_flattening.py)
    in_place_if_inside: bool = False


@dataclass
class Definition(_Edited):
    """`name(args) = values`, over the RDom in `rvars` where all of
    `predicates` hold (an update), or over the pure Vars (the pure definition).

    `exit` (an update's, optional): a condition under which the update does
    nothing (the predicates imply its negation) and which, once it holds at
    a point, holds at every later iteration of that point: the lowered loop
    over the innermost RVar is left when it holds (a `break` or the end of a
    `while` loop in @pipeline code). `exit_required`: its RDom runs a
    `while` loop without a stated bound (2**31 - 2 iterations): lowering
    must place the exit at its loop or refuse the schedule. `exit_moves`:
    the condition reads the innermost RVar (the point the update writes
    moves with it, e.g. insertion sort's shifting loop), and once it holds
    at one iteration of that loop it holds at every later iteration of it
    (the other loops fixed), where the update does nothing that a later
    read sees: the lowered loop over the innermost RVar is left when it
    holds (lowering/loop_exit.py). `exit_outer`: the condition reads only
    the outermost RVar (and parameters) and is tested at the top of that
    loop's body, before the inner loops, which it leaves when it holds
    (a `break` before an inner nest: frontend_ast/outer_exit.py); lowering
    must place it there (the loop serial and unsplit) or refuse."""

    args: tuple                     # LHS coordinates (Exprs)
    values: tuple                   # one Expr per tuple element
    predicates: list = field(default_factory=EditedList)
    schedule: StageSchedule = field(default_factory=StageSchedule)
    source: Optional[SourceLoc] = None
    rdom_name: str = ""
    exit: Optional[object] = None   # an Expr, see above
    exit_required: bool = False
    exit_moves: bool = False
    exit_outer: bool = False

    @property
    def rvars(self) -> list:
        return self.schedule.rvars


@dataclass(eq=False)
class Function(_Edited):
    name: str
    args: tuple = ()                # pure Var names, dimension 0 first
    output_types: tuple = ()
    pure: Optional[Definition] = None
    updates: list = field(default_factory=EditedList)
    schedule: FuncSchedule = field(default_factory=FuncSchedule)
    source: Optional[SourceLoc] = None
    # an rfactor intermediate: the Func whose update it factors (the first of a
    # chain of rfactors); its writes at that Func's dimensions obey that Func's
    # region rules (LoweringContext.region_owner)
    factored_from: str = ""

    def has_pure_definition(self) -> bool:
        return self.pure is not None

    def has_updates(self) -> bool:
        return bool(self.updates)

    def definitions(self) -> list:
        return ([self.pure] if self.pure is not None else []) + list(self.updates)

    def dimensions(self) -> int:
        return len(self.args)

    def outputs(self) -> int:
        return len(self.output_types)


@dataclass(frozen=True)
class InputImage:
    """An input buffer the pipeline reads: name, element type, dimensions."""

    name: str
    type: Type
    dimensions: int


@dataclass(frozen=True)
class ScalarParam:
    name: str
    type: Type
