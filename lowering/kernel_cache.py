"""Whole kernels in the on-disk cache, keyed by what the user wrote, so that a
new process with a warm cache runs no lowering pass either.

    load_kernel(graph_key) -> Kernel | None
    store_kernel(graph_key, kernel) -> None

`graph_key` is the in-memory key of Pipeline._kernel (the graph fingerprint:
algorithm, schedules, input and param types; plus which buffers are dense).
The on-disk key adds the target, the llvmlite/LLVM versions and a hash of
the sizes and times of pyhalide's own source files, so that any change to the compiler invalidates every
entry. An entry is a small manifest (the Kernel's buffers, params, error
records, whether it runs parallel loops, and the key of its object file in
jit's object cache); the object itself is jit's cached object. A missing,
unreadable or stale entry is a miss: lowering and compilation then run as
usual and store a fresh entry.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle

import llvmlite
import llvmlite.binding as llvm

from pyhalide.ir.config import config, debug_print
from . import jit
from .codegen_llvm import entry_symbol
from .target import check_runs_on_host, parse_target

_MAGIC = b"PYHALIDE-KERNEL1\n"
_source_hash = None


def _compiler_source_hash() -> str:
    """A hash of the path, size and modification time of every .py file of
    the installed pyhalide package (lowering, tables and frontend included,
    wherever their folders live), as Python's own bytecode cache judges
    staleness: computed once per process."""
    global _source_hash
    if _source_hash is None:
        dirs = set()
        for name in ("pyhalide", "pyhalide.lowering", "pyhalide.tables",
                     "pyhalide.frontend_ast"):
            spec = importlib.util.find_spec(name)
            if spec is not None and spec.submodule_search_locations:
                dirs.update(os.path.abspath(d) for d in spec.submodule_search_locations)
        h = hashlib.sha256()
        for d in sorted(dirs):
            for base, subdirs, files in os.walk(d):
                subdirs[:] = sorted(s for s in subdirs if s != "__pycache__")
                for f in sorted(files):
                    if f.endswith(".py"):
                        path = os.path.join(base, f)
                        st = os.stat(path)
                        h.update(f"{os.path.relpath(path, d)}:{st.st_size}:{st.st_mtime_ns}\n"
                                 .encode())
        _source_hash = h.hexdigest()
    return _source_hash


def _disk_key(graph_key: str) -> tuple:
    t = parse_target(config.target)
    h = hashlib.sha256()
    for part in (graph_key, t.key(), llvmlite.__version__,
                 ".".join(map(str, llvm.llvm_version_info)), _compiler_source_hash()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest(), t


def _path(key: str):
    d = config.cache_dir
    return os.path.join(d, key[:2], key + ".kernel") if d else None


def load_kernel(graph_key: str):
    """The Kernel stored for `graph_key`, loaded from the object cache, or None."""
    if not config.cache_dir:
        return None
    key, t = _disk_key(graph_key)
    try:
        with open(_path(key), "rb") as f:
            data = f.read()
    except OSError:
        return None
    if not data.startswith(_MAGIC):
        return None
    try:
        name, buffers, params, errors, parallel, object_key = pickle.loads(data[len(_MAGIC):])
    except Exception:                      # a corrupt or foreign file is a miss
        return None
    obj = jit._cache_load(object_key)
    if obj is None:
        return None
    check_runs_on_host(t)
    with jit._lock:
        engine, address = jit.load_entry(obj, t, jit._target_machine(t), entry_symbol(name),
                                         parallel)
    debug_print(1, f"pyhalide: {name}: kernel cache hit (no lowering, no LLVM work)")
    return jit.make_kernel(name, engine, address, buffers, params, errors, parallel, object_key)


def store_kernel(graph_key: str, kernel) -> None:
    """Record `kernel` (compiled for the current target) under `graph_key`."""
    object_key = getattr(kernel, "object_key", None)
    if not config.cache_dir or object_key is None:
        return
    key, _ = _disk_key(graph_key)
    path = _path(key)
    payload = pickle.dumps((kernel.name, kernel.buffers, kernel.params, kernel.errors,
                            kernel.parallel, object_key))
    jit.write_cache_file(path, _MAGIC + payload, "kernel cache")
