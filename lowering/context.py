"""What the lowering passes share: the pipeline being lowered and the names
of the symbols they agree on."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from pyhalide import ir


@dataclass
class LoweringContext:
    outputs: list                       # output Function names
    env: dict                           # name -> ir.Function (lowering's own copies)
    inputs: list                        # [ir.InputImage]
    params: list                        # [ir.ScalarParam]
    dense: frozenset = frozenset()      # buffers whose dimension 0 has stride 1
    order: list = field(default_factory=list)        # realization order, producers first
    in_place: dict = field(default_factory=dict)     # output name -> computed in its buffer
    folds: dict = field(default_factory=dict)        # Func -> (dimension, fold factor)
    stages: list = field(default_factory=list)       # [(pass name, Stmt)] for dumps
    stage_loops: dict = field(default_factory=dict)  # (Func, stage) -> (Definition,
                                                     # StageLoops): loops_of_stage's memo

    def is_output(self, name: str) -> bool:
        return name in self.outputs

    def region_owner(self, name: str) -> str:
        """The Func whose region rules (access_rules) govern the accesses of
        Func `name`: `name` itself, or, for an rfactor intermediate, the Func
        it factors (ir.Function.factored_from). The intermediate's writes are
        that Func's writes, moved: its region covers the Func's in the Func's
        dimensions (bounds_inference), and they are checked as the serial
        schedule checks them (access_checks: for an output, against the
        output's region; for another Func, whose region may be defined only
        inside loops the intermediate is computed outside of, against the
        intermediate's own, which covers it) and reported under the Func's
        name."""
        owner = self.env[name].factored_from if name in self.env else ""
        return owner if owner in self.env else name

    def image(self, name: str):
        for img in self.inputs:
            if img.name == name:
                return img
        return None


# ---- symbol names shared by the passes ------------------------------------
def region_min(f: str, d: int) -> str:
    return f"{f}.b{d}.min"


def region_max(f: str, d: int) -> str:
    return f"{f}.b{d}.max"


def region_extent(f: str, d: int) -> str:
    return f"{f}.b{d}.extent"


def region_stride(f: str, d: int) -> str:
    return f"{f}.b{d}.stride"


def buffer_name(f: str, index: int, count: int) -> str:
    """Name of the storage of element `index` of a Func with `count` values."""
    return f if count == 1 else f"{f}.{index}"


def internal_name(buf: str) -> str:
    """Scratch storage of an output computed over a larger region than asked."""
    return f"{buf}.internal"


def geometry(buf: str, field_name: str, d: int) -> ir.Expr:
    """min/extent/stride of dimension d of a kernel buffer argument. Every
    buffer the runtime passes starts at 0 in every dimension (a NumPy array,
    or a realize() region), so the min is the constant 0: index arithmetic
    then folds as it does for NumPy arrays."""
    if field_name == "min":
        return ir.index(0)
    return ir.Variable(ir.INDEX, f"{buf}.{field_name}.{d}", "param")


def index_var(name: str) -> ir.Variable:
    return ir.Variable(ir.INDEX, name)


def required_min(f: str, d: int) -> str:
    return f"{f}.r{d}.min"


def required_max(f: str, d: int) -> str:
    return f"{f}.r{d}.max"


def required_extent(f: str, d: int) -> str:
    return f"{f}.r{d}.extent"


_REQUIRED_EXTENT = re.compile(r"\.r\d+\.extent$")


def is_required_extent(name: str) -> bool:
    """Whether `name` is a required_extent(f, d)."""
    return _REQUIRED_EXTENT.search(name) is not None


def stage_prefix(f: str, stage: int) -> str:
    return f"{f}.s{stage}."


def compute_level(ctx: "LoweringContext", name: str) -> ir.LoopLevel:
    """Where Func `name` is computed: outputs and unscheduled Funcs at root."""
    level = ctx.env[name].schedule.compute_level
    if ctx.is_output(name) or level is None or level.is_inlined():
        return ir.LoopLevel.root()
    return level


def store_level(ctx: "LoweringContext", name: str) -> ir.LoopLevel:
    """Where Func `name` is allocated: its store level if it has one outside
    its compute level, else the compute level."""
    compute = compute_level(ctx, name)
    level = ctx.env[name].schedule.store_level
    if compute.is_root() or level is None or level.is_inlined():
        return compute
    return level
