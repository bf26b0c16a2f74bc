"""What `parallel_scan` refuses: a located CompileError with the reason (the
tables' reason for an operator they do not prove), and the Func left as it
was (it still computes the serial result)."""
import numpy as np
import pytest

import pyhalide as ph


def _scan(value, rdom=None, pure=None):
    h = ph.Buffer(np.arange(1, 9, dtype=np.int32), "h")
    x, f = ph.Var("x"), ph.Func("f")
    f[x] = h[x] if pure is None else pure(h, x)
    r = ph.RDom([(1, 7)], "r") if rdom is None else rdom
    f[r.x] = value(f, h, r)
    return f, r


def _refused(f, r, match, chunk=4):
    before = list(f.function().updates)
    with pytest.raises(ph.CompileError, match=match) as e:
        f.update(0).parallel_scan(r.x, chunk)
    assert "test_parallel_scan_errors.py:" in str(e.value)
    assert f.function().updates == before
    return str(e.value)


def test_an_operator_the_tables_do_not_prove_is_refused_with_their_reason():
    f, r = _scan(lambda f, h, r: f[r.x - 1] * f[r.x - 1] + h[r.x])
    msg = _refused(f, r, "not provably associative")
    assert "matches no associative operator" in msg and "((r$x - 1)) * f" in msg
    np.testing.assert_array_equal(np.asarray(f.realize([8]))[:3], [1, 3, 12])


def test_an_update_that_does_not_read_the_previous_point_is_not_a_scan():
    f, r = _scan(lambda f, h, r: f[r.x] + h[r.x])
    _refused(f, r, r"not a scan .*parallel\(r\$x\) applies")


def test_reads_further_back_are_refused():
    f, r = _scan(lambda f, h, r: f[r.x - 2] + h[r.x], ph.RDom([(2, 6)], "r"))
    _refused(f, r, r"reads f\S*\(\(r\$x - 2\)\), a value of f\S* other than")


def test_the_pure_definition_and_bad_chunk_sizes():
    f, r = _scan(lambda f, h, r: f[r.x - 1] + h[r.x])
    with pytest.raises(ph.CompileError, match="pure definition"):
        from pyhalide.func import Stage
        Stage(f, 0).parallel_scan(r.x, 4)
    _refused(f, r, "at least 1, got 0", chunk=0)
    _refused(f, r, "must be an integer", chunk=2.5)
    _refused(f, r, "must be a constant", chunk=ph.Param(ph.Int(32), "k", 4))


def test_a_stage_already_scheduled_or_a_loop_that_is_not_its_rvar():
    f, r = _scan(lambda f, h, r: f[r.x - 1] + h[r.x])
    f.update(0).unroll(r.x, 2)
    _refused(f, r, "already scheduled")
    g, rg = _scan(lambda f, h, r: f[r.x - 1] + h[r.x])
    with pytest.raises(ph.CompileError, match="is not an RVar loop of this stage"):
        g.update(0).parallel_scan(ph.RVar("nope"), 4)


def test_two_dimensional_rdoms_are_refused():
    h = ph.Buffer(np.ones((4, 4), np.int32), "h")
    x, y, f = ph.Var("x"), ph.Var("y"), ph.Func("f")
    f[x, y] = h[x, y]
    r = ph.RDom([(1, 3), (0, 4)], "r")
    f[r.x, r.y] = f[r.x - 1, r.y] + h[r.x, r.y]
    _refused(f, r, "also runs over r\\$y")


def test_an_unknown_variant_names_both():
    f, r = _scan(lambda f, h, r: f[r.x - 1] + h[r.x])
    with pytest.raises(ph.CompileError, match='unknown variant .*"rescan".*"apply"'):
        f.update(0).parallel_scan(r.x, 4, "fast")
