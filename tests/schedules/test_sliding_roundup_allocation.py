"""A Func stored at root, computed inside its consumer's tile with a sliding window and
a RoundUp split: its last split starts at the slid min, so it computes up to
slid min + 16 - 1; the allocation was sized from the unslid min and the writes ran past
it (heap corruption, `free(): invalid next size`: schedule-fuzz seed 9329). The
program runs in a child process with glibc's heap checks (MALLOC_CHECK_=3)."""
import os
import subprocess
import sys
import textwrap

PROGRAM = textwrap.dedent('''
    import numpy as np
    import pyhalide as ph
    from pyhalide.graph import collect_graph
    from pyhalide.reference import evaluate
    x, y = ph.Var("x"), ph.Var("y")
    inp = ph.Buffer(np.random.default_rng(3).integers(-60, 60, size=(40, 40)).astype(np.int32),
                    "inp")
    f1 = ph.Func("f1")
    f1[x, y] = inp[x + 2, y + 2] * 3 + x - y
    f3 = ph.Func("f3")
    f3[x, y] = f1[x, y + 1] - f1[x, y] * 3
    f4 = ph.Func("f4")
    f4[x, y] = f3[x, y - 1] + 1
    yo, xo, yi, xi = ph.Var("yo"), ph.Var("xo"), ph.Var("yi"), ph.Var("xi")
    f4.tile(y, x, yo, xo, yi, xi, 2, 1, ph.TailStrategy.ShiftInwards)
    f3.compute_at(f4, xi).store_root()
    f3.split(y, ph.Var("y3o"), ph.Var("y3i"), 16, ph.TailStrategy.RoundUp)
    g = collect_graph([f4.function()])
    for size in ([5, 5], [7, 9], [3, 20], [5, 5], [7, 9], [3, 20], [4, 2], [6, 17]):
        got = np.asarray(ph.Pipeline([f4]).realize(size))
        want = evaluate(g.env, ["f4"], [(0, s) for s in size], {"inp": np.asarray(inp)}, {})[0]
        assert np.array_equal(got, np.asarray(want)), size
    print("ok")
''')


def test_roundup_split_after_a_sliding_window_stays_inside_its_allocation(tmp_path):
    env = dict(os.environ, MALLOC_CHECK_="3", PYHALIDE_CACHE_DIR=str(tmp_path))
    for _ in range(2):
        r = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stderr[-2000:])
