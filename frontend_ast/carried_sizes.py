"""A carried array whose size after the loop's body is not provably its size
before the loop (`zi = np.zeros_like(ci)` rebound to `np.where(inside, ...,
zi)`, which broadcasts with `cr`): the loop compiles for calls where the two
sizes are equal, and a call-time check refuses the others where the loop
runs at least once (Python would then carry an array of another size; with
no iteration the name keeps its array, whatever the sizes)."""
from __future__ import annotations

from .array_choice import SameSizeAtCall


class SameSizeIfRuns(SameSizeAtCall):
    """SameSizeAtCall, made only where range(start, stop, step) (call-time
    Python ints) has an iteration."""

    def __init__(self, a, b, loop, message, loc):
        super().__init__(a, b, message, loc)
        self.start, self.stop, self.step = loop.start.static, loop.stop.static, loop.step

    def __call__(self, env):
        if len(range(int(self.start(env)), int(self.stop(env)), self.step)):
            super().__call__(env)


def check_kept_size(cx, loop, name, after, before, node) -> bool:
    """Add the call-time check that size `after` of the carried array `name`
    equals `before` when `loop` runs; False where the loop's bounds have no
    call-time value (the caller refuses the loop)."""
    if loop.start.static is None or loop.stop.static is None:
        return False
    cx.static_checks.append(SameSizeIfRuns(
        after, before, loop, f"{name!r} has another size after this loop's body than before "
                             f"the loop in this call (the body broadcasts it; give it the broadcast "
                             f"shape before the loop)", cx.smap.loc(node)))
    return True
