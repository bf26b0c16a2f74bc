"""The frontend's definitions do not depend on the hash seed (session 26):
a while loop inside a for loop carries `key, j` and the flags loop_exits.py
adds, which share their statement's location; their tuple members were
ordered by iterating a set (analyze.carried), so each process got another
member order, another LLVM IR text and another disk cache key. The
`pyhalide lower --stage defs` text of the kernel is compared between two
fresh interpreters with different PYTHONHASHSEED (the seeds 1 and 2 gave
different orders before the fix); the kernel is test_insertion_lo25's,
written to a file as an @pipeline."""
from __future__ import annotations

import inspect
import os
import subprocess
import sys

from tests.frontend.test_insertion_lo25 import insertion_between

_HEAD = "import pyhalide as ph\n\n\n@ph.pipeline\n"


def _defs(path, seed: int) -> str:
    env = dict(os.environ, PYHALIDE_CACHE_DIR="0", PYTHONHASHSEED=str(seed))
    out = subprocess.run([sys.executable, "-m", "pyhalide.cli", "lower",
                          f"{path}::insertion_between", "--stage", "defs",
                          "--args", "a=float64[20]", "--args", "lo=0", "--args", "hi=20"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_while_state_members_do_not_depend_on_the_hash_seed(tmp_path):
    path = tmp_path / "kernel_h26.py"
    path.write_text(_HEAD + inspect.getsource(insertion_between))
    one, two = _defs(path, 1), _defs(path, 2)
    # the carried state of the while loop: key, j and two flags
    heads = [line for line in one.splitlines() if line.startswith("Func key_j")]
    assert len(heads) == 1 and heads[0].count("bool") == 2, one
    assert one == two
