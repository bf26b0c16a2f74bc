"""lowering/pairwise_loads: a balanced tree of scalar float adds over
consecutive elements of one buffer (name_tree's combine of NumPy's 8
accumulators) is emitted as one dense load and a pairwise horizontal add,
each add with the scalar tree's operands in the same order: the result is
the same bit for bit. Checked on hand-built IR (which trees match) and on a
compiled Func whose float32 values make every other order differ, against
NumPy's float32 arithmetic in that order."""
import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.pairwise_loads import pairwise_leaves
from tests.backend.backend_util import i32, var

F64 = ir.Float(64)


def _load(k, name="acc", base=None):
    base = ir.Mul(var("r"), i32(8)) if base is None else base
    return ir.Load(F64, name, base if k == 0 else ir.Add(base, i32(k)))


def _tree(leaves):
    while len(leaves) > 1:
        leaves = [ir.Add(leaves[i], leaves[i + 1]) for i in range(0, len(leaves), 2)]
    return leaves[0]


def test_which_trees_match():
    assert pairwise_leaves(_tree([_load(k) for k in range(8)]))[2] == 8
    assert pairwise_leaves(_tree([_load(k) for k in range(4)]))[2] == 4
    # leaves out of order, another buffer, a gap, an unbalanced tree, 2 leaves
    assert pairwise_leaves(_tree([_load(k) for k in (1, 0, 2, 3)])) is None
    assert pairwise_leaves(_tree([_load(k, "b" if k == 3 else "acc") for k in range(4)])) is None
    assert pairwise_leaves(_tree([_load(k) for k in (0, 1, 2, 4)])) is None
    serial = ir.Add(ir.Add(ir.Add(_load(0), _load(1)), _load(2)), _load(3))
    assert pairwise_leaves(serial) is None
    assert pairwise_leaves(_tree([_load(0), _load(1)])) is None


def test_compiled_combine_keeps_the_pairwise_order():
    x = ph.Var("x")
    b = ph.ImageParam(ph.Float(32), 1, "b_pw")
    f = ph.Func("f_pw")
    leaves = [b[8 * x + k] for k in range(8)]
    f[x] = ((leaves[0] + leaves[1]) + (leaves[2] + leaves[3])) + \
        ((leaves[4] + leaves[5]) + (leaves[6] + leaves[7]))
    rng = np.random.default_rng(5)
    n = 64
    vals = rng.choice(np.array([1e8, -1e8, 1.0, 3.0, -0.0, 0.5, 7e7], np.float32), 8 * n)
    vals = np.concatenate([vals, np.array([np.inf, -np.inf, 1, 2, 3, 4, 5, 6], np.float32)])
    b.set(ph.Buffer(vals))
    got = np.asarray(f.realize([n + 1]))
    v = vals.reshape(n + 1, 8)
    with np.errstate(invalid="ignore"):          # inf + -inf: NaN, in both
        want, serial = _orders(v)
    assert not np.array_equal(want[:n], serial[:n])       # the order shows
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def _orders(v):
    """The pairwise and the serial sum of each row of 8, in float32."""
    pairwise = ((v[:, 0] + v[:, 1]) + (v[:, 2] + v[:, 3])) + ((v[:, 4] + v[:, 5]) + (v[:, 6] + v[:, 7]))
    return pairwise, v[:, 0] + v[:, 1] + v[:, 2] + v[:, 3] + v[:, 4] + v[:, 5] + v[:, 6] + v[:, 7]


def test_which_trees_across_rows_match():
    v8 = F64.with_lanes(8)

    def row_load(k, stride=8):
        return ir.Load(v8, "acc", ir.Ramp(i32(k), i32(stride), 8))
    assert pairwise_leaves(_tree([row_load(k) for k in range(8)])) is not None
    # rows not side by side (stride 16 for 8 leaves), or leaves out of order
    assert pairwise_leaves(_tree([row_load(k, 16) for k in range(8)])) is None
    assert pairwise_leaves(_tree([row_load(k) for k in (0, 2, 1, 3, 4, 5, 6, 7)])) is None
