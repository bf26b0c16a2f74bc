"""The shipped tables: required operators, flags, the public interface and
the export format."""
import json
import subprocess
import sys

import pytest

from pyhalide import ir
from pyhalide.tables import entry_to_dict, load_all, load_table
from pyhalide.tables.entry import EXPORT_KEYS
from pyhalide.tables.grammar import variables
from pyhalide.tables.syntax import format_expr, parse_expr

INTS = [ir.Int(b) for b in (8, 16, 32, 64)] + [ir.UInt(b) for b in (8, 16, 32, 64)]
FLOATS = [ir.Float(32), ir.Float(64)]
UINTS = [t for t in INTS if t.is_uint()]


def canonical(texts, types):
    names = variables(types)
    return tuple(format_expr(parse_expr(s, names, t)) for s, t in zip(texts, types))


def find(texts, types):
    types = tuple(types)
    want = canonical(texts, types)
    return [e for e in load_table(types) if e.op_texts == want]


def require(texts, types):
    found = find(texts, types)
    assert found, f"{texts} over {types} is not in the tables"
    return found[0]


@pytest.mark.parametrize("t", INTS + FLOATS, ids=str)
def test_sum_product_min_max(t):
    for text in ("x0 + y0", "x0 * y0", "min(x0, y0)", "max(x0, y0)"):
        e = require([text], [t])
        assert e.commutative and e.identity_side == "both"
    assert require(["max(min(x0, k0), y0)"], [t]).identity_side == "left"
    assert require(["x0 + y0 + k0 * x0 * y0"], [t]).commutative
    require(["x0 + y0", "x0 + y1"], [t, t])


@pytest.mark.parametrize("t", INTS, ids=str)
def test_bitwise(t):
    for text in ("x0 & y0", "x0 | y0", "x0 ^ y0"):
        require([text], [t])


def test_bool():
    for text in ("x0 and y0", "x0 or y0", "x0 != y0"):
        require([text], [ir.Bool()])


@pytest.mark.parametrize("t", UINTS, ids=str)
def test_saturating_add(t):
    top = t.max_value()
    require([f"select(x0 + y0 < x0, {top}, x0 + y0)"], [t])
    if t.bits < 64:
        w = f"uint{2 * t.bits}"
        require([f"uint{t.bits}(min({w}(x0) + {w}(y0), {top}))"], [t])
    require(["x0 + y0", "x1 + y1 + select(x0 + y0 < x0, 1, 0)"], [t, t])


@pytest.mark.parametrize("t", INTS + FLOATS, ids=str)
@pytest.mark.parametrize("index", [ir.Int(32), ir.Int(64)], ids=str)
def test_argmin_argmax(t, index):
    picks = {"min": [("x0 < y0", "x1", "y1"), ("x0 <= y0", "x1", "y1"),
                     ("x0 > y0", "y1", "x1"), ("x0 >= y0", "y1", "x1")],
             "max": [("x0 > y0", "x1", "y1"), ("x0 >= y0", "x1", "y1"),
                     ("x0 < y0", "y1", "x1"), ("x0 <= y0", "y1", "x1")]}
    for fn, variants in picks.items():
        for cond, keep, new in variants:
            e = require([f"{fn}(x0, y0)", f"select({cond}, {keep}, {new})"], [t, index])
            assert not e.commutative and e.identity_side in ("left", "right")
            first = cond.replace("x0", "x1").replace("y0", "y1")
            e = require([f"select({first}, {keep[0]}0, {new[0]}0)", f"{fn}(x1, y1)"], [index, t])
            assert not e.commutative
        lexicographic = require([f"{fn}(x0, y0)", f"select(x0 {'<' if fn == 'min' else '>'} y0, x1, "
                                 f"select(y0 {'<' if fn == 'min' else '>'} x0, y1, min(x1, y1)))"],
                                [t, index])
        assert lexicographic.commutative and lexicographic.identity_side == "both"


@pytest.mark.parametrize("t", INTS + FLOATS, ids=str)
def test_complex_multiplication(t):
    for ops in (["x0 * y0 - x1 * y1", "x0 * y1 + x1 * y0"],
                ["y0 * x0 - y1 * x1", "y0 * x1 + y1 * x0"]):
        e = require(ops, [t, t])
        assert e.commutative and e.identity_side == "both"
        assert [format_expr(i) for i in e.identities] in (["1", "0"], ["1.0", "0.0"])


@pytest.mark.parametrize("t", FLOATS, ids=str)
def test_nan_propagating_max_min(t):
    for fn in ("max", "min"):
        e = require([f"select(is_nan(x0), x0, select(is_nan(y0), y0, {fn}(x0, y0)))"], [t])
        assert e.identity_side == "both"


def test_every_entry_is_well_formed():
    entries = load_all()
    assert len(entries) > 1000
    for e in entries:
        assert e.identity_side in ("left", "right", "both")
        assert len(e.ops) == len(e.identities) == e.size
        assert all(o.type == t for o, t in zip(e.ops, e.types))


def test_export_keys():
    for e in load_all()[::50]:
        d = entry_to_dict(e)
        assert tuple(d) == EXPORT_KEYS
        assert json.loads(json.dumps(d)) == d
        assert isinstance(d["type"], str) == (e.size == 1)


def test_loading_is_fast_and_lazy():
    code = ("import time, sys; from pyhalide import ir; import pyhalide.tables as T; "
            "t = time.perf_counter(); n = sum(len(T.load_table(x)) for x in ir.ALL_SCALAR_TYPES); "
            "print(time.perf_counter() - t, 'z3' in sys.modules, n)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, z3_loaded, n = out.stdout.split()
    # a generous bound (the 50 ms target is measured by `pyhalide bench --suite 3`)
    assert float(seconds) < 0.5 and z3_loaded == "False" and int(n) > 1000
