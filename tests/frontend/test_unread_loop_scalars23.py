"""A scalar assigned in a loop body that only a later inner loop, `if` or
short-circuit part reads (check_order.LoopSinks, _maybe_unread): Python
evaluates it at every iteration, so its IndexError is raised even when
that reader does not run. Every outcome equals plain Python."""
import numpy as np
import pytest

import pyhalide as ph


def in_inner_loop(a, m):
    s = 0.0
    for i in range(a.shape[0]):
        t = a[i // 2 + 3]               # a[5] at i = 4 (n = 5): IndexError
        for j in range(m):
            s += t
    return s


def under_if(a, m):
    s = 0.0
    for i in range(a.shape[0]):
        t = a[i // 2 + 3]
        if m > 0:
            s += t
    return s


def in_short_circuit(a, m):
    s = 0.0
    for i in range(a.shape[0]):
        t = a[(i * i) % 7 + 2]
        s += float(m > 0 and t > 0.5)
    return s


_COMPILED = {}


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except IndexError:
        return "IndexError", None


@pytest.mark.parametrize("fn", [in_inner_loop, under_if, in_short_circuit])
def test_unread_scalar_raises_as_python(fn):
    if fn not in _COMPILED:
        _COMPILED[fn] = ph.pipeline(fn)
    for n, m in ((5, 0), (5, 2), (2, 0), (9, 0), (9, 3)):
        a = np.linspace(0.0, 1.0, n)
        assert _outcome(_COMPILED[fn], a, m) == _outcome(fn, a, m), (fn.__name__, n, m)
