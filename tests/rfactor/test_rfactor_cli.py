"""`pyhalide assoc "EXPR"` and `pyhalide lower --stage rfactor`."""
import re
import textwrap

from typer.testing import CliRunner

from pyhalide.cli import app

runner = CliRunner()


def test_assoc_max():
    res = runner.invoke(app, ["assoc", "max(f, g)"])
    assert res.exit_code == 0, res.output
    assert "operator     max(x0, y0)" in res.output
    assert "identity     -2147483648  (both identity)" in res.output
    assert "commutative  yes" in res.output
    assert "y0           g(r$x)" in res.output
    assert "search time" in res.output


def test_assoc_argmin_tuple():
    res = runner.invoke(app, ["assoc", "(min(f[0], v), select(f[0] < v, f[1], r))"])
    assert res.exit_code == 0, res.output
    assert "operator[1]  select((x0 < y0), x1, y1)" in res.output
    assert "commutative  no" in res.output


def test_assoc_types_and_refusal():
    res = runner.invoke(app, ["assoc", "f * g", "--type", "float32"])
    assert res.exit_code == 0 and "identity     1.0f" in res.output, res.output
    res = runner.invoke(app, ["assoc", "max(f + g, f)"])
    assert res.exit_code == 1
    assert "associative  no" in res.output and "overflow" in res.output


def test_lower_stage_rfactor_shows_intermediate_and_merge(tmp_path):
    src = tmp_path / "prog.py"
    src.write_text(textwrap.dedent("""
        import numpy as np
        import pyhalide as ph
        A = ph.Buffer(np.arange(64, dtype=np.int32), "A")
        r = ph.RDom([(0, 64)], "r")
        total = ph.Func("rfcli_total")
        total[()] = 0
        total[()] += A[r.x]
        rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
        total.update().split(r.x, rxo, rxi, 16)
        total.update().rfactor(rxo, ph.Var("u")).compute_root()
    """))
    res = runner.invoke(app, ["lower", f"{src}::total", "--stage", "rfactor"])
    assert res.exit_code == 0, res.output
    # Func names are unique in a process: another test may own "rfcli_total"
    assert re.search(r"(rfcli_total\S*)\(\) = \(\1\(\) \+ (\1_intm)\(rxo\)\)  over rxo in "
                     r"\[0, 0 \+ 4\)", res.output), res.output
    assert re.search(r"(rfcli_total\S*_intm)\(u\) = \(\1\(u\) \+ A\(\(\(u \* 16\) \+ rxi\)\)\)  "
                     r"over rxi in \[0, 0 \+ 16\)", res.output), res.output
