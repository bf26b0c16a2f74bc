"""`pyhalide bench --suite 7` (pyhalide/bench/suite7_apps.py): Halide's app
generators, run unedited under pyhalide and Halide 21. Here a small
generator of the same shape stands in for Halide's blur app (the real ones
live outside this repository)."""
import numpy as np
import pytest

from pyhalide.bench.protocol import run_suite

GENERATOR = '''
import halide as hl


@hl.generator()
class blur:
    input_buf = hl.InputBuffer(hl.UInt(16), 2)
    blur_y = hl.OutputBuffer(hl.UInt(16), 2)

    def generate(self):
        g = self
        x, y, xi, yi = hl.vars("x y xi yi")
        clamped = hl.BoundaryConditions.repeat_edge(g.input_buf)
        blur_x = hl.Func("blur_x")
        blur_x[x, y] = (clamped[x, y] + clamped[x + 1, y] + clamped[x + 2, y]) // 3
        g.blur_y[x, y] = (blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) // 3
        vec = g.natural_vector_size(g.input_buf.type())
        g.blur_y.split(y, y, yi, 8).parallel(y).vectorize(x, vec)
        blur_x.store_at(g.blur_y, y).compute_at(g.blur_y, x).vectorize(x, vec)
'''


def _blur_numpy(img):
    h, w = img.shape
    p = np.pad(img.astype(np.int64), ((0, 2), (0, 2)), mode="edge")
    bx = (p[:, 0:w] + p[:, 1:w + 1] + p[:, 2:w + 2]) // 3
    return ((bx[0:h] + bx[1:h + 1] + bx[2:h + 2]) // 3).astype(np.uint16)


def test_generator_runs_under_both_and_matches_numpy(tmp_path, monkeypatch):
    pytest.importorskip("halide")
    (tmp_path / "blur_generator.py").write_text(GENERATOR)
    monkeypatch.setenv("PYHALIDE_HALIDE_APPS", str(tmp_path))
    from pyhalide.bench import suite7_apps as s7
    data = s7.BENCHMARKS["blur"].make_data({"width": 70, "height": 45})
    truth = s7.BENCHMARKS["blur"].truth(data)
    np.testing.assert_array_equal(truth, _blur_numpy(data["args"][0]))
    res = run_suite("suite7_apps", quick=True, benches=["blur"], rounds=1, calls=1)
    cells = res.benches[0].cells
    assert {k: c.status for k, c in cells.items()} == \
        {"ph": "ok", "hl": "ok", "hl_strict": "ok"}, {k: c.note for k, c in cells.items()}
    rows = s7.targets(res)
    assert [r.name for r in rows][:2] == ["pyhalide / Halide 21",
                                          "pyhalide / Halide 21 strict_float"]


def test_missing_generators_are_not_applicable(tmp_path, monkeypatch):
    monkeypatch.setenv("PYHALIDE_HALIDE_APPS", str(tmp_path / "none"))
    res = run_suite("suite7_apps", quick=True, benches=["interpolate"], rounds=1, calls=1,
                    columns=["ph"])
    cell = res.benches[0].cells["ph"]
    assert cell.status == "n/a" and "not found" in cell.note, cell.note
