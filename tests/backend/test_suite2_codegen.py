"""Suite 2's tiled two-stage schedule (the first stage computed per tile of
the second, both vectorized): the ShiftInwards test "is this row of the
intermediate at least one vector wide" runs once per row, outside the
vectorized row loop, not once per vector inside it (a branch, a stack reload
and a compare per vector in the loop that computes the intermediate). The
results stay exact for images wider and narrower than a tile and a vector."""
import re

import numpy as np
import pytest

import pyhalide as ph


def _conv(img, tile_x, tile_y, lanes):
    inp = ph.Buffer(img, "input")
    x, y, xi, yi = ph.Var("x"), ph.Var("y"), ph.Var("xi"), ph.Var("yi")
    cx, cy = ph.Func("cx"), ph.Func("cy")
    cx[x, y] = 0.25 * inp[x, y] + 0.5 * inp[x + 1, y] + 0.25 * inp[x + 2, y]
    cy[x, y] = 0.25 * cx[x, y] + 0.5 * cx[x, y + 1] + 0.25 * cx[x, y + 2]
    cy.tile(x, y, xi, yi, tile_x, tile_y).vectorize(xi, lanes).parallel(y)
    cx.compute_at(cy, x).vectorize(x, lanes)
    return cy


def _numpy(a):
    w = np.float32(0.25), np.float32(0.5), np.float32(0.25)
    bx = w[0] * a[:, :-2] + w[1] * a[:, 1:-1] + w[2] * a[:, 2:]
    return w[0] * bx[:-2] + w[1] * bx[1:-1] + w[2] * bx[2:]


def test_intermediate_row_loop_has_no_per_vector_partition_test():
    img = np.zeros((70, 70), np.float32)
    text = str(ph.Pipeline([_conv(img, 32, 8, 8)]).lower("final"))
    # the Func is cx, or cx$<n> where the process made a Func named cx before
    name = re.search(r"produce (cx(?:\$\d+)?) ", text).group(1)
    row_loop = rf"\s*for \({re.escape(name)}\.s0\.x\$1,"
    wide = f"if (({name}.r0.extent >= 8)) {{"
    lines = text.splitlines()
    loops = [k for k, ln in enumerate(lines) if re.match(row_loop, ln)]
    assert loops, text
    for k in loops:
        assert not lines[k + 1].strip().startswith(wide[:-2]), lines[k:k + 3]
    tests = [k for k, ln in enumerate(lines) if ln.strip() == wide]
    assert tests and all(re.match(row_loop, lines[k + 1]) for k in tests)


@pytest.mark.parametrize("w,h", [(64, 64), (67, 45), (37, 9), (5, 3), (9, 20)])
def test_results_exact_wide_and_narrow(w, h):
    img = np.random.default_rng(w * 100 + h).random((h + 2, w + 2), dtype=np.float32)
    out = np.empty((h, w), np.float32)
    _conv(img, 32, 8, 8).realize(ph.Buffer(out))
    assert np.array_equal(out, _numpy(img))
