"""The parallel runtime's object compiled ahead (parallel_runtime.start_compiling:
compile_pipeline starts it on another thread before the code generation of a
kernel with parallel loops) and llvmlite's lock renewed in a forked child
(llvm_objects). Each check runs in a fresh process: the runtime is compiled
once per process."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A parallel Func pipeline compared with NumPy, after `before` ran.
_SCRIPT = """
import os, threading
os.environ["PYHALIDE_CACHE_DIR"] = "0"
import numpy as np
import pyhalide as ph
from pyhalide.ir.config import override
from pyhalide.lowering import runtime_ahead as R

compiles = []            # (name, thread name) of each compile ahead
real = R.runtime_object

def spy(ir_text, name, unlocked=False):
    assert unlocked
    compiles.append((name, threading.current_thread().name))
    if FAIL_AHEAD:
        raise RuntimeError("compile ahead failed")
    return real(ir_text, name, unlocked)

R.runtime_object = spy
R.enabled = lambda: True     # (whatever the machine's load)
FAIL_AHEAD = {fail}

def check():
    x, y, f = ph.Var("x"), ph.Var("y"), ph.Func("f")
    f[x, y] = x * 3 + y * y
    f.parallel(y)
    with override(num_threads=2):
        got = np.asarray(f.realize([37, 53]))
    want = np.arange(37)[None, :] * 3 + (np.arange(53) ** 2)[:, None]
    assert np.array_equal(got, want), (got, want)

check()
check()
print("COMPILES", sorted(compiles))
"""


def _run(script: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", script], env=env, check=False,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


_AHEAD = ("COMPILES [('pyhalide_entry_runtime', 'pyhalide-runtime-compile'), "
          "('pyhalide_parallel_runtime', 'pyhalide-runtime-compile'), "
          "('pyhalide_sigint_runtime', 'pyhalide-runtime-compile')]")


def test_the_runtimes_are_compiled_ahead_once_on_their_own_thread():
    """The first compile of a process starts the three runtimes (the entry
    and SIGINT ones from lowering, the parallel one from compile_pipeline);
    the second kernel's compile starts none (each is compiled once)."""
    assert _AHEAD in _run(_SCRIPT.format(fail=False))


def test_a_failed_compile_ahead_is_compiled_again_at_load():
    """(the compiles at load are llvm_objects.load_runtime_module's own: the
    spy does not see them; the kernels' results show the runtimes loaded)"""
    assert _AHEAD in _run(_SCRIPT.format(fail=True))


def test_a_child_forked_while_a_thread_is_inside_llvmlite_compiles():
    """llvmlite's lock held by another thread at the fork (as a compile
    thread holds it while it parses): the child compiles and runs a
    kernel (before llvm_objects renewed that lock, the child hung)."""
    script = textwrap.dedent("""
        import os, threading, time
        os.environ["PYHALIDE_CACHE_DIR"] = "0"
        import numpy as np
        import pyhalide as ph
        from llvmlite.binding import ffi
        held, release = threading.Event(), threading.Event()

        def hold():
            with ffi.lib._lock:
                held.set()
                release.wait()
        t = threading.Thread(target=hold)
        t.start()
        held.wait()
        pid = os.fork()
        if pid == 0:
            x, f = ph.Var("x"), ph.Func("f")
            f[x] = x * 5 - 2
            ok = np.array_equal(np.asarray(f.realize([20])), np.arange(20) * 5 - 2)
            os._exit(0 if ok else 1)
        for _ in range(600):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.1)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            raise SystemExit("the child hung")
        release.set()
        t.join()
        assert os.waitstatus_to_exitcode(status) == 0, status
        print("CHILD OK")
    """)
    assert "CHILD OK" in _run(script)


def test_nothing_is_compiled_ahead_with_one_thread():
    """PYHALIDE_NUM_THREADS=1 (config.num_threads 1): no thread of its own;
    the loaders compile as before (take() has nothing)."""
    from pyhalide.ir.config import override
    from pyhalide.lowering import runtime_ahead
    with override(num_threads=1):
        assert not runtime_ahead.enabled()
        runtime_ahead.start([("test_runtime_ahead25_unused", "define void @f() { ret void }")])
    assert runtime_ahead.take("test_runtime_ahead25_unused") is None


def test_compile_here_gives_take_an_object_that_loads():
    import ctypes

    from pyhalide.lowering import runtime_ahead
    from pyhalide.lowering.llvm_objects import load_runtime_module
    ir_text = "define i32 @test_runtime_ahead25_seven() {\n  ret i32 7\n}\n"
    runtime_ahead.compile_here([("test_runtime_ahead25", ir_text)])
    obj = runtime_ahead.take("test_runtime_ahead25")
    assert obj is not None
    engine, addrs = load_runtime_module(ir_text, "test_runtime_ahead25",
                                        ["test_runtime_ahead25_seven"], obj)
    assert ctypes.CFUNCTYPE(ctypes.c_int32)(addrs["test_runtime_ahead25_seven"])() == 7
    assert runtime_ahead.take("test_runtime_ahead25") is None      # taken once


def test_an_idle_llvm_thread_compiles_the_runtimes_of_a_split_kernel():
    """No thread of its own (a busy machine): a kernel of two parallel
    loops, its module split in parts (the split's size limit lowered for
    the test), has the runtimes it loads compiled by the compile thread
    that finishes its part first; the result is checked."""
    script = textwrap.dedent("""
        import os
        os.environ["PYHALIDE_CACHE_DIR"] = "0"
        import numpy as np
        import pyhalide as ph
        from pyhalide.ir.config import override
        from pyhalide.lowering import jit, split_module
        from pyhalide.lowering import runtime_ahead as R
        jit.MIN_SPLIT_LINES = split_module.MIN_SPLIT_LINES = 10
        R.enabled = lambda: False
        names = []
        real = R.runtime_object

        def spy(ir_text, name, unlocked=False):
            names.append(name)
            return real(ir_text, name, unlocked)
        R.runtime_object = spy
        x, y, f, g = ph.Var("x"), ph.Var("y"), ph.Func("f"), ph.Func("g")
        f[x, y] = x * 7 - y
        g[x, y] = f[x, y] * 2 + f[x, y] * y
        f.compute_root().parallel(y)
        g.parallel(y)
        with override(num_threads=2, debug=1):
            got = np.asarray(g.realize([23, 19]))
        xs, ys = np.arange(23)[None, :], np.arange(19)[:, None]
        want = (xs * 7 - ys) * 2 + (xs * 7 - ys) * ys
        assert np.array_equal(got, want)
        print("AHEAD", sorted(names))
    """)
    out = _run(script)
    assert "AHEAD ['pyhalide_entry_runtime', 'pyhalide_parallel_runtime']" in out
