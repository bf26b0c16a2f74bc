"""On-the-fly operator synthesis (tables/synth.py) through
`prove_associativity`: the operators found are re-proven by the tables'
verifier on a fresh solver, refusals name the failed law with a Z3
counterexample that really breaks it, and the source and time are reported."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override
from pyhalide.tables.entry import TableEntry, count_leaves
from pyhalide.tables.npeval import evaluate_tuple
from pyhalide.tables.verify import check_entry
from tests.rfactor.synth_cases import CASES, float_matrix_product, lexicographic_argmin

POLYNOMIAL = ["matrix_product", "quaternion_product", "shifted_product", "affine_composition",
              "triangular_product", "guarded_affine_composition", "sum_and_shifted_product"]


def _op(make, seed=0):
    f = make(np.random.default_rng(seed))[0]
    with override(cache_dir=""):
        return ph.prove_associativity(f.update())


def _entry(op) -> TableEntry:
    ops = [o.node for o in op.ops]
    return TableEntry.from_ir([o.type for o in ops], ops, [i.node for i in op.identities],
                              op.commutative, op.identity_side, count_leaves(ops), "synthesized")


@pytest.mark.parametrize("name", POLYNOMIAL)
def test_synthesized_operator_is_reproven_by_the_table_verifier(name):
    op = _op(CASES[name])
    assert op.associative, op.reason
    assert op.source == "polynomial"
    assert 0 < op.synthesis_time <= op.search_time
    assert check_entry(_entry(op)) == []


def test_float_polynomial_operator_is_reproven_over_the_reals():
    op = _op(float_matrix_product)
    assert op.associative and op.source == "polynomial", op.reason
    assert check_entry(_entry(op)) == []


def test_lexicographic_argmin_over_two_keys_has_a_right_identity_only():
    op = _op(lexicographic_argmin)
    assert op.associative, op.reason
    assert op.source == "synthesized" and op.identity_side == "right" and not op.commutative
    assert check_entry(_entry(op)) == []


def test_lexicographic_argmin_operator_merges_chunks_like_the_serial_loop():
    """Folding chunks from their first element and merging them with the
    operator gives the serial loop's (key1, key2, first index)."""
    op = _op(lexicographic_argmin)
    ops = [o.node for o in op.ops]
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 3, (2, 40)).astype(np.int32)
    points = [(keys[0, i], keys[1, i], np.int32(i)) for i in range(40)]

    def f(a, b):
        env = {f"x{i}": np.asarray([v]) for i, v in enumerate(a)}
        env.update({f"y{i}": np.asarray([v]) for i, v in enumerate(b)})
        return tuple(o[0] for o in evaluate_tuple(ops, env))

    def fold(seq):
        acc = seq[0]
        for p in seq[1:]:
            acc = f(acc, p)
        return acc

    serial = min(points, key=lambda p: (p[0], p[1], p[2]))
    for cut in (1, 7, 20, 39):
        assert f(fold(points[:cut]), fold(points[cut:])) == serial


def _near_miss(expr, types, init):
    r = ph.RDom([(0, 8)], "r")
    bufs = [ph.Buffer(np.arange(8, dtype=types[0]), n) for n in "ab"]
    f = ph.Func("f")
    f[()] = tuple(ph.cast(t, v) for t, v in zip(types, init)) if len(types) > 1 \
        else ph.cast(types[0], init[0])
    f[()] = expr(f, bufs[0][r.x], bufs[1][r.x])
    with override(cache_dir=""):
        return ph.prove_associativity(f.update())


NEAR_MISSES = {
    "xy_plus_x_plus_2y": (lambda f, a, b: f[()] * a + f[()] + 2 * a, [np.int32], [0]),
    "twice_x_plus_y": (lambda f, a, b: 2 * f[()] + a, [np.int32], [0]),
    "saturation_off_by_one": (lambda f, a, b: ph.select(f[()] > 254 - a, ph.cast(np.uint8, 255),
                                                        f[()] + a), [np.uint8], [0]),
    "matrix_product_transposed_term": (
        lambda f, a, b: (f[()][0] * a + f[()][1] * b, f[()][0] * b + f[()][1] * b),
        [np.int32] * 2, [1, 0]),
}


@pytest.mark.parametrize("name", sorted(NEAR_MISSES))
def test_near_miss_is_refused_with_a_counterexample_that_breaks_associativity(name):
    op = _near_miss(*NEAR_MISSES[name])
    assert not op.associative
    assert "breaks op(op(a, b), c) == op(a, op(b, c)), for example at" in op.reason, op.reason
    assert op.search_time <= 2.0 + 1.5      # the bound, plus table search and load


def test_refusal_counterexample_values_break_the_law():
    from pyhalide import ir
    from pyhalide.tables import synth
    from pyhalide.tables.match_canon import self_var
    t = ir.Int(32)
    x, a = self_var(t, 0), ir.Variable(t, "a")
    with override(cache_dir=""):
        r = synth.synthesize([ir.Add(ir.Mul(x, ir.Const(t, 2)), a)], [t])
    assert not r and "(Z3)" in r.reason
    values = dict(part.split(" = ") for part in
                  r.reason.split("for example at ")[1].split(" (Z3)")[0].split(", "))
    av, bv, cv = (np.array([int(values[f"{p}0"])], np.int32) for p in "abc")
    ops = [ir.Add(ir.Mul(ir.Variable(t, "x0"), ir.Const(t, 2)), ir.Variable(t, "y0"))]

    def f(u, v):
        return evaluate_tuple(ops, {"x0": u, "y0": v})[0]

    assert f(f(av, bv), cv)[0] != f(av, f(bv, cv))[0]


def test_synthesis_off_keeps_the_table_refusal(monkeypatch):
    monkeypatch.setenv("PYHALIDE_SYNTH_SECONDS", "0")
    op = _op(CASES["matrix_product"])
    assert not op.associative and "synthesized" not in op.reason
    assert "tables" in op.reason


def test_table_hit_reports_the_table():
    r = ph.RDom([(0, 8)], "r")
    a = ph.Buffer(np.arange(8, dtype=np.int32), "a")
    f = ph.Func("f")
    f[()] = ph.cast(np.int32, 0)
    f[()] = f[()] + a[r.x]
    op = ph.prove_associativity(f.update())
    assert op.source == "table" and op.synthesis_time == 0


def test_more_inputs_than_values_is_refused_with_the_inputs_named():
    op = _near_miss(lambda f, a, b: f[()] * a + b, [np.int32], [0])
    assert not op.associative
    assert "combines 2 inputs (a(r$x), b(r$x)) with its previous value" in op.reason
