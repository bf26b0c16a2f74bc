"""A Func computed per tile of a tiled ShiftInwards consumer (suite 2's blur
and conv5x5 schedule): the test "the output holds at least one whole tile" is
made before the intermediate is sized, so in the copy for whole tiles the
intermediate has a constant size and a constant row stride (Halide's code,
whose tiles are never partial), and its loops have no shift-inward clamp
test. Outputs narrower or shorter than a tile take the general copy; every
result equals NumPy's."""
import re

import numpy as np
import pytest

import pyhalide as ph


def _blur(img, tile_x, tile_y, lanes):
    inp = ph.Buffer(img, "input")
    x, y, xi, yi = ph.Var("x"), ph.Var("y"), ph.Var("xi"), ph.Var("yi")
    bx, by = ph.Func("bx"), ph.Func("by")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    by.tile(x, y, xi, yi, tile_x, tile_y).vectorize(xi, lanes).parallel(y)
    bx.compute_at(by, x).vectorize(x, lanes)
    return by, bx


def _numpy(a):
    with np.errstate(over="ignore"):
        bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) // 3
        return (bx[:-2] + bx[1:-1] + bx[2:]) // 3


def test_whole_tile_copy_allocates_a_constant_tile():
    img = np.zeros((70, 130), np.uint16)
    by, bx = _blur(img, 64, 8, 16)
    name = bx.name()          # (unique in the process: another test may have a "bx")
    text = str(ph.Pipeline([by]).lower("final"))
    sizes = re.findall(r"allocate " + re.escape(name) + r"\[([^\]]*)\]", text)
    # one copy per outcome of the two tile tests; the whole-tile one is 64 x 10
    assert "uint16 * 64 * 10" in sizes, sizes
    whole = text[text.index(f"allocate {name}[uint16 * 64 * 10]"):]
    whole = whole[:whole.index(f"free {name}")]
    assert f"{name}.b0.extent" not in whole and f"{name}.r0.extent" not in whole, whole
    # the row loop of the intermediate runs over a constant count of vectors
    assert re.search(r"for \(" + re.escape(name) + r"\.s0\.x\$1, 0, 4\)", whole), whole


@pytest.mark.parametrize("w,h", [(128, 64), (131, 45), (64, 8), (70, 5), (20, 30), (5, 3),
                                 (63, 7), (1, 1)])
def test_results_exact_for_whole_and_partial_tiles(w, h):
    img = np.random.default_rng(w * 1000 + h).integers(0, 2**16, (h + 2, w + 2),
                                                        dtype=np.uint16)
    out = np.empty((h, w), np.uint16)
    _blur(img, 64, 8, 16)[0].realize(ph.Buffer(out))
    assert np.array_equal(out, _numpy(img))
