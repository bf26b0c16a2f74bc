"""np.where of scalars is a 0-d array in NumPy (it is no ufunc): returned,
the compiled function gives the same 0-d array (dtype included); arithmetic
on it, and operations that give a scalar in NumPy, stay scalars; `t += 1`
keeps it a 0-d array; an in-place update of it while another name is bound
to it is a located error (the other name would change too). Each call is
compared with the plain function (frontend_check.check)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def where_returned(a, s):
    return np.where(s > 0, 1, 2)


@ph.pipeline
def where_of_elements(a, s):
    t = np.where(a[0] > 0, a[1], 2.5)
    return t, 3


@ph.pipeline
def where_used(a, s):
    t = np.where(s > 0, s, 0)
    return t + 1, np.int64(t), a[t % 3] if s > 0 else -t, abs(t), t.shape, t.ndim, t[()]


@ph.pipeline
def where_updated(a, s):
    t = np.where(s > 0, s, 0)
    t += 1
    return t, t * a


@ph.pipeline
def where_in_a_loop(a, s):
    m = 0
    for i in range(len(a)):
        m = np.where(a[i] > m, a[i], m)
    return m + 1


@pytest.mark.parametrize("s", [3, -1, np.int8(4), np.uint16(7), 2.5, np.float32(-1.5), True])
def test_where_of_scalars_is_a_zero_d_array(s):
    a = np.arange(3)
    for f in (where_returned, where_of_elements, where_updated, where_in_a_loop):
        check(f, a, s)
    if not isinstance(s, (float, np.floating, bool)):
        check(where_used, a, s)
    assert isinstance(where_returned(a, s), np.ndarray)


@ph.pipeline
def where_updated_through_an_alias(a, s):
    t = np.where(s > 0, s, 0)
    x = t
    t += 1
    return x


def test_an_in_place_update_seen_by_another_name_is_refused():
    with pytest.raises(ph.CompileError) as e:
        where_updated_through_an_alias(np.arange(3), 2)
    assert "test_where_zero_d.py:" in str(e.value) and "'x'" in str(e.value)
