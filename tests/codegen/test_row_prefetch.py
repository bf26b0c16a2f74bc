"""lowering/row_prefetch: a serial loop that reads several rows of one buffer
side by side along their columns (the default schedule of `a.sum(axis=1)`:
8 rows' chunks interleaved) prefetches into L2 the same columns of the rows
one group further on (rows x the row stride ahead), when the buffer's rows
span more than LARGE_BYTES. Checked on the LLVM IR of hand-built loops (which
loads count as rows of a group) and on `a.sum(axis=1)` of arrays past that
size, views and reversed rows, against np.sum bit for bit."""
import re

import numpy as np
import pytest

from pyhalide import ir, pipeline
from pyhalide.lowering import row_prefetch
from pyhalide.lowering.codegen_llvm import codegen
from pyhalide.lowering.runtime import BufferArg
from tests.backend.backend_util import geom, i32, var

F64 = ir.Float(64)
V8 = F64.with_lanes(8)


def _group(rows, moving_row=False, moving_store=False):
    """for c in [0, a.extent.0 / 8): `rows` rows r of a (each bound by a let
    around one shared store, as unrolling leaves them) added into acc:
    acc[r*8 .. r*8+7] += a[row*stride + c*8 .. +7]; `moving_row`: the row is
    c (a column walk); `moving_store`: acc's index moves with c."""
    c = var("c")
    row = c if moving_row else var("r")
    at = ir.Add(ir.Mul(row, geom("a", "stride", 1)), ir.Mul(c, i32(8)))
    out = ir.Mul(c if moving_store else var("r"), i32(8))
    store = ir.Store("acc", ir.Add(ir.Load(V8, "acc", ir.Ramp(out, i32(1), 8)),
                                   ir.Load(V8, "a", ir.Ramp(at, i32(1), 8))),
                     ir.Ramp(out, i32(1), 8))
    body = ir.Block(tuple(ir.LetStmt("r", i32(k), store) for k in range(rows)))
    return ir.For("c", i32(0), ir.Div(geom("a", "extent", 0), i32(8)), "serial", body)


def _l2_prefetches(stmt) -> int:
    bufs = [BufferArg("a", F64, 2, False), BufferArg("acc", F64, 1, True)]
    text = str(codegen(stmt, "k", bufs, [], cpu="znver5").module)
    return len(re.findall(r'call void @"llvm\.prefetch\.p0"\(ptr %"[^"]+", i32 0, i32 2, i32 1\)',
                          text))


@pytest.mark.parametrize("rows,count", [(8, 8), (2, 2), (1, 0)])
def test_rows_of_a_group_are_prefetched(rows, count):
    assert _l2_prefetches(_group(rows)) == count


def test_rows_counted_through_the_lets():
    loop = _group(8)
    groups = row_prefetch.RowGroups(loop.name, loop.body)
    base = loop.body.stmts[0].body.value.b.index.base
    assert groups.rows("a", base) == 8
    assert groups.rows("acc", base) == 0


def test_no_group_when_the_row_moves_or_the_loop_stores_a_stream():
    assert _l2_prefetches(_group(8, moving_row=True)) == 0
    assert _l2_prefetches(_group(8, moving_store=True)) == 0


@pipeline
def _row_sums(a):
    return a.sum(axis=1)


def test_row_sums_past_the_size_equal_numpy():
    # 1040 x 2048 float64: 17 MiB > LARGE_BYTES, so the prefetch runs (the
    # last group's prefetches point past the array: they cannot fault)
    assert 1040 * 2048 * 8 > row_prefetch.LARGE_BYTES
    a = np.random.default_rng(7).standard_normal((1040, 2048))
    a[3, 5] = -0.0
    for x in (a, a[:1037, :1000], a[::-1], a[1:, 3:], np.zeros((9, 8))):
        assert np.array_equal(_row_sums(x), x.sum(axis=1)), x.shape
