"""Insertion-sort-like shifting `while` loops in the forms session 21 made
compile or made right (frontend_ast/while_exit_write.py, loop_cycles.py,
ir.Definition.exit_moves, docs/while_exit.md):
- counting up (`while j < n and a[j] < key: a[j - 1] = a[j]; j += 1`),
  refused in session 20 (its kernel ran 2**31 - 1 iterations);
- gap-g steps both ways (`j -= 2`), refused ("must have step 1 or -1");
- the element to insert bound as `key, j = a[i], i - 1`, `float(a[i]) *
  1.0`, through another name or by `+=`: a WRONG RESULT until session 21
  (the loop read the element as it had overwritten it: [0.05, 0.29, 0.52,
  0.81, 0.81] sorted to [0.81, 0.81, 0.81, 0.81, 0.81]).
The kernels differ only in these parts, so they are made from one template
(written to a module file: @pipeline reads their source). Plain Python is
the oracle: the result, the array in place, the exception type; and each
compiled loop is left early ("exit loop")."""
import importlib.util
import tempfile
from pathlib import Path

import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both
from .test_insertion_sort import _inputs

_TEMPLATE = '''
def {name}(a):
    n = a.shape[0]
    for i in {outer}:
        {bind}
        while {test}:
            a[j {back} {g}] = a[j]
            {step}
        a[j {back} {g}] = key
    return a
'''

# name: (outer range, binding of key and j, test, direction of the write, gap, step)
_FORMS = {
    "key_tuple": ("range(1, n)", "key, j = a[i], i - 1", "j >= 0 and a[j] > key", "+", 1,
                  "j -= 1"),
    "key_float": ("range(1, n)", "key = float(a[i]) * 1.0; j = i - 1", "j >= 0 and a[j] > key",
                  "+", 1, "j -= 1"),
    "key_through_name": ("range(1, n)", "k0 = a[i]; key = k0; j = i - 1",
                         "j >= 0 and key < a[j]", "+", 1, "j = j - 1"),
    "key_augmented": ("range(1, n)", "key = 0.0; key += a[i]; j = i - 1",
                      "j >= 0 and a[j] > key", "+", 1, "j -= 1"),
    "isort_up": ("range(n - 2, -1, -1)", "key = a[i]; j = i + 1", "j < n and a[j] < key", "-", 1,
                 "j += 1"),
    "isort_up_le": ("range(n - 2, -1, -1)", "key = a[i]; j = i + 1",
                    "j <= n - 1 and key > a[j]", "-", 1, "j = j + 1"),
    "gap2_up": ("range(n - 3, -1, -1)", "key, j = a[i], i + 2", "j < n and a[j] < key", "-", 2,
                "j += 2"),
    "gap2_down": ("range(2, n)", "key = a[i]; j = i - 2", "j >= 0 and key < a[j]", "+", 2,
                  "j -= 2"),
    "gap3_down": ("range(3, n)", "key, j = a[i], i - 3", "j > -1 and a[j] > key", "+", 3,
                  "j = j - 3"),
}


def _kernels():
    src = "".join(_TEMPLATE.format(name=k, outer=o, bind=b, test=t, back=d, g=g, step=s)
                  for k, (o, b, t, d, g, s) in _FORMS.items())
    path = Path(tempfile.mkdtemp(prefix="pyhalide_shifting_")) / "shifting_kernels.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("shifting_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return {k: ph.pipeline(getattr(mod, k)) for k in _FORMS}


KERNELS = _kernels()


SIZES = [0, 1, 2, 3, 4, 5, 8, 33]


def _shifting_runs(dtype):
    for n in SIZES:
        rng = np.random.default_rng(100 + n)
        for a in _inputs(rng, n):
            if a.dtype != dtype:
                continue
            for name, p in KERNELS.items():
                if name == "key_float" and a.dtype != np.float64:
                    continue    # (float(a[i]) is a Python float: float64 arrays keep it exact)
                run_both(p, a)


def _specials_and_numpy_sort():
    for a in (np.array([3.0, np.nan, 1.0, 2.0, np.nan, 0.5, -1.0]),
              np.array([np.inf, -np.inf, 1.0, np.nan, -1.0]),
              np.array([0.0, -0.0, 0.0, -0.0, 1.0])):
        for p in KERNELS.values():
            run_both(p, a)
    a = np.random.default_rng(8).random(201)
    for name, p in KERNELS.items():
        b = a.copy()
        p(b)
        g = _FORMS[name][4]
        for r in range(g):      # a gap-g pass sorts each residue class
            assert np.array_equal(b[r::g], np.sort(a[r::g])), name
        assert "exit loop" in p.lower("loops"), name


# each form compiles one kernel per dtype (~0.5 s CPU, most of it lowering),
# so the sizes, the special values and the sort run in one test (split
# across xdist workers, each worker compiled every form again); the default
# run takes the float64 inputs (every form, every size); float32 inputs and
# int64 arrays (the same loops on another element type) run as slow
def test_shifting_loops_specials_and_numpy_sort():
    _shifting_runs(np.float64)
    _specials_and_numpy_sort()


@pytest.mark.slow
def test_shifting_loops_of_float32():
    _shifting_runs(np.float32)


@pytest.mark.slow
def test_int64_arrays():
    a = np.random.default_rng(7).integers(-5, 5, 25)
    for p in KERNELS.values():
        run_both(p, a)
