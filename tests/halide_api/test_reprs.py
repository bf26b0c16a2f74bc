"""repr()/str() of pyhalide's objects read as Halide 21's bindings print them
(the texts Halide's own correctness tests basics.py, buffer.py, type.py,
var.py and target.py check, recorded from the Halide 21.0.0 wheel), the
undefined ImageParam()/OutputImageParam()/RDom()/Pipeline(), and Python's
operator TypeError naming Halide's _UnevaluatedFuncRefExpr class."""
import numpy as np
import pytest

import pyhalide as ph


def test_reprs_as_halide_21():
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("f_repr")
    f[x, y] = x + y
    assert repr(x) == "<halide.Var 'x'>" and str(x) == "x"
    assert repr(ph.Int(32)) == "<halide.Type int32>" and str(ph.Int(32)) == "int32"
    assert repr(ph.Int(32, 8)) == "<halide.Type int32x8>" and str(ph.Int(32, 8)) == "int32x8"
    assert repr(f) == str(f) == "<halide.Func 'f_repr'>"
    assert repr(ph.Buffer(ph.Int(32), [128, 256])) == \
        "<halide.Buffer of type int32 shape:[[0,128,1],[0,256,128]]>"
    assert str(ph.Buffer(np.zeros((3, 4), dtype=np.uint8))) == \
        "<halide.Buffer of type uint8 shape:[[0,4,1],[0,3,4]]>"
    assert str(ph.Buffer()) == "<undefined halide.Buffer>"
    assert repr(ph.Param(ph.Int(32), "p")) == "<halide.Param 'p' type int32>"
    assert str(ph.ImageParam(ph.UInt(16), 2, "input")) == \
        "<halide.ImageParam 'input', dims: 2, type: uint16>"
    r = ph.RDom([(0, 10), (2, 5)], "r")
    assert str(r) == repr(r) == "<halide.RDom RDom(\n  r$x(0, 10)\n  r$y(2, 5)\n)>"
    assert repr(r.x) == "<halide.RVar r$x(0, 10)>" and str(r.x) == "r$x"
    assert str(ph.Pipeline(f)) == "<halide.Pipeline ['f_repr']>"
    assert repr(ph.Target("x86-64-linux-avx2")) == "<halide.Target x86-64-linux-avx2>"
    assert repr(ph.Expr(x) + 1) == "<halide.Expr of type int32: (x + 1)>"


def test_undefined_objects():
    assert str(ph.ImageParam()) == "<halide.ImageParam ImageParam()>"
    assert not ph.ImageParam().defined() and ph.ImageParam(ph.Int(8), 1).defined()
    assert str(ph.OutputImageParam()) == "<halide.OutputImageParam OutputImageParam()>"
    assert str(ph.RDom()) == "<halide.RDom RDom()>"
    assert str(ph.Pipeline()) == "<halide.Pipeline Pipeline()>" and not ph.Pipeline().defined()
    with pytest.raises(TypeError, match="needs both the type and the dimensions"):
        ph.ImageParam(ph.Int(8))


def test_unevaluated_ref_operator_error_names_halides_class():
    x = ph.Var("x")
    f = ph.Func("f_uneval")
    ref = f[x]
    ref += 1
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+=: "
                                        r"'halide\.halide_\._UnevaluatedFuncRefExpr' and 'int'"):
        ref += 1


def test_target_as_halide_21():
    # answers recorded from Halide 21.0.0's correctness test target.py
    assert ph.Target("") == ph.get_host_target() and ph.get_host_target().supported()
    t = ph.Target()
    assert str(t) == "arch_unknown-0-os_unknown" and t.bits == 0
    assert t.os == ph.TargetOS.OSUnknown and t.arch == ph.TargetArch.ArchUnknown
    assert not ph.Target.validate_target_string(str(t))
    F = ph.TargetFeature
    t = ph.Target(ph.TargetOS.Android, ph.TargetArch.ARM, 32, [F.JIT, F.CUDA, F.OpenCL, F.Debug])
    assert t.to_string() == "arm-32-android-cuda-debug-jit-opencl"
    for bad in ("host-unknowntoken", "x86-23", "x86-0", "0-arch_unknown-os_unknown-sse41",
                "opencl-host"):
        assert not ph.Target.validate_target_string(bad)
    t = ph.Target(ph.TargetOS.Linux, ph.TargetArch.X86, 32, [F.SSE41])
    assert ph.Target.validate_target_string(t.to_string())
    t.set_features([F.SSE41], False)
    t.set_feature(F.AVX)
    assert t.has_feature(F.AVX) and not t.has_feature(F.SSE41)
    t = ph.Target(ph.TargetOS.Linux, ph.TargetArch.X86, 32, [F.SSE41])
    assert str(t.with_feature(F.NoAsserts).with_feature(F.NoBoundsQuery)) == \
        "x86-32-linux-no_asserts-no_bounds_query-sse41"
    assert [t.natural_vector_size(x) for x in (ph.UInt(8), ph.Int(16), ph.Float(32))] == \
        [16, 8, 4]
    assert ph.Target("x86-64-linux-avx2").natural_vector_size(ph.Float(32)) == 8
    assert not ph.Target("x86-64-linux-avx2").has_feature(F.AVX)    # no implied features
    big = ph.Target(ph.TargetOS.Linux, ph.TargetArch.X86, 64, [F.LargeBuffers])
    assert big.maximum_buffer_size() == 2 ** 63 - 1
    metal = ph.Target(ph.TargetOS.OSX, ph.TargetArch.X86, 64, [F.Metal])
    assert not metal.supports_type(ph.Float(64)) and \
        not ph.Target(ph.TargetOS.OSX, ph.TargetArch.X86, 64).supports_type(
            ph.Float(64), ph.DeviceAPI.Metal)
    assert ph.target_feature_for_device_api(ph.DeviceAPI.OpenCL) == F.OpenCL
    with pytest.raises(TypeError, match="incompatible constructor arguments"):
        ph.Target(ph.TargetOS.Linux, ph.TargetArch.X86, 32, ["this is a string"])
    with pytest.raises(ValueError, match="Did not understand Halide target"):
        ph.Target("x86-64-linux-nonsense")
