"""Halide Generators as JIT programs: @ph.generator classes built in a
GeneratorContext and run through compile_to_callable (Halide's blur app),
compared with NumPy."""
import numpy as np
import pytest

import pyhalide as ph


@ph.generator()
class small_blur:
    factor = ph.GeneratorParam(3)
    input_buf = ph.InputBuffer(ph.UInt(16), 2)
    offset = ph.InputScalar(ph.UInt(16))
    blur_y = ph.OutputBuffer(ph.UInt(16), 2)

    def generate(self):
        g = self
        x, y, yi = ph.vars("x y yi")
        clamped = ph.BoundaryConditions.repeat_edge(g.input_buf)
        blur_x = ph.Func("blur_x")
        blur_x[x, y] = (clamped[x, y] + clamped[x + 1, y] + clamped[x + 2, y]) // g.factor
        g.blur_y[x, y] = (blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) // g.factor \
            + g.offset
        vector = g.natural_vector_size(g.input_buf.type())
        g.blur_y.split(y, y, yi, 8).parallel(y).vectorize(x, vector)
        blur_x.store_at(g.blur_y, y).compute_at(g.blur_y, x).vectorize(x, vector)


def _expected(a, factor, offset):
    h, w = a.shape
    c = a.astype(np.int64)[np.clip(np.arange(h + 2), 0, h - 1)][:, np.clip(np.arange(w + 2), 0, w - 1)]
    bx = (c[:, :-2] + c[:, 1:-1] + c[:, 2:]) // factor
    return ((bx[:-2] + bx[1:-1] + bx[2:]) // factor + offset).astype(np.uint16)


@pytest.mark.parametrize("params", [{}, {"factor": "2"}])
def test_generator_compile_to_callable(params):
    a = np.random.default_rng(3).integers(0, 4000, (37, 45), dtype=np.uint16)
    out = np.zeros_like(a)
    with ph.GeneratorContext(ph.get_jit_target_from_environment()):
        fn = small_blur(params).compile_to_callable()
    fn(a, 5, out)
    np.testing.assert_array_equal(out, _expected(a, int(params.get("factor", 3)), 5))


def test_generator_errors():
    with pytest.raises(ph.CompileError, match="GeneratorContext"):
        small_blur()
    with ph.GeneratorContext():
        with pytest.raises(ph.CompileError, match="no GeneratorParam"):
            small_blur({"nope": 1})
    with pytest.raises(NotImplementedError, match="ahead of time"):
        ph.main()


def test_alias_then_generator_as_the_apps_write_them():
    @ph.alias(twice={"factor": 2})
    @ph.generator()
    class aliased:
        factor = ph.GeneratorParam(1)

    assert callable(ph.generator) and callable(ph.alias)
    with ph.GeneratorContext():
        assert aliased().factor == 1
