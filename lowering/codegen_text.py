"""The LLVM IR text of a final Stmt, its llvmlite module freed at once.

    codegen_text(stmt, name, buffers, params, **options) -> (CodegenOutput, str)

codegen_llvm.codegen's output and the text of its module; the output's
`module` is None: the llvmlite objects are taken apart after printing, so
that reference counting frees them. Whole, they hold reference cycles
(an instruction and its block, a block and its function, a function and
its module, a loop's phi and its update), which only the cyclic collector
frees: compiles run with it paused (gc_pause.py), and its first collection
after a compile traversed every instruction, operand list and block of the
module (about 0.1-0.17 s CPU for interpolate and local Laplacian, a sixth
of their IR emission)."""
from __future__ import annotations

from llvmlite import ir as ll

from .codegen_llvm import CodegenOutput, codegen

__all__ = ["codegen_text"]


def codegen_text(stmt, name: str, buffers, params, **options) -> tuple[CodegenOutput, str]:
    out = codegen(stmt, name, buffers, params, **options)
    text = str(out.module)
    _take_apart(out.module)
    out.module = None
    return out, text


def _take_apart(mod: ll.Module) -> None:
    """Drop the attributes of the module's own objects (its functions, their
    arguments, blocks and instructions, its globals and metadata): no cycle
    is left among them. Types and constants, which llvmlite may share
    between modules, are left as they are."""
    for g in list(mod.globals.values()):
        if isinstance(g, ll.Function):
            for block in g.blocks:
                for inst in block.instructions:
                    inst.__dict__.clear()
                block.__dict__.clear()
            for arg in g.args:
                arg.__dict__.clear()
        g.__dict__.clear()
    for md in mod.metadata:
        md.__dict__.clear()
    mod.__dict__.clear()
