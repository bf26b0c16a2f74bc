"""A stage that only copies (an array argument written back, a slice of a
time-stepped state read out) is not vectorized by schedule="auto": LLVM
vectorizes the serial copy itself, or calls memcpy for a dense one, and an
explicit vector loop only adds a tail. Stages that compute keep their
vectors; every result equals plain Python's."""
import numpy as np

import pyhalide as ph
from pyhalide.autoschedule import plan


def smooth_steps(u, tmp, steps):
    for _ in range(steps):
        tmp[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.25 * (u[2:, 1:-1] - 2 * u[1:-1, 1:-1] + u[:-2, 1:-1])
        u[:, :] = tmp[:, :]
    return u.sum()


def scaled(a):
    return a * 3.0


def test_copies_are_not_vectorized_and_results_are_unchanged():
    rng = np.random.default_rng(3)
    u = rng.standard_normal((40, 48))
    tmp = np.zeros_like(u)
    want_u, want_t = u.copy(), tmp.copy()
    want = smooth_steps(want_u, want_t, 5)
    p = ph.pipeline(smooth_steps, schedule="auto")
    got_u, got_t = u.copy(), tmp.copy()
    got = p(got_u, got_t, 5)
    assert got == want
    assert got_u.tobytes() == want_u.tobytes() and got_t.tobytes() == want_t.tobytes()
    # the copies stay serial; the time-stepped update that computes is vectorized
    # (tests/autoschedule/test_stepped_updates.py)
    lines = [x.strip() for x in p.schedule_source().splitlines()]
    assert [x for x in lines if ".vectorize(" in x and not x.startswith("#")] == \
        ["u_tmp_steps.update(0).vectorize('r_u_tmp_steps$x', "
         f"{ph.get_jit_target_from_environment().natural_vector_size(ph.Float(64))})"]


def test_a_computing_stage_keeps_its_vectors():
    a = np.arange(64.0)
    p = ph.pipeline(scaled, schedule="auto")
    assert p(a).tobytes() == (a * 3.0).tobytes()
    assert ".vectorize(" in p.schedule_source()


def test_copies_detects_only_reads_at_the_same_coordinates():
    from pyhalide import ir
    x = ir.Variable(ir.Int(32), "x")
    y = ir.Variable(ir.Int(32), "y")
    f64 = ir.Float(64)

    class D:
        def __init__(self, args, values):
            self.args, self.values = args, values

    def call(*args, idx=0):
        return ir.Call(f64, "g", args, ir.FUNC, idx)
    assert plan._copies(D((x, y), (call(x, y),)), ("x", "y"))
    assert plan._copies(D((x, y), (call(x, y, ir.const(ir.Int(32), 1), idx=1),)), ("x", "y"))
    assert not plan._copies(D((x, y), (call(y, x),)), ("x", "y"))
    assert not plan._copies(D((x, y), (ir.Mul(call(x, y), ir.const(f64, 2.0)),)), ("x", "y"))
    assert not plan._copies(D((x, y), (call(x, y, x),)), ("x", "y"))
    assert not plan._copies(None, ("x", "y"))
