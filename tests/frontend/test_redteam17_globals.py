"""A global NumPy array read by a @pipeline function is a located refusal
(session 17 red team): the global lookup compared the array with the
builtin types by `in`, and NumPy's elementwise == raised "The truth value
of an array with more than one element is ambiguous" from inside the
compiler instead of the refusal that names the global."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError

WEIGHTS = np.arange(5.0)


def scaled_by_global(a):
    return a * WEIGHTS


@pytest.mark.parametrize("n", [0, 1, 5])
def test_global_array_is_a_located_refusal(n):
    global WEIGHTS
    saved = WEIGHTS
    WEIGHTS = np.arange(float(n))
    try:
        p = ph.pipeline(scaled_by_global)
        with pytest.raises(FrontendError, match="global array 'WEIGHTS'") as e:
            p(np.ones(n))
        assert "test_redteam17_globals.py:" in str(e.value)
    finally:
        WEIGHTS = saved
