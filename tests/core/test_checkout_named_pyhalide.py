"""A checkout in a folder named pyhalide/, with Python started in the folder that
contains it: `import pyhalide` must still be the package (README: the install
command's editable_mode=compat puts the checkout on sys.path, and the package
searches the checkout root for its mapped subpackages)."""
import os
import subprocess
import sys

import pyhalide

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(pyhalide.__file__)))

PROBE = """
import pyhalide
print(pyhalide.Buffer.__module__)
import pyhalide.lowering, pyhalide.tables, pyhalide.frontend_ast
print(pyhalide.lowering.__name__)
"""


def test_parent_folder_of_a_checkout_named_pyhalide(tmp_path):
    os.symlink(CHECKOUT, tmp_path / "pyhalide")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["pyhalide.buffer", "pyhalide.lowering"]
