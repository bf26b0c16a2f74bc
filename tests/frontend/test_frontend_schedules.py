"""Schedules of @pipeline functions: `schedule=`, `@p.schedule`, "serial",
per-architecture side files chosen by PYHALIDE_TARGET, and Func / loop
variable lookups by Python name with the valid names in errors."""
import importlib.util
import os
import textwrap

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.targets import parse_target, rank_side_files
from tests.frontend.frontend_check import check

SCRIPT = '''
import numpy as np
import pyhalide as ph


@ph.pipeline
def histo(img):
    h = np.zeros(256, np.int32)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            h[img[y, x]] += 1
    return h
'''


def side_file(label):
    return textwrap.dedent(f'''
        def histo(p):
            p.funcs["h"].compute_root()
            p.label = {label!r}
        ''')


def make_script(tmp_path, files, name="schedmod"):
    script = tmp_path / f"{name}.py"
    script.write_text(SCRIPT)
    folder = tmp_path / f"{name}_schedules"
    folder.mkdir()
    for fn, text in files.items():
        (folder / fn).write_text(text)
    spec = importlib.util.spec_from_file_location(f"_fe_{name}_{id(tmp_path)}", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, folder


ALL = ["x86-64-avx512.py", "x86-64-avx2.py", "x86-64.py", "arm-64.py", "generic.py"]


@pytest.mark.parametrize("target,expected", [
    ("x86-64-avx512", "x86-64-avx512.py"),
    ("x86-64-avx512_skylake", "x86-64-avx512.py"),
    ("x86-64-avx2", "x86-64-avx2.py"),
    ("x86-64-linux-avx2-fma", "x86-64-avx2.py"),
    ("x86-64-sse41", "x86-64.py"),
    ("x86-64", "x86-64.py"),
    ("arm-64-linux", "arm-64.py"),
    ("arm-32", "generic.py"),
    ("generic", "generic.py"),
])
def test_side_file_ranking(tmp_path, target, expected):
    for fn in ALL:
        (tmp_path / fn).write_text("")
    ranked = rank_side_files(str(tmp_path), parse_target(target))
    assert os.path.basename(ranked[0]) == expected
    assert os.path.basename(ranked[-1]) == "generic.py"


def test_host_target_has_features():
    t = parse_target("host")
    assert t.arch in ("x86", "arm") and t.bits == 64
    if "avx2" in t.features:
        assert "avx" in t.features and "sse41" in t.features


def test_side_file_selected_by_pyhalide_target(tmp_path, monkeypatch):
    mod, folder = make_script(tmp_path, {fn: side_file(fn) for fn in ALL})
    img = np.random.default_rng(5).integers(0, 256, (9, 13), dtype=np.uint8)
    for target, expected in (("x86-64-avx2", "x86-64-avx2.py"), ("arm-64", "arm-64.py"),
                             ("x86-64-avx512", "x86-64-avx512.py")):
        monkeypatch.setenv("PYHALIDE_TARGET", target)
        p = ph.pipeline(mod.histo.py_func)        # a fresh pipeline: schedules per specialization
        check(p, img)
        assert os.path.basename(p.applied_schedule) == expected


def test_side_file_without_the_function_falls_back(tmp_path, monkeypatch):
    files = {"x86-64-avx2.py": "def other(p):\n    pass\n", "generic.py": side_file("generic")}
    mod, folder = make_script(tmp_path, files, name="fallback")
    monkeypatch.setenv("PYHALIDE_TARGET", "x86-64-avx2")
    img = np.zeros((3, 3), np.uint8)
    check(mod.histo, img)
    assert os.path.basename(mod.histo.applied_schedule) == "generic.py"


def test_serial_ignores_side_files(tmp_path, monkeypatch):
    files = {"generic.py": "def histo(p):\n    raise RuntimeError('must not run')\n"}
    mod, folder = make_script(tmp_path, files, name="serialmod")
    p = ph.pipeline(mod.histo.py_func, schedule="serial")
    check(p, np.ones((2, 2), np.uint8))
    assert p.applied_schedule is None
    with pytest.raises(RuntimeError, match="must not run"):
        mod.histo(np.ones((2, 2), np.uint8))


def test_schedule_path_file_and_folder(tmp_path, monkeypatch):
    mod, folder = make_script(tmp_path, {"generic.py": side_file("g"),
                                         "x86-64-avx2.py": side_file("a")}, name="pathmod")
    one = tmp_path / "one.py"
    one.write_text(side_file("one"))
    p = ph.pipeline(mod.histo.py_func, schedule=str(one))
    check(p, np.ones((2, 2), np.uint8))
    assert p.applied_schedule.endswith("one.py")
    monkeypatch.setenv("PYHALIDE_TARGET", "arm-64")
    q = ph.pipeline(mod.histo.py_func, schedule=str(folder))
    check(q, np.ones((2, 2), np.uint8))
    assert q.applied_schedule.endswith("generic.py")


# schedules in code ---------------------------------------------------------------------------
@ph.pipeline
def blur_rows(img):
    H, W = img.shape
    tmp = np.zeros((H, W - 2), np.float32)
    for y in range(H):
        for x in range(W - 2):
            tmp[y, x] = img[y, x] + img[y, x + 1] + img[y, x + 2]
    out = np.zeros((H - 2, W - 2), np.float32)
    for y in range(H - 2):
        for x in range(W - 2):
            out[y, x] = (tmp[y, x] + tmp[y + 1, x] + tmp[y + 2, x]) / 9
    return out


@ph.pipeline
def hist2(img):
    h = np.zeros(256, np.int64)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            h[img[y, x]] += 1
    out = np.zeros((img.shape[0], img.shape[1]), np.int64)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            out[y, x] = h[img[y, x]]
    return out


def test_funcs_and_vars_by_python_name():
    seen = {}

    def sched(p):
        seen["tmp"] = p.funcs["tmp"]
        seen["y"] = p.vars["tmp", "y"]
        seen["args"] = [v.name() for v in p.funcs["out"].args()]
        p.funcs["tmp"].compute_root()
        with pytest.raises(KeyError) as e:
            p.funcs["nope"]
        assert "tmp" in str(e.value) and "out" in str(e.value)
        with pytest.raises(KeyError) as e:
            p.vars["y"]
        assert "p.vars['tmp', 'y']" in str(e.value) and "p.vars['out', 'y']" in str(e.value)
        with pytest.raises(KeyError) as e:
            p.vars["q"]
        assert "x" in str(e.value) and "y" in str(e.value)

    p = ph.pipeline(blur_rows.py_func, schedule=sched)
    img = np.random.default_rng(3).random((8, 10)).astype(np.float32)
    check(p, img)
    assert isinstance(seen["tmp"], ph.Func) and seen["y"].name() == "y"
    assert seen["args"] == ["x", "y"]            # axes as ph.Buffer: a[y, x] is a(x, y)
    assert p.funcs["tmp"] is seen["tmp"]


def test_unknown_name_in_schedule_fails_with_valid_names():
    p = ph.pipeline(hist2.py_func, schedule=lambda p: p.funcs["hist"].compute_root())
    with pytest.raises(ph.CompileError) as e:
        p(np.zeros((2, 2), np.uint8))
    assert "'h'" in str(e.value) or "h," in str(e.value)
    assert isinstance(e.value, KeyError)
    q = ph.pipeline(hist2.py_func, schedule=lambda p: p.vars["h", "z"])
    with pytest.raises(KeyError) as e:
        q(np.zeros((2, 2), np.uint8))
    assert "x" in str(e.value) and "y" in str(e.value)


def test_schedule_decorator_registers_and_returns():
    p = ph.pipeline(hist2.py_func)
    calls = []

    @p.schedule
    def my_schedule(q):
        calls.append(q.funcs["h"])
        q.funcs["h"].compute_root()

    assert callable(my_schedule) and my_schedule.__name__ == "my_schedule"
    img = np.random.default_rng(1).integers(0, 256, (5, 6), dtype=np.uint8)
    check(p, img)
    check(p, img.astype(np.uint16))               # a new specialization runs it again
    assert len(calls) == 2


def test_split_vectorize_parallel_schedule():
    def sched(p):
        out = p.funcs["out"]
        x, y = p.vars["out", "x"], p.vars["out", "y"]
        xo, xi = ph.Var("xo"), ph.Var("xi")
        out.split(x, xo, xi, 8).vectorize(xi)
        out.parallel(y)
        p.funcs["tmp"].compute_root()

    p = ph.pipeline(blur_rows.py_func, schedule=sched)
    img = np.random.default_rng(4).random((37, 45)).astype(np.float32)
    check(p, img)


def test_rfactor_schedule():

    @ph.pipeline
    def total(a):
        s = np.int32(0)
        for i in range(len(a)):
            s += a[i]
        return s

    @total.schedule
    def _(p):
        f = p.funcs["s"]
        ro, ri = ph.RVar("ro"), ph.RVar("ri")
        u = ph.Var("u")
        f.update(0).split(p.vars["i"], ro, ri, 64)
        f.update(0).rfactor(ro, u).compute_root()

    a = np.random.default_rng(8).integers(-9, 9, 1000).astype(np.int32)
    check(total, a)


HERE = __file__


def _double(a):
    out = np.empty(a.shape[0], np.int32)
    for i in range(a.shape[0]):
        out[i] = a[i] * 2
    return out


def test_schedule_name_error_gives_the_schedule_line():
    def sched(p):
        p.funcs["nope"].compute_root()
    line = sched.__code__.co_firstlineno + 1
    double = ph.pipeline(_double, schedule=sched)
    with pytest.raises(ph.CompileError) as e:
        double(np.arange(4, dtype=np.int32))
    assert type(e.value).__name__ == "ScheduleNameError"
    assert str(e.value) == ("_double has no Func named 'nope'; valid names: out\n"
                            f"  at {HERE}:{line}: p.funcs[\"nope\"].compute_root()")
