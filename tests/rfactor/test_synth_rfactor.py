"""Random differential tests of synthesized operators (tables/synth.py):
the serial update (reference evaluator) against its rfactored schedule (JIT
and the reference evaluator of the factored definitions), over an outer
RVar (any associative operator) and, when the operator commutes, an inner
one."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.rfactor_util import same_as_serial
from tests.rfactor.synth_cases import CASES, float_matrix_product


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 1])
def test_synthesized_operator_rfactor_equals_serial(name, seed):
    make = CASES[name]
    op = ph.prove_associativity(make(np.random.default_rng(seed))[0].update())
    assert op.associative, op.reason
    assert op.identity_side == "both"

    def build(schedule):
        f, r, _ = make(np.random.default_rng(seed))
        if schedule:
            f.update().rfactor(r.y, ph.Var("u")).compute_root()
        return f

    same_as_serial(build, [])


@pytest.mark.parametrize("name", sorted(n for n, m in CASES.items()
                                        if m(np.random.default_rng(0))[2]))
def test_commutative_synthesized_operator_inner_rvar(name):
    make = CASES[name]

    def build(schedule):
        f, r, _ = make(np.random.default_rng(3))
        if schedule:
            f.update().rfactor(r.x, ph.Var("u")).compute_root()
        return f

    same_as_serial(build, [])


def test_float_matrix_product_rfactor_within_reassociation():
    op = ph.prove_associativity(float_matrix_product(np.random.default_rng(0))[0].update())
    assert op.associative and op.source == "polynomial", op.reason

    def build(schedule):
        f, r, _ = float_matrix_product(np.random.default_rng(0))
        if schedule:
            f.update().rfactor(r.y, ph.Var("u")).compute_root()
        return f

    same_as_serial(build, [], rtol=1e-5)
