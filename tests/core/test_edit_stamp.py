"""The edit stamp of ir/function.py and the repeated realize
(pyhalide/realize_fast.py): every edit of a Function that function_version
sees also changes the stamp and fails the snapshot walk, so a recorded call
is never reused after it; a call with nothing edited skips the walk. Results
are compared with NumPy."""
import dataclasses

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import dispatch, ir, realize_fast, tracing
from pyhalide.ir.function import LAST_EDIT, EditedList, tracked
from pyhalide.realize import function_version


def _made(k: int = 2):
    """f(x) = x * k, then f(r) += 1 for r in [0, 4); realized three times
    (the third call runs through the record)."""
    x = ph.Var("x")
    r = ph.RDom([ph.Range(0, 4)], "r")
    f = ph.Func("f")
    f[x] = x * k
    f[r.x] = f[r.x] + 1
    for _ in range(3):
        out = np.asarray(f.realize([8]))
    want = np.arange(8) * k + (np.arange(8) < 4)
    assert np.array_equal(out, want)
    return f, f._solo_pipeline


def _dim(d):
    return d.schedule.dims


def _plus1(exprs) -> tuple:
    return tuple(ir.Add(e, ir.const(e.type, 1)) for e in exprs)


# one edit per part of function_version, made on the Function as schedules make them
EDITS = {
    "compute_level": lambda fn: setattr(fn.schedule, "compute_level", ir.LoopLevel.root()),
    "store_level": lambda fn: setattr(fn.schedule, "store_level", ir.LoopLevel.root()),
    "bounds": lambda fn: fn.schedule.bounds.append(
        ir.FuncBound("x", ir.const(ir.INDEX, 0), ir.const(ir.INDEX, 8))),
    "device": lambda fn: setattr(fn.schedule, "device", "gpu"),
    "trace_realizations": lambda fn: setattr(fn.schedule, "trace_realizations", True),
    "traced events": lambda fn: tracing.trace(fn, "store"),
    "args": lambda fn: setattr(fn.updates[0], "args", _plus1(fn.updates[0].args)),
    "values": lambda fn: setattr(fn.updates[0], "values", _plus1(fn.updates[0].values)),
    "predicates": lambda fn: fn.updates[0].predicates.append(ir.const(ir.Bool(), True)),
    "splits": lambda fn: fn.pure.schedule.splits.append(
        ir.Split("split", "x", "xo", "xi", ir.const(ir.INDEX, 2))),
    "rvars": lambda fn: fn.updates[0].schedule.rvars.__setitem__(
        0, dataclasses.replace(fn.updates[0].schedule.rvars[0], extent=ir.const(ir.INDEX, 3))),
    "dims": lambda fn: _dim(fn.pure).__setitem__(0, ir.Dim("x", "parallel")),
    "allow_race_conditions": lambda fn: setattr(fn.pure.schedule, "allow_race_conditions", True),
    "atomic": lambda fn: setattr(fn.updates[0].schedule, "atomic", True),
    "updates": lambda fn: fn.updates.append(fn.updates[0]),
    "pure": lambda fn: setattr(fn, "pure", dataclasses.replace(fn.pure,
                                                               values=_plus1(fn.pure.values))),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_each_edit_changes_the_stamp_the_version_and_the_walk(name):
    f, pipe = _made()
    fn = f.function()
    rec = pipe._fast()
    assert rec.stamp == LAST_EDIT[0] and tracked(fn)
    before, stamp = function_version(fn), LAST_EDIT[0]
    try:
        EDITS[name](fn)
        assert LAST_EDIT[0] != stamp
        assert function_version(fn) != before
        assert not realize_fast._unchanged(rec.snapshots)
        assert realize_fast.realize_again(pipe, [8], ()) is None
    finally:
        tracing._TRACED.pop(fn, None)


def test_a_call_with_nothing_edited_skips_the_walk(monkeypatch):
    f, pipe = _made(3)

    def walk(snapshots):
        raise AssertionError("the walk ran")
    monkeypatch.setattr(realize_fast, "_unchanged", walk)
    for _ in range(4):
        assert np.array_equal(np.asarray(f.realize([8])), np.arange(8) * 3 + (np.arange(8) < 4))


def test_an_edit_elsewhere_costs_one_walk_then_the_stamp_again():
    f, pipe = _made(5)
    g = ph.Func("g")
    g[ph.Var("y")] = 1                         # an edit of another Function
    rec = pipe._fast()
    assert rec.stamp != LAST_EDIT[0]
    assert np.array_equal(np.asarray(f.realize([8])), np.arange(8) * 5 + (np.arange(8) < 4))
    assert rec.stamp == LAST_EDIT[0]


def test_a_redefinition_is_seen():
    f, pipe = _made(2)
    x = ph.Var("x")
    f[x] = f[x] * 10                           # a second update: fn.updates.append
    want = (np.arange(8) * 2 + (np.arange(8) < 4)) * 10
    for _ in range(3):
        assert np.array_equal(np.asarray(f.realize([8])), want)


def test_a_plain_list_is_compared_by_the_walk():
    f, pipe = _made(4)
    fn = f.function()
    plain = list(fn.pure.schedule.splits)
    fn.pure.schedule.splits = plain            # assigned: not an EditedList
    assert not tracked(fn)
    out = np.asarray(f.realize([8]))           # compared, recorded again without a stamp
    assert np.array_equal(out, np.arange(8) * 4 + (np.arange(8) < 4))
    rec = pipe._fast()
    assert rec.stamp is None
    stamp = LAST_EDIT[0]
    plain.append(ir.Split("split", "x", "xo", "xi", ir.const(ir.INDEX, 2)))   # not stamped
    assert LAST_EDIT[0] == stamp
    assert realize_fast.realize_again(pipe, [8], ()) is None     # the walk sees it


def test_edited_list_is_a_list():
    a = EditedList([3, 1, 2])
    stamp = LAST_EDIT[0]
    a.sort()
    assert a == [1, 2, 3] and LAST_EDIT[0] != stamp
    for edit in (lambda: a.append(4), lambda: a.extend([5]), lambda: a.insert(0, 0),
                 lambda: a.pop(), lambda: a.remove(0), lambda: a.reverse(),
                 lambda: a.__setitem__(slice(0, 1), [9]), lambda: a.__delitem__(0),
                 lambda: a.__iadd__([7]), lambda: a.__imul__(1), lambda: a.clear()):
        stamp = LAST_EDIT[0]
        edit()
        assert LAST_EDIT[0] != stamp


def _scaled_py(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * 2.5
    return out


def test_pipeline_fast_path_with_a_kept_view_sees_an_edit_after_the_stamp():
    p = ph.pipeline(_scaled_py)
    a = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(p(a), a * 2.5)
    funcs, variables = p.funcs, p.vars                    # handed out: checked at each call
    for _ in range(5):
        assert np.array_equal(p(a), a * 2.5)
    direct = p._last._direct
    assert direct is not None and direct.stamp == LAST_EDIT[0]     # the walk was skipped
    funcs["out"].bound(variables["out", "j"], 0, 2)        # an edit through the kept view
    with pytest.raises(ValueError, match="do not cover required region"):
        p(a)
    assert np.array_equal(p(a[:, :2].copy()), a[:, :2] * 2.5)


def test_compiled_entry_of_a_scheduled_pipeline_sees_an_edit_through_the_kept_view():
    kept = []
    p = ph.pipeline(_scaled_py, schedule=kept.append)     # the schedule keeps its view
    a = np.arange(12.0).reshape(3, 4)
    for _ in range(40):                                   # hot: the compiled entry is built
        assert np.array_equal(p(a), a * 2.5)
    assert p._entry is not None                           # (the stamp vouches for its Funcs)
    assert p._entry(a) is not dispatch.MISS
    g = ph.Func("elsewhere")
    g[ph.Var("y")] = 2                                    # an edit of another Function: MISS,
    assert p._entry(a) is dispatch.MISS                   # the Python path compares versions
    assert np.array_equal(p(a), a * 2.5)
    view = kept[-1]
    view.funcs["out"].bound(view.vars["out", "j"], 0, 2)  # an edit of the pipeline's Func
    with pytest.raises(ValueError, match="do not cover required region"):
        p(a)
    assert np.array_equal(p(a[:, :2].copy()), a[:, :2] * 2.5)
