"""ramp_div_mod: `ramp(b, s, L) / c` and `% c` within one quotient, run
against the Stmt as it was (bases of any sign, wrapping products, lanes
that cross a multiple of c left alone); the default `a @ b` reads its
panels of b with dense loads."""
import numpy as np

from pyhalide import ir
from pyhalide.lowering.ramp_div_mod import ramp_div_mod
from tests.vectorize.vectorize_util import bits, i32, run_stmt, var

I32 = ir.Int(32)


def _x4(v):
    return ir.Broadcast(i32(v), 4)


def _quotients(offset, stride=1, scale=8):
    """for o in [0, 6): let b = (o - 3) * p * scale + offset:
    out[o*8 .. o*8+3] = ramp(b, stride, 4) / x4(8); out[o*8+4 ..] = ... % x4(8)."""
    base = ir.Add(ir.Mul(ir.Mul(ir.Sub(var("o"), i32(3)), var("p")), i32(scale)), i32(offset))
    ramp = ir.Ramp(var("b"), i32(stride), 4)
    at = ir.Mul(var("o"), i32(8))
    body = ir.LetStmt("b", base, ir.Block([
        ir.Store("out", ir.Div(ramp, _x4(8)), ir.Ramp(at, i32(1), 4)),
        ir.Store("out", ir.Mod(ramp, _x4(8)), ir.Ramp(ir.Add(at, i32(4)), i32(1), 4))]))
    return ir.For("o", i32(0), i32(6), ir.ForKind.SERIAL, body)


def _run(stmt, p):
    out = np.zeros(48, np.int32)
    return run_stmt(stmt, [("out", out, True)], [("p", I32, p)], name="rdm")[0]


def test_within_one_quotient():
    """Offsets 0-4 with stride 1 and 0-1 with stride 2 (and a base 16*p
    apart) stay below the next multiple of 8: a broadcast and a ramp; the
    values are the Stmt's as it was, for p of both signs and p whose
    product wraps int32."""
    for offset, stride, scale in [(0, 1, 8), (4, 1, 8), (-4, 1, 8), (1, 2, 16), (-15, 0, 8)]:
        before = _quotients(offset, stride, scale)
        after = ramp_div_mod(before)
        text = ir.to_str(after)
        assert "ramp(b, " not in text, (offset, stride)
        for p in (0, 1, -3, 1000, (1 << 28) + 5, -(1 << 29) - 7):
            assert bits(_run(after, p)) == bits(_run(before, p)), (offset, stride, p)


def test_crossing_a_quotient_left_alone():
    """Lanes that can cross a multiple of 8 (offset 5: b % 8 + 3 = 8;
    stride 3; a base only known even) keep the vector division."""
    for offset, stride, scale in [(5, 1, 8), (0, 3, 8), (0, 1, 2)]:
        before = _quotients(offset, stride, scale)
        assert ramp_div_mod(before) is before, (offset, stride, scale)
