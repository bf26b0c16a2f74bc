"""Not the pyhalide package: the root of a pyhalide checkout (the package is
its `pyhalide/` folder, installed by `pip install -e .`).

Python runs this file when it imports the checkout's folder as a package:
pytest does (as the folder's name), and so does `import pyhalide` in a
Python started in the folder that contains a checkout named `pyhalide`.
Without this file that import would find the checkout as an empty namespace
package, which shadows the installed package ("module 'pyhalide' has no
attribute 'Buffer'"). Imported as `pyhalide`, it imports the package that the
rest of sys.path provides instead, as Python does for a non-editable install,
or says what is wrong when there is none. Under any other name it does
nothing.
"""
import importlib as _importlib
import os as _os
import sys as _sys

if __name__ == "pyhalide":
    _here = _os.path.dirname(_os.path.abspath(__file__))
    _parent = _os.path.dirname(_here)

    def _is_parent(entry: str) -> bool:
        p = _os.path.abspath(entry or _os.curdir)
        return p == _parent or _os.path.realpath(p) == _os.path.realpath(_parent)

    _saved = list(_sys.path)
    _sys.path[:] = [p for p in _sys.path if not _is_parent(p)]
    _me = _sys.modules.pop(__name__)
    try:
        _package = _importlib.import_module(__name__)
    except ImportError as e:
        _sys.modules[__name__] = _me
        raise ImportError(
            f"'import pyhalide' found the folder {_here}, a checkout of pyhalide's source, not "
            f"the package: Python started in {_parent}, which contains the checkout, and "
            f"pyhalide is not installed ({e}). Install it (pip install -e {_here}) or start "
            f"Python in another folder.", name=__name__) from None
    finally:
        _sys.path[:] = _saved
    _sys.modules[__name__] = _package
