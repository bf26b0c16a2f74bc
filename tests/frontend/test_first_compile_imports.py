"""A first compile of an @pipeline reduction imports only what it uses
(issue 16: first compiles; a module imported is source compiled when no
bytecode is cached): not numpy.ma (a masked array exists only once numpy.ma
is imported), not the automatic scheduler, not the reference evaluator. Each
check runs in a fresh interpreter, and the results are compared with NumPy."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest


def _run(tmp_path, code: str) -> dict:
    """Run `code` as a script (@pipeline reads its source) in a fresh interpreter."""
    script = tmp_path / "first_compile.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, PYHALIDE_CACHE_DIR="0")
    out = subprocess.run([sys.executable, str(script)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_reduction_compile_imports_nothing_it_does_not_use(tmp_path):
    got = _run(tmp_path, """
        import json, sys
        import numpy as np
        import pyhalide as ph

        def f(a):
            s = a.sum(axis=1)
            return s, a.max(), a.argmin()

        a = np.arange(60.0).reshape(6, 10) % 7
        s, m, i = ph.pipeline(f)(a)
        ok = bool(np.array_equal(s, a.sum(axis=1)) and m == a.max() and i == a.argmin())
        mods = [m for m in ("numpy.ma", "pyhalide.autoschedule", "pyhalide.reference",
                            "pyhalide.frontend_ast.array_sort",
                            "pyhalide.frontend_ast.array_quantile")
                if m in sys.modules]
        print(json.dumps({"ok": ok, "imported": mods}))
    """)
    assert got == {"ok": True, "imported": []}


def test_masked_array_refused_in_a_fresh_process(tmp_path):
    got = _run(tmp_path, """
        import json
        import numpy as np
        import pyhalide as ph

        def f(a):
            return a.sum()

        p = ph.pipeline(f)
        try:
            p(np.ma.array([1.0, 2.0], mask=[False, True]))
            print(json.dumps({"error": None}))
        except TypeError as e:
            print(json.dumps({"error": str(e).split(":")[0]}))
    """)
    assert got == {"error": "@pipeline was given a masked array (np.ma)"}


@pytest.mark.parametrize("how", ["params", "string"])
def test_autoscheduler_params_as_schedule_in_a_fresh_process(tmp_path, how):
    got = _run(tmp_path, f"""
        import json
        import numpy as np
        import pyhalide as ph

        def f(a):
            return np.sqrt(a * a + 1.0).sum(axis=0)

        sched = ph.AutoschedulerParams() if {how!r} == "params" else "auto"
        p = ph.pipeline(f, schedule=sched)
        a = np.linspace(0.0, 3.0, 48).reshape(6, 8)
        got = p(a)
        from pyhalide.frontend_ast.schedules import schedule_mode
        print(json.dumps({{"close": bool(np.allclose(got, np.sqrt(a * a + 1.0).sum(axis=0),
                                                        rtol=1e-12)),
                          "auto": schedule_mode(p) is not None}}))
    """)
    assert got == {"close": True, "auto": True}
