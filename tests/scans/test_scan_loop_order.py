"""A scan along a dimension other than 0 (a column scan) runs f's dimension
0 innermost in every phase: along memory, the columns side by side, the
scan outside (innermost it strode across rows, 4.6x slower for the column
scan of a 4096x4096 integral image at 1 thread). A row scan keeps the scan
innermost. Results equal NumPy and the reference evaluator at 1, 2 and 3
threads."""
from __future__ import annotations

import re

import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.scan_util import check_scan, scan

RNG = np.random.default_rng(19)


def _columns(chunk, variant):
    img = ph.ImageParam(ph.Int(32), 2, "img")
    x, y = ph.Var("x"), ph.Var("y")
    cols = ph.Func("cols")
    cols[x, y] = img[x, y]
    ry = ph.RDom([(1, img.height() - 1)], "ry")
    cols[x, ry.x] = cols[x, ry.x - 1] + cols[x, ry.x]
    if chunk is not None:
        scan(cols.update(0), ry.x, (chunk, variant))
    return cols, [img]


def _rows(chunk):
    img = ph.ImageParam(ph.Int(32), 2, "img")
    x, y = ph.Var("x"), ph.Var("y")
    rows = ph.Func("rows")
    rows[x, y] = img[x, y]
    rx = ph.RDom([(1, img.width() - 1)], "rx")
    rows[rx.x, y] = rows[rx.x - 1, y] + rows[rx.x, y]
    if chunk is not None:
        scan(rows.update(0), rx.x, chunk)
    return rows, [img]


def _stmt(f, tmp_path) -> str:
    path = tmp_path / "stmt.txt"
    f.compile_to_lowered_stmt(str(path))
    return path.read_text()


def _innermost_loops(stmt: str) -> set:
    """The variables of the loops with no loop inside them."""
    out, lines = set(), stmt.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\s*(?:parallel )?for \(([^,]+),", line)
        if not m:
            continue
        depth, j = 1, i + 1
        while j < len(lines) and depth:
            depth += lines[j].count("{") - lines[j].count("}")
            if depth and re.match(r"\s*(?:parallel |vectorized )?for \(", lines[j]):
                break
            j += 1
        else:
            out.add(m.group(1))
            continue
        if not depth:
            out.add(m.group(1))
    return out


@pytest.mark.parametrize("variant", ["rescan", "apply"])
def test_column_scan_runs_its_columns_innermost(tmp_path, variant):
    cols, (img,) = _columns(4, variant)
    img.set(ph.Buffer(np.zeros((8, 8), np.int32)))
    inner = _innermost_loops(_stmt(cols, tmp_path))
    scan_loops = {v for v in inner if v.startswith("cols")}
    assert scan_loops and all(v.endswith(".x") or ".copy." in v or "*" in v
                              for v in scan_loops), inner


def test_row_scan_keeps_the_scan_innermost(tmp_path):
    rows, (img,) = _rows(4)
    img.set(ph.Buffer(np.zeros((8, 8), np.int32)))
    inner = _innermost_loops(_stmt(rows, tmp_path))
    assert any(re.match(r"rows(\$\d+)?\.s1\.scan_i\d+$", v) for v in inner), inner


# the default run: chunks of 1 and 4 in both variants, 3 in rescan; 3 in apply with -m slow
@pytest.mark.parametrize("chunk, variant", [
    pytest.param(c, v, marks=[pytest.mark.slow] if (c, v) == (3, "apply") else [])
    for v in ("rescan", "apply") for c in (1, 3, 4)])
def test_column_scan_equals_numpy(chunk, variant):
    check_scan(lambda c: _columns(c, variant),
               lambda s: [RNG.integers(-1000, 1000, size=s).astype(np.int32)],
               [(0, 3), (1, 1), (8, 5), (13, 21)], chunk,
               expected=lambda a: np.cumsum(a, 0, dtype=np.int32))
