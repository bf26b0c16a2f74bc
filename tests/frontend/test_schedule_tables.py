"""p.funcs and p.vars are read-only Mappings (collections.abc.Mapping): their
keys are the names that name one Func / loop variable and every
(Func name, loop name) pair; a name used in several loop nests is neither
listed nor contained, and indexing it raises the KeyError listing choices
that all work (the same in every compile)."""
from collections.abc import Mapping

import numpy as np
import pytest

import pyhalide as ph


def two_scans(a):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        s += a[i]
    t = np.zeros(n)
    for i in range(n):
        t[i] = a[i] * 2
    for i in range(1, n):
        t[i] = t[i] + t[i - 1]
    s = s + 1.0
    for j in range(n):
        s = s + t[j]
    u = np.zeros(n)
    for k in range(n):
        u[k] = t[k] + s
    return u


def _check_mapping(m):
    assert isinstance(m, Mapping)
    keys = list(m)
    assert len(m) == len(keys) == len(set(keys)) > 0
    assert list(m.keys()) == keys
    d = dict(m)
    assert list(d) == keys and all(d[k] is m[k] for k in keys)
    assert all(k in m for k in keys)
    assert dict(m.items()) == d and m == d
    with pytest.raises(TypeError):
        m["x"] = None                      # read-only
    return d


def _check_tables(p):
    funcs = _check_mapping(p.funcs)
    assert "s" not in p.funcs and "s" not in funcs          # two loop states named s
    with pytest.raises(KeyError) as e:
        p.funcs["s"]
    assert "'s$0', 's$1'" in str(e.value)
    assert p.funcs["s$0"] is not p.funcs["s$1"]
    assert funcs["t"] is p.funcs["t"] and funcs["u"] is p.funcs["u"]
    assert p.funcs.get("nope") is None and "nope" not in p.funcs

    vars_ = _check_mapping(p.vars)
    assert "i" not in p.vars and "i" not in vars_            # in three definitions
    with pytest.raises(KeyError) as e:
        p.vars["i"]
    choices = ["s$0", "t"]
    for c in choices:
        assert f"p.vars[{c!r}, 'i']" in str(e.value)
        assert (c, "i") in p.vars and (c, "i") in vars_
    assert isinstance(p.vars["s$0", "i"], ph.RVar)
    assert "k" in p.vars and p.vars["k"] is vars_["k"] is p.vars["u", "k"]
    assert "j" in p.vars and ("s$1", "j") in p.vars
    assert all(isinstance(v, (ph.Var, ph.RVar)) for v in vars_.values())
    assert [1] not in p.vars and ("t", "i", "x") not in p.vars and 3 not in p.funcs
    with pytest.raises(KeyError, match="has no loop variable 'q'; its loop variables: i"):
        p.vars["t", "q"]


def test_funcs_and_vars_are_read_only_mappings():
    seen = []

    def sched(p):
        _check_tables(p)
        p.funcs["t"].compute_root()
        seen.append(True)

    keys = []
    for _ in range(2):      # Func names are unique per process; the keys do not change
        p = ph.pipeline(two_scans, schedule=sched)
        a = np.arange(6.0)
        np.testing.assert_array_equal(p(a), two_scans(a))
        _check_tables(p)                                     # after the call as well
        named = [k for k in p.funcs if not k.startswith("result")]      # (results: unnamed)
        keys.append([k for k in named if p.funcs.key_of(p.funcs[k]) == k])  # (not own names)
    assert seen == [True, True]
    assert keys[0] == keys[1] == ["t", "u", "s$0", "s$1"]


def test_rvar_hint_names_a_key_that_works():
    def sched(p):
        p.funcs["s$1"].split(p.vars["s$1", "j"], ph.RVar("jo"), ph.RVar("ji"), 2)

    p = ph.pipeline(two_scans, schedule=sched)
    with pytest.raises(ph.CompileError) as e:
        p(np.arange(6.0))
    assert "p.funcs['s$1'].update()" in str(e.value)
