"""The vector schedule of a time-stepped loop's step (carried_arrays.py).

A step stores every member's next value at (point, (t + 1) % 2) from
values that read the state only at slot t % 2: the points of one step do
not depend on each other, so the step's innermost point loop may run in
vector lanes. LLVM's loop vectorizer would find that itself, but it is left
out of kernels past lowering/jit.LOOP_VECTORIZE_MAX_LINES lines (mandelbrot:
6,300 lines, its step a scalar loop 4.5x slower than the vector one), so the
default schedule vectorizes the step when its values are plain arithmetic:

  - no run-time check (a check image read) and no lazy `if_then_else`: the
    lanes evaluate every point's operands, and a check raises at the first
    failing point in Python's order only in the scalar loop;
  - intrinsics whose vector form rounds as the scalar one (abs, sqrt, fma,
    floor/ceil/trunc): no transcendental function, whose vector version
    (codegen_trig) may differ from the scalar one in the last bit;
  - every read of the state at slot t % 2.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.check_images import is_check_read

_EXACT = frozenset({"abs", "sqrt", "fma", "floor", "ceil", "trunc", "likely"})
# 32 bytes of lanes (4 float64, 8 float32): grayscott's float32 step is as
# fast as LLVM's own vectorization of it (1.85 ms; 2.4 ms at 64 bytes),
# mandelbrot's float64 step 1.15 ms (1.2 at 64 bytes; load ~12)
_LANE_BYTES = 32


def vectorize_step(stage, point_var: str, values, state_name: str, t, types) -> bool:
    """Vectorize `stage` (the step's update definition) along its innermost
    point coordinate `point_var` (an RVar name) when `values` (the members'
    next values, reading the state `state_name` at step `t`) allow it (see
    the module's docstring). `types`: the members' element types. Returns
    whether it did."""
    slot = ir.Mod(t, ir.index(2))
    for c in ir.find_calls(list(values)):
        if is_check_read(c) or ir.is_lazy_select(c):
            return False
        if c.call_type == ir.INTRINSIC and c.name not in _EXACT:
            return False
        if c.call_type not in (ir.INTRINSIC, ir.FUNC, ir.IMAGE):
            return False
        if c.call_type == ir.FUNC and c.name == state_name and \
                (not c.args or not ir.equal(c.args[-1], slot)):
            return False
    widest = max(ty.bits for ty in types) // 8
    lanes = max(4, min(16, _LANE_BYTES // max(widest, 1)))
    stage.vectorize(point_var, lanes)
    return True
