"""The scripts under examples/ as modules, loaded by file path (examples/ is
not a package; each script puts its own folder on sys.path for the siblings
it imports)."""
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")


def load_example(relpath, name=None):
    """The module of examples/<relpath>, registered as `name` (by default the
    file's stem, the name the examples import each other by); a module of
    that name already loaded from the same file is returned as it is."""
    path = os.path.join(EXAMPLES, relpath)
    name = name or os.path.splitext(os.path.basename(relpath))[0]
    loaded = sys.modules.get(name)
    if loaded is not None and os.path.abspath(getattr(loaded, "__file__", "")) == path:
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod
