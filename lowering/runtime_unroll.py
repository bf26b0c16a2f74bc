"""Turn LLVM's runtime unrolling off for a module's serial loops, in its IR text.

    without_runtime_unrolling(ir_text) -> ir_text

LLVM's LoopUnroll unrolls a loop whose trip count is known only at run time
(by 2 on this host's scheduling model) with a remainder copy. In a large
module (jit._for_size: past RUNTIME_UNROLL_MAX_LINES, where LLVM's loop
vectorizer is off already because pyhalide vectorizes what the schedule
asks for) the loops it unrolls so are pyhalide's own vector loops over a
row: in interpolate's output task the 16-lane x loops of every compute_at
level (25 loops), which cost a third of that task's LLVM time and ran no
faster (docs/compile_time_llvm.md, session 23).

codegen_llvm._serial_loop closes a loop `name` with the latch
`br i1 %c, label %"for.<name>", label %"end.<name>"`; the guard before the
loop has the same form. Each such branch without a `!llvm.loop` gets a loop
ID of its own asking for no runtime unrolling (on the guard, which is no
loop's latch, LLVM never reads it). Loops that already carry an ID (the
plain loops: unrolling off altogether) and loops of other shapes keep theirs.
Full unrolling of constant trip counts and partial unrolling stay as they are.
"""
from __future__ import annotations

import re

__all__ = ["without_runtime_unrolling"]

# The branches of _serial_loop (names quoted or not, as llvmlite prints them);
# a branch already carrying metadata has more after its end label. (Scanned
# from the newline before: a pattern anchored with `^` under re.M took 40 ms
# on interpolate's 1.3 MB of text, this one 1 ms.)
_LOOP_BRANCH = re.compile(r'(\n  br i1 [^,\n]+, label %"?for\.[^,\n]*, label %"?end\.[^,\n]*)(?=\n)')
_METADATA_NUMBER = re.compile(r"\n!(\d+) = ")

_HINT = '!{!"llvm.loop.unroll.runtime.disable"}'


def without_runtime_unrolling(ir_text: str) -> str:
    """ir_text with a runtime-unroll-disable loop ID on each loop branch of
    _serial_loop that has none (see the module docstring)."""
    numbers = [int(m.group(1)) for m in _METADATA_NUMBER.finditer(ir_text)]
    hint = max(numbers, default=-1) + 1
    ids: list = []

    def tag(m):
        n = hint + 1 + len(ids)
        ids.append(n)
        return f"{m.group(1)}, !llvm.loop !{n}"

    text = _LOOP_BRANCH.sub(tag, ir_text)
    if not ids:
        return ir_text
    tail = [f"!{hint} = {_HINT}"] + [f"!{n} = distinct !{{!{n}, !{hint}}}" for n in ids]
    return text.rstrip("\n") + "\n" + "\n".join(tail) + "\n"
