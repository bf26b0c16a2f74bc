"""Halide's `f.output_buffer()`: the output buffer of a Func, whose
dimensions take the automatic scheduler's estimates (`dim(i).set_estimate`)
and constraints (set_min/set_extent/set_bounds, integers or expressions of
buffer geometry: `dim(i).min()`/`extent()`), which infer_input_bounds takes
(pyhalide/bounds_query.py); realize() does not check them. set_stride is
not taken (NotImplementedError)."""
from __future__ import annotations

from . import ir
from .expr import Expr


class OutputBufferDim:
    def __init__(self, func, index: int):
        self._func, self._index = func, index

    def set_estimate(self, lo, extent) -> "OutputBufferDim":
        self._func.set_estimate(self._func.args()[self._index], lo, extent)
        return self

    def dim(self, i: int) -> "OutputBufferDim":
        return OutputBuffer(self._func).dim(i)

    def _geometry(self, field: str) -> Expr:
        return Expr.wrap(ir.Variable(ir.INDEX, f"{self._func.name()}.{field}.{self._index}",
                                     "param", self))

    def min(self) -> Expr:
        return self._geometry("min")

    def extent(self) -> Expr:
        return self._geometry("extent")

    def max(self) -> Expr:
        return self.min() + self.extent() - 1

    def set_min(self, min) -> "OutputBufferDim":
        return self.set_bounds(min, None)

    def set_extent(self, extent) -> "OutputBufferDim":
        return self.set_bounds(None, extent)

    def set_bounds(self, min=None, extent=None) -> "OutputBufferDim":
        from .bounds_query import note_constraint
        note_constraint()
        table = self._func.__dict__.setdefault("_constraints", {})
        for field, v in (("min", min), ("extent", extent)):
            if v is not None:
                table[(field, self._index)] = v
        return self

    def set_stride(self, stride):
        raise NotImplementedError(
            f"{self._func.name()}.output_buffer().dim({self._index}).set_stride: pyhalide "
            f"lays out the buffers it allocates itself")


class OutputBuffer:
    def __init__(self, func):
        self._func = func

    def dimensions(self) -> int:
        return self._func.dimensions()

    def dim(self, i: int) -> OutputBufferDim:
        if not 0 <= i < self._func.dimensions():
            raise IndexError(f"{self._func.name()} has {self._func.dimensions()} dimensions")
        return OutputBufferDim(self._func, i)
