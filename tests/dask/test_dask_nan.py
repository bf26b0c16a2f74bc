"""Float max/argmax/argmin reductions on Dask with NaN values and signed
zeros equal the one-machine loop: blocks' partial results are merged by the
update's own form (NaN values skipped as the loop skips them), not the
table's canonical max, which took a NaN (argmax returned the last block's
index, argmin a block's index where the loop's NaN start keeps 0). A form
whose result depends on the order with NaN values is refused."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import pyhalide as ph  # noqa: E402
from pyhalide import CompileError  # noqa: E402
from tests.rfactor.nan_cases import (  # noqa: E402
    argmax_first,
    argmin_from_first,
    nan_inputs,
    not_ge_min,
    same_float,
    sel_max,
)


@pytest.mark.parametrize("fn", [sel_max, argmax_first, argmin_from_first],
                         ids=lambda f: f.__name__)
def test_nan_reductions_on_dask_equal_python(fn):
    p = ph.pipeline(fn)
    for case, a in enumerate(nan_inputs(120)):
        got = p.dask(da.from_array(a, chunks=25))
        got = dask.compute(*got, scheduler="synchronous") if isinstance(got, tuple) else \
            got.compute(scheduler="synchronous")
        want = fn(a)
        assert same_float(want, got), (case, want, got)


def test_order_dependent_nan_form_refused_on_dask():
    with pytest.raises(CompileError, match="NaN values"):
        ph.pipeline(not_ge_min).dask(da.from_array(np.ones(40), chunks=10))
