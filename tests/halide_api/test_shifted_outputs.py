"""Output Buffers whose min is not 0, through Pipeline.realize and a
Callable (Halide's identity app: `array_hl.set_min([-size])`): each output
holds the Func's values at the Buffer's own coordinates (NumPy computes them)."""
import numpy as np

import pyhalide as hl


def _shifted(shape, mins, dtype=np.int32):
    a = np.zeros(shape, dtype)
    b = hl.Buffer(a)
    b.set_min(mins)
    return a, b


def test_pipeline_realize_into_a_shifted_buffer():
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    f[x, y] = x * 10 + y
    a, b = _shifted((3, 4), [-5, 2])          # x in [-5, -1], y in [2, 4]
    hl.Pipeline(f).realize(b)
    ys, xs = np.mgrid[2:5, -5:-1]
    np.testing.assert_array_equal(a, xs * 10 + ys)
    a2, b2 = _shifted((3, 4), [7, -1])
    hl.Pipeline([f]).realize([b2])
    ys, xs = np.mgrid[-1:2, 7:11]
    np.testing.assert_array_equal(a2, xs * 10 + ys)


def test_pipeline_of_two_outputs_and_a_tuple():
    x = hl.Var("x")
    f, g = hl.Func("f"), hl.Func("g")
    f[x] = x * x
    g[x] = (x + 1, hl.f32(x) / 2)
    af, bf = _shifted((6,), [-3])
    ag0, bg0 = _shifted((6,), [-3])
    ag1, bg1 = _shifted((6,), [-3], np.float32)
    hl.Pipeline([f, g]).realize([bf, bg0, bg1])
    xs = np.arange(-3, 3)
    np.testing.assert_array_equal(af, xs * xs)
    np.testing.assert_array_equal(ag0, xs + 1)
    np.testing.assert_array_equal(ag1, xs.astype(np.float32) / 2)


def test_callable_of_a_generator_into_a_shifted_buffer():
    @hl.generator(name="shifted_identity")
    class Identity:
        output = hl.OutputBuffer(hl.Int(32), 1)

        def generate(self):
            x = hl.Var("x")
            self.output[x] = x

    with hl.GeneratorContext(hl.get_jit_target_from_environment()):
        fn = Identity({}).compile_to_callable()
    plain = np.empty(100, np.int32)
    fn(plain)
    np.testing.assert_array_equal(plain, np.arange(100))
    a, b = _shifted((100,), [-100])
    fn(b)
    np.testing.assert_array_equal(a, np.arange(-100, 0))
    fn(plain)                                  # and unshifted again
    np.testing.assert_array_equal(plain, np.arange(100))


def test_compile_to_callable_with_an_input_into_a_shifted_buffer():
    x = hl.Var("x")
    im = hl.ImageParam(hl.Int(32), 1, "im")
    f = hl.Func("f")
    f[x] = im[x] * 2 + x
    p = hl.Pipeline(f)
    fn = p.compile_to_callable(p.infer_arguments())
    src = np.arange(20, dtype=np.int32) * 3
    inb = hl.Buffer(src)
    inb.set_min([-10])
    a, b = _shifted((8,), [-4])
    fn(inb, b)
    xs = np.arange(-4, 4)
    np.testing.assert_array_equal(a, src[xs + 10] * 2 + xs)
