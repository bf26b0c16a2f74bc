"""Halide's `f.output_buffer()`: the output buffer of a Func, whose
dimensions take the automatic scheduler's estimates (`dim(i).set_estimate`).
Constraints on an output buffer's geometry (set_min/set_extent/set_bounds/
set_stride) are not taken: they raise NotImplementedError naming them."""
from __future__ import annotations


class OutputBufferDim:
    def __init__(self, func, index: int):
        self._func, self._index = func, index

    def set_estimate(self, lo, extent) -> "OutputBufferDim":
        self._func.set_estimate(self._func.args()[self._index], lo, extent)
        return self

    def dim(self, i: int) -> "OutputBufferDim":
        return OutputBuffer(self._func).dim(i)

    def _constraint(self, what: str):
        def refuse(*args, **kw):
            raise NotImplementedError(
                f"{self._func.name()}.output_buffer().dim({self._index}).{what}: constraints "
                f"on an output buffer's geometry are not taken by pyhalide; realize() over "
                f"the region you want (or Func.bound)")
        return refuse

    def __getattr__(self, name):
        if name in ("set_min", "set_extent", "set_bounds", "set_stride"):
            return self._constraint(name)
        raise AttributeError(name)


class OutputBuffer:
    def __init__(self, func):
        self._func = func

    def dimensions(self) -> int:
        return self._func.dimensions()

    def dim(self, i: int) -> OutputBufferDim:
        if not 0 <= i < self._func.dimensions():
            raise IndexError(f"{self._func.name()} has {self._func.dimensions()} dimensions")
        return OutputBufferDim(self._func, i)
