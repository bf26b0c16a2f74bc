"""Inputs with mins (Buffer.set_min) shift only the reads of the pipelines that
read them: an input with mins alive elsewhere in the process (or kept by the
graph cache) sent every realize of every pipeline through run_shifted, which
records no fast call, so no repeated realize took its fast path (session 19)."""
import numpy as np

import pyhalide as ph


def test_an_input_with_mins_elsewhere_leaves_other_pipelines_fast():
    x, y = ph.Var("x"), ph.Var("y")
    base = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = ph.Buffer(base)
    b.set_min([1, 1])
    im = ph.ImageParam(ph.Int(32), 2, "shifted_elsewhere")
    im.set(b)
    g = ph.Func("unrelated")
    g[x, y] = x + y
    for _ in range(3):
        out = g.realize([3, 2])
    assert "_fast" in g._solo_pipeline.__dict__
    np.testing.assert_array_equal(np.asarray(out), np.add.outer(np.arange(2), np.arange(3)))
    # the pipeline that reads the shifted input still reads its own domain
    h = ph.Func("reads_it")
    h[x, y] = im[x + 1, y + 1] * 2
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(h.realize([4, 3])), base * 2)
    b.set_min([0, 0])           # the mins change: the recorded call is not reused
    np.testing.assert_array_equal(np.asarray(h.realize([3, 2])), base[1:, 1:] * 2)
