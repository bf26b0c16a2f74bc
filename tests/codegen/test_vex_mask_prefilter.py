"""jit._VEX_MASK_MOVE_BYTES: the object code is searched for LLVM's VEX
mask moves of xmm16-31 (llvm/llvm-project#191304) in assembly only when its
bytes may hold a VEX VMOVMSKPS/PD or VPMOVMSKB at all. The filter must match
every VEX encoding of those instructions (a miss would skip the check)."""
import llvmlite.binding as llvm

from pyhalide.lowering.jit import _VEX_MASK_MOVE_BYTES
from pyhalide.lowering.llvm_objects import init_llvm, new_machine
from pyhalide.lowering.target import parse_target

# (encoding, what llvm-mc assembles it from): two- and three-byte VEX
# prefixes, each R/X/B/W/L, destinations eax..r15 and sources xmm/ymm 0..15.
ENCODINGS = [
    ("c5 f8 50 c1", "vmovmskps %xmm1, %eax"),
    ("c5 78 50 c9", "vmovmskps %xmm1, %r9d"),
    ("c5 fc 50 c7", "vmovmskps %ymm7, %eax"),
    ("c5 f9 50 c2", "vmovmskpd %xmm2, %eax"),
    ("c5 7d 50 c0", "vmovmskpd %ymm0, %r8d"),
    ("c5 f9 d7 c3", "vpmovmskb %xmm3, %eax"),
    ("c5 fd d7 c2", "vpmovmskb %ymm2, %eax"),
    ("c4 c1 79 50 c1", "vmovmskpd %xmm9, %eax"),
    ("c4 41 7c 50 c3", "vmovmskps %ymm11, %r8d"),
    ("c4 e1 f8 50 c1", "{vex3} vmovmskps %xmm1, %rax"),
    ("c4 c1 7d d7 c7", "vpmovmskb %ymm15, %eax"),
    ("c4 e1 79 d7 c1", "{vex3} vpmovmskb %xmm1, %eax"),
]

MASK_MODULE = """\
define i32 @moves(<8 x float> %v) {
entry:
  %m = fcmp olt <8 x float> %v, zeroinitializer
  %s = bitcast <8 x i1> %m to i8
  %z = zext i8 %s to i32
  ret i32 %z
}
"""


def test_every_vex_mask_move_encoding_matches():
    for enc, asm in ENCODINGS:
        code = bytes.fromhex(enc)
        assert _VEX_MASK_MOVE_BYTES.search(b"\x90" + code + b"\xc3"), asm


def _object(text, target):
    init_llvm()
    mod = llvm.parse_assembly(text, context=llvm.create_context())
    return new_machine(parse_target(target)).emit_object(mod)


def test_an_avx2_mask_move_is_found_in_the_object():
    # without AVX-512, LLVM moves the sign bits with VEX vmovmskps
    assert _VEX_MASK_MOVE_BYTES.search(_object(MASK_MODULE, "x86-64-avx2"))


def test_an_object_without_mask_moves_passes():
    plain = MASK_MODULE.replace("fcmp olt <8 x float> %v, zeroinitializer",
                                "fadd <8 x float> %v, %v").replace(
        "bitcast <8 x i1> %m to i8", "bitcast <8 x float> %m to <8 x i32>").replace(
        "zext i8 %s to i32", "extractelement <8 x i32> %s, i32 0")
    assert not _VEX_MASK_MOVE_BYTES.search(_object(plain, "x86-64-avx2"))
