"""DESIGN.md: traversals of large expression DAGs are memoized or iterative.
A 400-term sum and a 60-level DAG of shared subexpressions (whose printed
tree would have 2^60 leaves) compile and give NumPy's values; each runs in a
subprocess with a timeout, so a blow-up fails instead of hanging."""
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import pyhalide as ph
    kind, n = sys.argv[1], int(sys.argv[2])
    x = ph.Var("x")
    f = ph.Func("f")
    xs = np.arange(4, dtype=np.int64)
    with np.errstate(over="ignore"):
        if kind == "chain":
            e, want = ph.Expr(0) + x, xs.astype(np.int32)
            for i in range(n):
                e, want = e + (x ^ i), want + (xs.astype(np.int32) ^ np.int32(i))
        else:
            e, want = x, xs.astype(np.int32)
            for i in range(n):
                e, want = e * 3 + e, want * np.int32(3) + want
    f[x] = e
    got = np.asarray(f.realize([4]))
    assert np.array_equal(got, want), (got, want)
    print("ok")
""")


@pytest.mark.parametrize("kind,n", [("chain", 400), ("dag", 60)])
def test_large_expression_compiles(kind, n):
    env = dict(os.environ, PYHALIDE_CACHE_DIR="0")
    out = subprocess.run([sys.executable, "-c", SCRIPT, kind, str(n)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr[-2000:]
