"""A first compile of an @pipeline reduction imports only what it uses
(issue 16: first compiles; a module imported is source compiled when no
bytecode is cached): not numpy.ma (a masked array exists only once numpy.ma
is imported), not the automatic scheduler, not the reference evaluator, not
the array functions it does not call (array_calls.LAZY, which lists exactly
what its modules register; a lazily registered handler is found, also from
another: np.nanmedian -> np.median). Each check runs in a fresh interpreter,
and the results are compared with NumPy."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap


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


def test_autoscheduler_params_as_schedule_in_a_fresh_process(tmp_path):
    got = _run(tmp_path, """
        import json
        import numpy as np
        import pyhalide as ph

        def f(a):
            return np.sqrt(a * a + 1.0).sum(axis=0)

        p = ph.pipeline(f, schedule=ph.AutoschedulerParams())
        a = np.linspace(0.0, 3.0, 48).reshape(6, 8)
        got = p(a)
        from pyhalide.frontend_ast.schedules import schedule_mode
        print(json.dumps({"close": bool(np.allclose(got, np.sqrt(a * a + 1.0).sum(axis=0),
                                                        rtol=1e-12)),
                          "auto": schedule_mode(p) is not None}))
    """)
    assert got == {"close": True, "auto": True}


def test_lazy_table_is_what_its_modules_register(tmp_path):
    got = _run(tmp_path, """
        import importlib, json, sys
        import numpy as np
        import pyhalide.frontend_ast.builder, pyhalide.frontend_ast.specialize
        from pyhalide.frontend_ast import array_calls as A

        def tables():
            # every table of the modules loaded: a lazy module may fill only
            # FUNCTIONS and METHODS (array_math, which adds to calls.ELEMENTWISE, is eager)
            out = {}
            for name, mod in list(sys.modules.items()):
                if name.startswith("pyhalide") and mod is not None:
                    for k, v in list(vars(mod).items()):
                        if isinstance(v, dict) and not k.startswith("__"):
                            out[name, k] = {key: id(x) for key, x in v.items()}
                        elif isinstance(v, (list, set)) and not k.startswith("__"):
                            out[name, k] = len(v)
            return out

        eager_f, eager_m = set(A.FUNCTIONS), set(A.METHODS)
        loaded = [m for m in A.LAZY if "pyhalide.frontend_ast." + m in sys.modules]
        before = tables()
        for mod in A.LAZY:
            importlib.import_module("pyhalide.frontend_ast." + mod)
        after = tables()
        changed = sorted(".".join(k) for k in before if after.get(k) != before[k] and
                         k[1] not in ("FUNCTIONS", "METHODS"))
        listed_f = {getattr(np, n): mod for mod, (names, _) in A.LAZY.items()
                    for n in names.split() if getattr(np, n, None) is not None}
        listed_m = {n: mod for mod, (_, names) in A.LAZY.items() for n in names.split()}
        short = lambda h: h.__module__.rsplit(".", 1)[1]
        new_f = {f: short(h) for f, h in A.FUNCTIONS.items() if f not in eager_f}
        new_m = {n: short(h) for n, h in A.METHODS.items() if n not in eager_m}
        print(json.dumps({
            "loaded_eagerly": loaded,
            "other_tables_changed": changed,
            "listed_but_eager": [getattr(f, "__name__", str(f)) for f in listed_f if f in eager_f]
                                + [n for n in listed_m if n in eager_m],
            "functions_match": new_f == listed_f,
            "methods_match": new_m == listed_m,
            "unlisted": sorted(getattr(f, "__name__", str(f)) for f in set(new_f) - set(listed_f)),
        }))
    """)
    assert got == {"loaded_eagerly": [], "other_tables_changed": [], "listed_but_eager": [],
                   "functions_match": True,
                   "methods_match": True, "unlisted": []}


def test_lazy_handlers_from_a_fresh_interpreter(tmp_path):
    got = _run(tmp_path, """
        import json, sys
        import numpy as np
        import pyhalide as ph

        def f(a):
            s = a.copy()
            s.sort()
            return np.median(a), np.nanmedian(a), s, np.sort(a), a.argsort(kind="stable")

        def g(a):
            return a.sum(axis=0)

        a = np.array([3.0, 1.0, np.nan, 2.0, 7.0, 1.0, 0.5])
        b = np.abs(np.nan_to_num(a))
        ph.pipeline(g)(b.reshape(7, 1))
        before = "pyhalide.frontend_ast.array_sort" in sys.modules
        got, want = ph.pipeline(f)(b), f(b)
        same = all(np.array_equal(x, y) for x, y in zip(got, want))
        got2, want2 = ph.pipeline(f)(a), f(a)
        same2 = all(np.array_equal(x, y, equal_nan=True) for x, y in zip(got2, want2))
        print(json.dumps({"sort_before": before, "same": same, "same_nan": same2}))
    """)
    assert got == {"sort_before": False, "same": True, "same_nan": True}
