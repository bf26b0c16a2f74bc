"""Float max/argmax loops rfactored with NaN values and signed zeros equal
the serial Python loop (rfactor_nan, tables/float_domain).

The frontend keeps a flag beside a running maximum (whether it was ever
assigned), so `if a[i] > m: m = a[i]` is a two-element update; before, only
one-element updates kept their own form and the intermediate applied the
canonical `max(m, a[i])`, which takes a NaN: an input of NaNs and one 1.0
returned nan (and argmax -1) under schedule="auto". Forms whose result
depends on the order with NaN values (`if not (a[i] >= m)`) are refused
with a Z3 counterexample, and `auto` keeps them serial."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.nan_cases import (
    argmax_first,
    argmin_from_first,
    argmin_last,
    builtin_max,
    nan_inputs,
    not_ge_min,
    same_float,
    sel_max,
)

FUNC = {sel_max: "m", builtin_max: "m", argmax_first: "m_k", argmin_last: "m_k",
        argmin_from_first: "m_k"}


def _split_schedule(name, inner):
    def schedule(p):
        f = p.funcs[name]
        ro, ri, u = ph.RVar("ro"), ph.RVar("ri"), ph.Var("u")
        f.update(0).split(p.vars["i"], ro, ri, 16)
        intm = f.update(0).rfactor(ri if inner else ro, u).compute_root()
        intm.vectorize(u, 8) if inner else intm.parallel(u)
    return schedule


LANES_OK = [argmax_first, argmin_last, argmin_from_first]    # exact: lexicographic keys


# interleaved lanes only where the operator commutes exactly (the others are
# refused: test_interleaved_lanes_of_a_first_value_max_are_refused)
CASES = [(fn, False) for fn in FUNC] + [(fn, True) for fn in LANES_OK]


@pytest.mark.parametrize("fn, inner", CASES,
                         ids=[f"{f.__name__}-{'lanes' if i else 'chunks'}" for f, i in CASES])
def test_rfactored_loop_with_nan_and_signed_zeros_equals_python(fn, inner):
    p = ph.pipeline(fn, schedule=_split_schedule(FUNC[fn], inner))
    for case, a in enumerate(nan_inputs(301)):
        want, got = fn(a), p(a)
        assert same_float(want, got), (fn.__name__, case, want, got)


@pytest.mark.parametrize("fn", [sel_max, builtin_max], ids=lambda f: f.__name__)
def test_interleaved_lanes_of_a_first_value_max_are_refused(fn):
    # of -0.0 and +0.0 the loop keeps the first; lanes merged in lane order
    # returned -0.0 for [-1, -1, -1, +0.0, ..., -0.0 at 16, ...] (Python: 0.0)
    p = ph.pipeline(fn, schedule=_split_schedule(FUNC[fn], True))
    with pytest.raises(ph.CompileError, match=r"-0\.0 and \+0\.0"):
        p(np.ones(64))


def test_auto_keeps_the_sign_of_the_first_zero():
    a = np.full(1 << 18, -1.0)
    a[3], a[16] = 0.0, -0.0
    got = ph.pipeline(sel_max, schedule="auto")(a)
    assert np.signbit(got) == np.signbit(sel_max(a)) and got == 0.0


def test_auto_schedule_with_nan_equals_python():
    n = 1 << 18
    for fn in (sel_max, argmax_first):
        p = ph.pipeline(fn, schedule="auto")
        for case, a in enumerate(nan_inputs(n)):
            want, got = fn(a), p(a)
            assert same_float(want, got), (fn.__name__, case, want, got)
        assert "rfactor(" in p.schedule_source()


def test_order_dependent_nan_form_is_refused_with_a_counterexample():
    p = ph.pipeline(not_ge_min, schedule=_split_schedule("m", False))
    with pytest.raises(ph.CompileError, match="NaN values"):
        p(np.ones(64))


def test_order_dependent_nan_form_stays_serial_under_auto():
    p = ph.pipeline(not_ge_min, schedule="auto")
    for a in nan_inputs(1 << 18)[:3]:
        assert same_float(not_ge_min(a), p(a))
    assert "rfactor(" not in p.schedule_source()


def test_func_api_select_argmax_with_nan():
    a = np.array([np.nan] * 40 + [3.0] + [np.nan] * 40 + [3.0, 1.0], dtype=np.float32)
    A = ph.Buffer(a, "nan_arg_in")
    r = ph.RDom([(0, a.size)], "r")
    f = ph.Func("nan_argmax")
    f[()] = (ph.f32(-np.inf), ph.i32(-1))
    better = A[r.x] > f[()][0]
    f[()] = (ph.select(better, A[r.x], f[()][0]), ph.select(better, r.x, f[()][1]))
    ro, ri, u = ph.RVar("ro"), ph.RVar("ri"), ph.Var("u")
    f.update().split(r.x, ro, ri, 8)
    f.update().rfactor(ri, u).compute_root().vectorize(u, 8)
    m, k = f.realize([])
    assert int(np.asarray(k)[()]) == 40 and float(np.asarray(m)[()]) == 3.0
