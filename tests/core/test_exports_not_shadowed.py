"""The package exports lazily; a submodule named like an export would be
bound over it by Python's import system as soon as anything imports the
submodule (the decorator `ph.pipeline` became the module pyhalide.pipeline
after `import pyhalide.pipeline`: a user's `@ph.pipeline` then called a
module). No export may share its name with a submodule."""
import subprocess
import sys

PROBE = """
import importlib, pkgutil, types
import pyhalide
for m in pkgutil.walk_packages(pyhalide.__path__[:1], "pyhalide."):
    if not m.name.endswith("__main__"):        # a script (`python -m ...`) runs
        importlib.import_module(m.name)
bad = [n for n in pyhalide._EXPORTS if isinstance(getattr(pyhalide, n), types.ModuleType)]
print(" ".join(bad) or "none")
"""


def test_every_export_is_its_object_after_all_submodules_are_imported():
    run = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["none"], run.stdout
