"""The NumPy kernel corpus (examples/numpy_kernels): every kernel either
compiles and equals plain Python or is a located CompileError; none returns
a different result or raises anything else."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples"))
from numpy_kernels import run  # noqa: E402

# kernels that compile and match (70 of 76 after session 7; raise it as
# features land)
MIN_OK = 68


def test_corpus_never_wrong():
    outcomes = run.run_all()
    print(run.table(outcomes))
    bad = [o for o in outcomes if o.status in (run.WRONG, run.CRASH)]
    assert not bad, "\n".join(f"{o.kernel.name}: {o.status} {o.detail}" for o in bad)
    assert len(outcomes) >= 45
    assert sum(o.status == run.OK for o in outcomes) >= MIN_OK


def test_comparison_is_exact():
    f32 = np.float32
    assert run.differs(np.zeros(2), np.zeros(2, f32), None).startswith("dtype")
    assert run.differs(np.zeros((2, 1)), np.zeros(2), None).startswith("shape")
    assert run.differs(np.array([-0.0]), np.array([0.0]), None)
    assert run.differs(np.array([np.nan, 1.0]), np.array([1.0, np.nan]), None)
    assert not run.differs(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), None)
    assert run.differs(np.float64(1.0), 1.0, None).startswith("type")
    assert run.differs((1, 2), (1, 3), None)
    one_ulp = np.nextafter(1.0, 2.0)
    assert run.differs(np.array([one_ulp]), np.array([1.0]), None)
    assert not run.differs(np.array([one_ulp]), np.array([1.0]), 2)
    assert run.differs(np.array([1.0 + 1e-12]), np.array([1.0]), 2)
