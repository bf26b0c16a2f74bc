"""Halide's Pipeline methods (lesson 22) and the GPU parts of the Target API
(lesson 19): infer_arguments, compile_to_callable, invalidate_cache,
compile_to_module; a GPU schedule is accepted and refused when compiled;
Target.with_feature(OpenCL) and host_supports_target_device."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def _pipeline():
    x, y = ph.vars("x y")
    img = ph.ImageParam(ph.UInt(8), 2, "img_pm")
    k = ph.Param(ph.Int(32), "k_pm", 3)
    fixed = ph.Buffer(np.arange(4, dtype=np.int32), "fixed_pm")
    f = ph.Func("f_pm")
    f[x, y] = ph.i32(img[x, y]) * k + fixed[x % 4]
    return f, img, k


def test_infer_arguments_lists_image_params_then_params():
    f, img, k = _pipeline()
    args = ph.Pipeline(f).infer_arguments()
    assert [(a.name, a.kind, a.dimensions) for a in args] == [
        ("img_pm", ph.ArgumentKind.InputBuffer, 2), ("k_pm", ph.ArgumentKind.InputScalar, 0)]
    assert args[0].type == ph.UInt(8) and args[1].type == ph.Int(32)


def test_compile_to_callable_binds_the_arguments():
    f, img, k = _pipeline()
    p = ph.Pipeline(f)
    call = p.compile_to_callable(p.infer_arguments(), ph.get_jit_target_from_environment())
    a = (np.arange(15, dtype=np.uint8) * 7).reshape(3, 5)
    out = ph.Buffer(ph.Int(32), [5, 3])
    call(a, 10, out)
    expected = a.astype(np.int32) * 10 + np.arange(5) % 4
    np.testing.assert_array_equal(np.asarray(out), expected)
    img.set(ph.Buffer(a))
    k.set(10)
    check(f, [5, 3], [expected])
    with pytest.raises(TypeError, match="takes 2 inputs and 1 outputs"):
        call(a, out)


def test_invalidate_cache_and_compile_to_module():
    x = ph.Var("x")
    f = ph.Func("f_inval")
    f[x] = x * x
    p = ph.Pipeline(f)
    p.compile_jit()
    p.invalidate_cache()
    p.compile_jit()
    np.testing.assert_array_equal(np.asarray(p.realize([5])), np.arange(5) ** 2)
    m = p.compile_to_module(p.infer_arguments(), "square")
    assert m.name() == "square" and "f_inval" in str(m)
    with pytest.raises(NotImplementedError, match="ahead-of-time"):
        p.compile_to_object("square.o", [], "square")


def test_gpu_schedule_is_refused_when_compiled_and_targets_name_gpus():
    x, y, xo, yo, xi, yi = ph.vars("x y xo yo xi yi")
    blur = ph.Func("blur_gpu")
    blur[x, y] = x + y
    assert blur.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 8, 8) is blur
    t = ph.get_host_target()
    assert t.os == ph.TargetOS.Linux and not t.has_gpu_feature()
    g = t.with_feature(ph.TargetFeature.OpenCL)
    assert g.has_gpu_feature() and g.has_feature(ph.TargetFeature.OpenCL)
    assert not ph.host_supports_target_device(g) and ph.host_supports_target_device(t)
    assert "opencl" in str(g).split("-")      # features in name order, as Halide
    with pytest.raises(NotImplementedError, match="Func blur_gpu is scheduled with gpu_tile"):
        blur.realize([16, 16])
