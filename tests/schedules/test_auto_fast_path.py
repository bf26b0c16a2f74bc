"""The automatic scheduler's own view of a specialization is not handed to
the user: after it planned, the specialization is not marked exposed, so a
repeated call takes the fast path without checking every Function's version
(frontend_ast/direct_call.py). A schedule the user changes afterwards
through p.funcs still takes effect."""
import numpy as np

import pyhalide as ph


def column_sums(a):
    out = np.zeros(a.shape[1])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[j] += a[i, j] * 2.0
    return out


def test_auto_specialization_is_not_exposed_and_rescheduling_still_counts():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((40, 33))
    want = column_sums(a)
    p = ph.pipeline(column_sums, schedule="auto")
    for _ in range(3):                  # the first call notes the key, the second records it
        got = p(a)
        assert got.tobytes() == want.tobytes()
    assert p._last.exposed is False
    out = p.funcs["out"]                # handed out: exposed from now on
    assert p._last.exposed is True
    out.update(0).unroll(ph.Var("j"), 2)
    for b in (a, a[::-1].copy()):
        got = p(b)
        assert got.tobytes() == column_sums(b).tobytes()
