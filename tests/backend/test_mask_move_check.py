"""jit._mask_moving_functions: the module whose assembly is searched for
LLVM's VEX-encoded mask moves of xmm16-31 (llvm/llvm-project#191304) keeps
only the bodies of the functions that move a vector of i1 into scalars; the
other bodies become `unreachable` (a fifth of local Laplacian's module)."""
import llvmlite.binding as llvm

from pyhalide.lowering.jit import _mask_moving_functions
from pyhalide.lowering.llvm_objects import init_llvm

MODULE = """\
define internal i32 @plain(i32 %a) {
entry:
  %b = add i32 %a, 1
  ret i32 %b
}

define i32 @moves(<8 x i32> %v) {
entry:
  %m = icmp slt <8 x i32> %v, zeroinitializer
  %s = bitcast <8 x i1> %m to i8
  %z = zext i8 %s to i32
  %p = call i32 @plain(i32 %z)
  ret i32 %p
}
"""


def test_only_mask_moving_bodies_are_kept():
    text = _mask_moving_functions(MODULE)
    assert "bitcast <8 x i1>" in text
    assert "add i32 %a, 1" not in text
    assert "define internal i32 @plain(i32 %a) {\nentry:\n  unreachable\n}" in text
    init_llvm()
    mod = llvm.parse_assembly(text, context=llvm.create_context())
    mod.verify()


def test_a_module_without_mask_moves_is_not_searched():
    assert _mask_moving_functions(MODULE.replace("bitcast <8 x i1> %m to i8",
                                                 "add i8 0, 1")) is None
