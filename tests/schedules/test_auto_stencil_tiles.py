"""The automatic scheduler's tiles for two-dimensional stencil chains
(autoschedule/fusion.py): the consumer cut into tiles, the producer computed
per tile with its halo. With the tile size lowered, small images with tails
in both dimensions get tiles; every result equals the plain loops'."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.autoschedule import fusion, plan
from tests.frontend.test_frontend_reductions import blur_separable


@pytest.fixture
def small_tiles(monkeypatch):
    monkeypatch.setattr(plan, "MIN_PARALLEL", 8)
    monkeypatch.setattr(fusion, "TILE_BYTES", 1 << 10)
    monkeypatch.setattr(fusion, "TILE_ROWS", 4)


blur = blur_separable.py_func         # the two-stage uint16 box blur's plain loops


def sharpen(img):
    H, W = img.shape
    cx = np.empty((H, W - 4), np.float32)
    for y in range(H):
        for x in range(W - 4):
            cx[y, x] = img[y, x] - np.float32(0.5) * img[y, x + 2] + img[y, x + 4]
    out = np.empty((H - 4, W - 4), np.float32)
    for y in range(H - 4):
        for x in range(W - 4):
            out[y, x] = cx[y, x] * np.float32(0.25) + cx[y + 2, x] - cx[y + 4, x]
    return out


@pytest.mark.parametrize("fn, dtype", [(blur, np.uint16), (sharpen, np.float32)])
def test_tiled_stencils_equal_the_loops(small_tiles, fn, dtype):
    p = ph.pipeline(fn, schedule="auto")
    rng = np.random.default_rng(7)
    for shape in ((37, 777), (70, 611)):
        if dtype == np.uint16:
            img = rng.integers(0, 2 ** 16, shape, dtype=np.uint16)
        else:
            img = rng.standard_normal(shape).astype(np.float32)
        got = p(img)
        with np.errstate(over="ignore"):
            want = fn(img)
        assert got.dtype == want.dtype and np.array_equal(got, want)
        src = p.schedule_source()
        assert ".tile(" in src and "compute_at(" in src and "not applied" not in src, src
