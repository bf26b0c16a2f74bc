"""The kernel fingerprint does not depend on the names of Funcs, Vars and
RVars (pyhalide/graph.py, _Names): a @pipeline built again from the same
function (its Funcs named `s$1`, `s$2`, ...) or the same Func-API algorithm
built twice gets the kernel compiled for the first, renamed to its own names.
Pipelines that differ in anything else (a constant, which argument a name
binds, a Param's role) never share one. Every result is compared with plain
Python or NumPy."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import realize


def _kernel(p):
    """The kernel the last call of @pipeline function p ran."""
    graph, key, plan = p._last.pipeline()._current()
    (kernel,) = plan.kernels.values()
    return kernel


def weighted(a, k):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * k
    return s


def twice(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * 2.0
    return out


def thrice(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * 3.0
    return out


def a_minus_b(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] - b[i]
    return out


def b_minus_a(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = b[i] - a[i]
    return out


def scale_then_shift(a, s, t):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * s + t
    return out


def shift_then_scale(a, s, t):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * t + s
    return out


def gather(a, idx):
    out = np.empty(idx.shape[0])
    for i in range(idx.shape[0]):
        out[i] = a[idx[i]]
    return out


def test_a_rebuilt_pipeline_reuses_the_kernel():
    a = np.linspace(-2, 3, 50)
    first = ph.pipeline(weighted)
    assert first(a, 1.5) == weighted(a, 1.5)
    kernels = len(realize._KERNELS._d)
    again = ph.pipeline(weighted)
    assert again(a, -0.5) == weighted(a, -0.5)
    assert again(a, -0.5) == weighted(a, -0.5)
    assert len(realize._KERNELS._d) == kernels, "the rebuilt pipeline compiled a new kernel"
    funcs_first = {f.name() for _, f, _ in first._last.builder.funcs}
    funcs_again = {f.name() for _, f, _ in again._last.builder.funcs}
    assert funcs_first != funcs_again          # the names differ, the code is shared
    assert _kernel(again).address == _kernel(first).address


def test_pipelines_differing_in_a_constant_do_not_share():
    a = np.arange(7.0)
    p, q = ph.pipeline(twice), ph.pipeline(thrice)
    for _ in range(2):
        np.testing.assert_array_equal(p(a), a * 2.0)
        np.testing.assert_array_equal(q(a), a * 3.0)
    assert _kernel(p).address != _kernel(q).address


def test_which_argument_a_name_binds_is_kept():
    a, b = np.arange(5.0), np.arange(5.0) * 10
    p, q = ph.pipeline(a_minus_b), ph.pipeline(b_minus_a)
    for _ in range(2):
        np.testing.assert_array_equal(p(a, b), a - b)
        np.testing.assert_array_equal(q(a, b), b - a)
    assert _kernel(p).address != _kernel(q).address


def test_which_param_a_name_binds_is_kept():
    a = np.arange(5.0)
    p, q = ph.pipeline(scale_then_shift), ph.pipeline(shift_then_scale)
    for _ in range(2):
        np.testing.assert_array_equal(p(a, 2.0, 7.0), a * 2.0 + 7.0)
        np.testing.assert_array_equal(q(a, 2.0, 7.0), a * 7.0 + 2.0)
    assert _kernel(p).address != _kernel(q).address


def test_func_api_pipelines_built_twice_share_and_stay_correct():
    img = np.arange(24, dtype=np.int32).reshape(4, 6)

    def build(c):
        inp = ph.Buffer(img, "inp")
        x, y = ph.Var("x"), ph.Var("y")
        f = ph.Func("f")
        f[x, y] = inp[x, y] * c + 1
        g = ph.Func("g")
        g[x, y] = f[x, y] + f[x, y]
        return g

    out1 = np.asarray(build(3).realize([6, 4]))
    kernels = len(realize._KERNELS._d)
    out2 = np.asarray(build(3).realize([6, 4]))          # Funcs f$1, g$1
    assert len(realize._KERNELS._d) == kernels
    out3 = np.asarray(build(5).realize([6, 4]))
    np.testing.assert_array_equal(out1, (img * 3 + 1) * 2)
    np.testing.assert_array_equal(out2, (img * 3 + 1) * 2)
    np.testing.assert_array_equal(out3, (img * 5 + 1) * 2)


def _difference(first: str, second: str, s_name: str, t_name: str):
    """out = first - second, scaled by Param s and shifted by Param t (one
    source line for every set of names)."""
    first_img = ph.ImageParam(ph.Float(64), 1, first)
    second_img = ph.ImageParam(ph.Float(64), 1, second)
    s, t = ph.Param(ph.Float(64), s_name), ph.Param(ph.Float(64), t_name)
    x = ph.Var("x")
    out = ph.Func("diff")
    out[x] = (first_img[x] - second_img[x]) * s + t
    return out, first_img, second_img, s, t


@pytest.mark.parametrize("swap", ["images", "params"])
def test_swapped_input_and_param_names_never_share(swap):
    a, b = np.arange(6.0), np.arange(6.0) ** 2
    names = [("in_a", "in_b", "p_s", "p_t"),
             ("in_b", "in_a", "p_s", "p_t") if swap == "images" else ("in_a", "in_b", "p_t", "p_s")]
    for first, second, s_name, t_name in names:
        out, fi, si, s, t = _difference(first, second, s_name, t_name)
        fi.set(ph.Buffer(a))
        si.set(ph.Buffer(b))
        s.set(2.0)
        t.set(-1.0)
        np.testing.assert_array_equal(np.asarray(out.realize([6])), (a - b) * 2.0 - 1.0)


def test_errors_of_a_shared_kernel_name_the_callers_funcs():
    a = np.arange(10.0)
    bad = np.array([0, 12], dtype=np.int64)
    first = ph.pipeline(gather)
    with pytest.raises(IndexError) as e1:
        first(a, bad)
    again = ph.pipeline(gather)
    with pytest.raises(IndexError) as e2:
        again(a, bad)
    assert str(e1.value) == str(e2.value)


def test_func_api_error_messages_use_the_rebuilt_names():
    inp = ph.ImageParam(ph.Float(64), 1, "inp_err")
    x = ph.Var("x")

    def build():
        f = ph.Func("clamped")
        f[x] = inp[x + 3]
        return f
    f1, f2 = build(), build()
    inp.set(ph.Buffer(np.zeros(4)))
    with pytest.raises(ValueError, match="is read over") as e1:
        f1.realize([4])
    kernels = len(realize._KERNELS._d)
    with pytest.raises(ValueError, match="is read over") as e2:
        f2.realize([4])
    assert len(realize._KERNELS._d) == kernels         # f1's kernel, renamed
    assert f1.name() != f2.name()
    assert str(e1.value).replace(f1.name(), "F") == str(e2.value).replace(f2.name(), "F")


def test_a_disk_cache_entry_is_renamed_for_the_loading_graph(tmp_path, capsys):
    from pyhalide.ir.config import override
    from pyhalide.lowering import jit
    inp = ph.ImageParam(ph.Float(64), 1, "inp_disk")
    x = ph.Var("x")

    def build():
        f = ph.Func("shifted_disk")
        f[x] = inp[x + 2] * 2.0
        return f
    inp.set(ph.Buffer(np.arange(6.0)))
    with override(cache_dir=str(tmp_path), debug=1):
        f1 = build()
        np.testing.assert_array_equal(np.asarray(f1.realize([4])), np.arange(2.0, 6.0) * 2.0)
        realize._KERNELS.clear()
        realize._GRAPHS.clear()
        jit.clear_memory_cache()
        capsys.readouterr()
        f2 = build()
        np.testing.assert_array_equal(np.asarray(f2.realize([4])), np.arange(2.0, 6.0) * 2.0)
        assert "kernel cache hit" in capsys.readouterr().err
        with pytest.raises(ValueError, match="is read over") as e:
            f2.realize([5])
    assert f"Func {f2.name()} " in str(e.value) and f1.name() != f2.name()


def _affine(s_name: str, t_name: str, img_name=None):
    """out = a * s + t with a Param named s_name, one named t_name (one source
    line for every set of names)."""
    a = ph.ImageParam(ph.Float(64), 1, img_name) if img_name else ph.ImageParam(ph.Float(64), 1)
    s, t = ph.Param(ph.Float(64), s_name), ph.Param(ph.Float(64), t_name)
    x = ph.Var("x")
    out = ph.Func("affine")
    out[x] = a[x] * s + t
    return out, a, s, t


def test_params_whose_names_sort_otherwise_never_share():
    data = np.arange(5.0)
    kernels = []
    # p9/p10 sort as (t, s); p1/p2 and p3/p4 as (s, t): only the last two share
    for s_name, t_name in (("p9", "p10"), ("p1", "p2"), ("p3", "p4")):
        out, a, s, t = _affine(s_name, t_name, "affine_in")
        a.set(ph.Buffer(data))
        s.set(3.0)
        t.set(-2.0)
        before = len(realize._KERNELS._d)
        np.testing.assert_array_equal(np.asarray(out.realize([5])), data * 3.0 - 2.0)
        kernels.append(len(realize._KERNELS._d) - before)
    assert kernels == [1, 1, 0]


def test_unnamed_images_and_params_share_and_stay_correct():
    rng = np.random.default_rng(3)
    for k in range(3):
        out, a, s, t = _affine(f"unnamed_s{k}", f"unnamed_t{k}")
        data = rng.random(7)
        a.set(ph.Buffer(data))
        s.set(float(k) - 0.5)
        t.set(float(k))
        before = len(realize._KERNELS._d)
        np.testing.assert_array_equal(np.asarray(out.realize([7])), data * (k - 0.5) + k)
        assert k == 0 or len(realize._KERNELS._d) == before


def test_funcs_named_like_the_intrinsics_they_call_never_share():
    # an intermediate version renamed every string equal to a Func's name:
    # Func "exp" calling exp() got the kernel of Func "sqrt" calling sqrt()
    v = np.linspace(0.1, 3.0, 9).astype(np.float32)
    a = ph.Buffer(v, "intrinsic_in")
    x = ph.Var("x")
    for name, ref in (("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log), ("floor", np.floor)):
        f = ph.Func(name)
        f[x] = getattr(ph, name)(a[x])
        np.testing.assert_allclose(np.asarray(f.realize([9])), ref(v), rtol=1e-6)


SCALE = 2.0


def helper(v):
    return v + 1.0


def other_helper(v):
    return v - 1.0


def uses_globals(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = helper(a[i]) * SCALE
    return out


def test_a_rebuilt_pipeline_reads_the_globals_bound_now():
    global SCALE, helper
    a = np.arange(6.0)
    old_scale, old_helper = SCALE, helper
    try:
        for scale, fn in ((2.0, old_helper), (3.0, old_helper), (2.0, other_helper),
                          (2.0, old_helper)):
            SCALE, helper = scale, fn
            p = ph.pipeline(uses_globals)
            for _ in range(2):
                np.testing.assert_array_equal(p(a), uses_globals(a))
    finally:
        SCALE, helper = old_scale, old_helper
