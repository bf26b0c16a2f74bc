"""Func.realize(Buffer) / Pipeline.realize([Buffers]) repeated takes the
recorded call on given Buffers (pyhalide/realize_fast.py, realize_given);
the full path is taken again, raising its own error, for an output of
another geometry or type, with a min, not writeable, misaligned or sharing
memory with an input; Params are read at each call. Results against NumPy,
errors against a pipeline without a record."""
import re

import numpy as np
import pytest

import pyhalide as ph
from tests.core import test_realize_fast_path as fast_path

full_calls = fast_path.full_calls      # the fixture counting full-path realizes


def _blur(img, k):
    """g[x, y] = (img[x, y] + img[x + 1, y]) * k + img[x, y + 1], through a
    compute_root stage f."""
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("f")
    f[x, y] = img[x, y] + img[x + 1, y]
    g = ph.Func("g")
    g[x, y] = f[x, y] * k + img[x, y + 1]
    f.compute_root()
    return g


def _want(a, k, h, w):
    a = a.astype(np.int64)
    return ((a[:h, :w] + a[:h, 1:w + 1]) * k + a[1:h + 1, :w]).astype(np.int32)


def _arr(h, w, seed=0):
    return np.random.default_rng(seed).integers(-1000, 1000, (h, w), dtype=np.int32)


def _setup(k=3):
    a = _arr(9, 12)
    img = ph.ImageParam(ph.Int(32), 2, "img")
    img.set(ph.Buffer(a))
    kp = ph.Param(ph.Int(32), "k", k)
    g = _blur(img, kp)
    out = np.zeros((8, 11), np.int32)
    buf = ph.Buffer(out)
    assert g.realize(buf) is buf and g.realize(buf) is buf     # the second records
    assert np.array_equal(out, _want(a, k, 8, 11))
    return a, img, kp, g, out, buf


def _error(e) -> tuple:
    """(type, message) of a raised error, without unique-name suffixes and
    the user's source line (which differ between the two calls compared)."""
    return e.type, re.sub(r"\$\d+", "", str(e.value).split("\n  at ")[0])


def _error_without_record(make, call):
    """_error of call(g) on a fresh pipeline made by make()."""
    with pytest.raises(Exception) as e:
        call(make())
    return _error(e)


def test_a_repeated_realize_of_a_buffer_takes_the_record(full_calls):
    a, img, kp, g, out, buf = _setup()
    n = full_calls[0]
    for seed in range(3):
        a[...] = _arr(9, 12, seed + 1)                    # new values, same array
        out[...] = 0
        assert g.realize(buf) is buf
        assert np.array_equal(out, _want(a, 3, 8, 11))
    assert full_calls[0] == n
    b = _arr(9, 12, 7)                                     # another input, same geometry
    img.set(ph.Buffer(b))
    out2 = np.zeros((8, 11), np.int32)                     # another output, same geometry
    assert g.realize(ph.Buffer(out2)).numpy() is out2
    assert np.array_equal(out2, _want(b, 3, 8, 11))
    kp.set(-2)                                             # a param: read at each call
    g.realize(buf)
    assert np.array_equal(out, _want(b, -2, 8, 11))
    assert full_calls[0] == n


def test_another_geometry_or_min_takes_the_full_path(full_calls):
    a, img, kp, g, out, buf = _setup()
    n = full_calls[0]
    small = np.zeros((4, 5), np.int32)
    g.realize(ph.Buffer(small))                            # another shape
    assert np.array_equal(small, _want(a, 3, 4, 5))
    big = np.zeros((8, 22), np.int32)[:, ::2]              # same shape, other strides
    g.realize(ph.Buffer(big))
    assert np.array_equal(big, _want(a, 3, 8, 11))
    assert full_calls[0] == n + 2
    shifted = ph.Buffer(np.zeros((7, 10), np.int32))
    shifted.set_min([1, 1])                                # a min: Halide's shifted output
    g.realize(shifted)
    assert np.array_equal(shifted.numpy(), _want(a[1:, 1:], 3, 7, 10))
    g.realize(buf)                                         # back: correct again
    assert np.array_equal(out, _want(a, 3, 8, 11))


def test_a_smaller_input_raises_as_before():
    a, img, kp, g, out, buf = _setup()
    img.set(ph.Buffer(_arr(8, 12)))          # the kernel's bounds check (same strides)
    with pytest.raises(Exception) as e:
        g.realize(buf)

    def make():
        a2, img2, kp2, g2, out2, buf2 = _setup()
        img2.set(ph.Buffer(_arr(8, 12)))
        return g2
    assert _error(e) == _error_without_record(make, lambda f: f.realize(buf))


def test_an_output_that_is_not_writeable_or_aliases_an_input_raises():
    a, img, kp, g, out, buf = _setup()
    out.flags.writeable = False
    with pytest.raises(ValueError, match="not writeable"):
        g.realize(buf)
    out.flags.writeable = True
    alias = ph.Buffer(a[:8, :11])                          # the input's memory
    with pytest.raises(ValueError, match="shares memory"):
        g.realize(alias)
    inner = np.zeros((8, 11), np.int32)
    g.realize(ph.Buffer(inner))                            # distinct: fine
    assert np.array_equal(inner, _want(a, 3, 8, 11))


def test_a_misaligned_output_raises():
    a, img, kp, g, out, buf = _setup()
    raw = np.zeros(8 * 11 * 4 + 1, np.uint8)[1:].view(np.int32).reshape(8, 11)
    assert not raw.flags.aligned
    with pytest.raises(ValueError, match="aligned"):
        g.realize(ph.Buffer(raw))


def test_a_wrong_type_or_count_raises_as_before():
    a, img, kp, g, out, buf = _setup()
    wrong = ph.Buffer(np.zeros((8, 11), np.float32))
    with pytest.raises(Exception) as e:
        g.realize(wrong)
    assert _error(e) == _error_without_record(
        lambda: _blur(img, kp), lambda f: f.realize(wrong))
    with pytest.raises(Exception) as e:
        g.realize([buf, ph.Buffer(np.zeros((8, 11), np.int32))])
    assert _error(e) == _error_without_record(
        lambda: _blur(img, kp),
        lambda f: f.realize([buf, ph.Buffer(np.zeros((8, 11), np.int32))]))


def test_a_redefined_func_is_compiled_again():
    a, img, kp, g, out, buf = _setup()
    x, y = ph.Var("x"), ph.Var("y")
    g[x, y] = img[x, y] - 5
    g.realize(buf)
    assert np.array_equal(out, a[:8, :11] - 5)
    g.realize(buf)
    assert np.array_equal(out, a[:8, :11] - 5)


def test_a_pipeline_of_two_outputs_returns_the_given_buffers(full_calls):
    x, y = ph.Var("x"), ph.Var("y")
    a = _arr(6, 7)
    img = ph.ImageParam(ph.Int(32), 2, "img")
    img.set(a)
    f, h = ph.Func("f2"), ph.Func("h2")
    f[x, y] = img[x, y] * 2
    h[x, y] = img[x, y] + 1
    p = ph.Pipeline([f, h])
    o1, o2 = np.zeros((6, 7), np.int32), np.zeros((6, 7), np.int32)
    bufs = (ph.Buffer(o1), ph.Buffer(o2))
    for _ in range(2):
        got = p.realize(bufs)
        assert type(got) is list and got[0] is bufs[0] and got[1] is bufs[1]
    n = full_calls[0]
    a[...] = _arr(6, 7, 5)
    got = p.realize(list(bufs))
    assert full_calls[0] == n and got[0] is bufs[0] and got[1] is bufs[1]
    assert np.array_equal(o1, a * 2) and np.array_equal(o2, a + 1)
    with pytest.raises(ValueError, match="shares memory"):
        p.realize([bufs[0], bufs[0]])                      # one output twice
    assert full_calls[0] == n + 1


def test_an_alias_of_the_recorded_geometry_is_caught_after_the_entry_is_built(full_calls):
    a = _arr(9, 12)
    img = ph.ImageParam(ph.Int(32), 2, "img")
    img.set(ph.Buffer(a))
    g = _blur(img, 3)
    outs = [np.zeros((9, 12), np.int32)[:8, :11] for _ in range(2)]   # strides of a[:8, :11]
    for k in range(4):                        # two Buffers in turn: records, entry, reuse
        out = outs[k % 2]
        out[...] = 0
        g.realize(ph.Buffer(out))
        assert np.array_equal(out, _want(a, 3, 8, 11))
    n = full_calls[0]
    with pytest.raises(ValueError, match="shares memory"):
        g.realize(ph.Buffer(a[:8, :11]))      # the input itself, the recorded geometry
    assert full_calls[0] == n + 1
    assert np.array_equal(a, _arr(9, 12))     # nothing written
    outs[0].flags.writeable = False
    with pytest.raises(ValueError, match="not writeable"):
        g.realize(ph.Buffer(outs[0]))


def test_a_target_after_the_buffer_is_ignored_as_on_the_full_path(full_calls):
    a, img, kp, g, out, buf = _setup()
    target = ph.get_jit_target_from_environment()
    n = full_calls[0]
    a[...] = _arr(9, 12, 4)
    assert g.realize(buf, target) is buf
    assert np.array_equal(out, _want(a, 3, 8, 11)) and full_calls[0] == n


def test_arrays_given_take_the_full_path_without_a_record_per_call():
    a = _arr(9, 12)
    img = ph.ImageParam(ph.Int(32), 2, "img")
    img.set(a)
    p = ph.Pipeline([_blur(img, 2)])
    out = np.zeros((8, 11), np.int32)
    for k in range(3):
        a[0, 0] = k
        got = p.realize([out])
        assert type(got) is ph.Buffer and got.numpy() is out
        assert np.array_equal(out, _want(a, 2, 8, 11))
    assert p.__dict__.get("_fast") is None      # (a record would be made and dropped each call)
