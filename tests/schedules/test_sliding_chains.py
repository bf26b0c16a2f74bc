"""A chain of Funcs each stored outside and computed at the same consumer
loop (the pyramid levels of Halide's interpolate app, computed per output row)
slides every level, not only the one the consumer reads: a level's required
rows are written in its consumer's slid region symbols, and it moves past the
rows it computed at the previous iteration. Each value is computed once
(trace_stores), results equal the reference evaluator."""
from collections import Counter

import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check
from tests.schedules.pyramids import pyramid


def _pyramid(tag: str, levels: int = 3):
    return pyramid(tag, levels)


def _store_counts(text: str) -> Counter:
    return Counter(line.split("(")[0].split()[1] for line in text.splitlines()
                   if line.startswith("Store "))


def test_every_level_computes_each_row_once(capfd):
    x, y, fs, out = _pyramid("once")
    for f in fs:
        f.store_root().compute_at(out, y)
        f.trace_stores()
    got = np.asarray(out.realize([16, 16]))
    lines = capfd.readouterr().out
    counts = _store_counts(lines)
    # rows and columns of each level: 9, 5, 3 (ceil((n + 1) / 2) of the next)
    assert counts == {"l1_once.0": 81, "l2_once.0": 25, "l3_once.0": 9}
    stores = [ln.split("=")[0] for ln in lines.splitlines() if ln.startswith("Store ")]
    assert len(set(stores)) == len(stores)
    fs2 = _pyramid("once_ref")
    np.testing.assert_array_equal(got, np.asarray(check(fs2[3], [16, 16])[0]))


@pytest.mark.parametrize("split", [None, 4, 5])
@pytest.mark.parametrize("vec", [False, True])
def test_chains_slid_in_strips_equal_the_reference(split, vec):
    tag = f"strip{split}{'v' if vec else ''}"
    x, y, fs, out = _pyramid(tag, levels=4)
    yo, yi = ph.vars("yo yi")
    if split:
        out.split(y, yo, yi, split, ph.TailStrategy.ShiftInwards)
        for f in fs:
            f.store_at(out, yo).compute_at(out, yi)
    else:
        for f in fs:
            f.store_root().compute_at(out, y)
    if vec:
        out.vectorize(x, 4)
        for f in fs:
            f.vectorize(x, 4)
    check(out, [23, 19])


def test_a_level_read_at_a_shrinking_row_is_not_slid():
    # l2 is read at rows that fall as y grows (a reversed access): its min
    # does not grow with y, so it is computed over its whole required region
    x, y = ph.vars("x y")
    l2, l1, out = ph.Func("l2_rev"), ph.Func("l1_rev"), ph.Func("out_rev")
    l2[x, y] = x * 5 + y
    l1[x, y] = l2[x, 20 - y] + l2[x, 21 - y]
    out[x, y] = l1[x, y // 2] + l1[x, (y + 1) // 2]
    for f in (l1, l2):
        f.store_root().compute_at(out, y)
    check(out, [6, 17])

