"""Suite 2's conv5x5 keeps the written float order: pyhalide equals NumPy's
left-to-right float32 rounding bit for bit at every lane count the bench
sweeps, and so does Halide with strict_float (the bench's like-for-like
column), where Halide's default fast-math result may differ in the last bit."""
import importlib.util

import numpy as np
import pytest

from pyhalide.bench import suite2
from pyhalide.bench.protocol import Unavailable

HAVE_HALIDE = importlib.util.find_spec("halide") is not None


def _data(side_log2=6):
    d = suite2._data_conv({"side_log2": side_log2})
    return d, suite2.conv_numpy(d["img"])


@pytest.mark.parametrize("lanes", [16, 32, 64])
def test_pyhalide_conv5x5_is_numpys_rounding(lanes):
    d, truth = _data()
    run = suite2.build("conv5x5", "ph", d, None, {"lanes": lanes, "tile_x": 64, "tile_y": 8})
    run.compile()
    got = run.result(run.run())
    assert got.dtype == np.float32 and np.array_equal(got, truth)


def test_strict_halide_column_only_for_float_pipelines():
    d, truth = _data()
    if not HAVE_HALIDE:
        with pytest.raises(Unavailable, match="Halide not installed"):
            suite2.build("conv5x5", "hl_strict", d, None)
        return
    run = suite2.build("conv5x5", "hl_strict", d, None,
                       {"lanes": 16, "tile_x": 32, "tile_y": 8})
    run.compile()
    assert np.array_equal(run.result(run.run()), truth)
    blur = suite2._data_blur({"side_log2": 6})
    with pytest.raises(Unavailable, match="strict_float changes nothing"):
        suite2.build("blur", "hl_strict", blur, None)
