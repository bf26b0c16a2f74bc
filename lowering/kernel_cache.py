"""Whole kernels in the on-disk cache, keyed by what the user wrote, so that a
new process with a warm cache runs no lowering pass either.

    load_kernel(graph_key) -> Kernel | None
    store_kernel(graph_key, kernel) -> None

`graph_key` is the in-memory key of Pipeline._kernel (the graph fingerprint:
algorithm, schedules, input and param types, independent of the names of
Funcs, Vars, RVars, images and Params; plus which buffers are dense).
The on-disk key adds the target, the LLVM options (config.llvm_pipeline's:
jit.default_options), the llvmlite/LLVM versions and a hash of
the sizes and times of pyhalide's own source files, so that any change to
the compiler invalidates every entry. An entry (disk_cache.py: JSON, never
code) is a manifest of the Kernel's buffers, params, error records, whether
it runs parallel loops, the names it was compiled with by canonical token
(Kernel.names: a graph with other names gets it renamed), the row extents it
was specialized on (Kernel.rows: lowering/specialize_rows.py), and the key and
sha256 of its object in jit's object cache, plus the target and compiler
hash it was made for. A missing,
unreadable, stale or foreign entry (another key, target or compiler; an
object whose digest differs) is a miss: lowering and compilation then run
as usual and store a fresh entry.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os

import llvmlite
import llvmlite.binding as llvm

from pyhalide import ir
from pyhalide.ir.config import config, debug_print

from . import disk_cache, jit
from .codegen_llvm import ErrorRecord, entry_symbol
from .runtime import BufferArg
from .target import check_runs_on_host, parse_target

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
    for part in (graph_key, t.key(), jit.default_options().key(), llvmlite.__version__,
                 ".".join(map(str, llvm.llvm_version_info)), _compiler_source_hash()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest(), t


def _type_fields(t: ir.Type) -> list:
    return [t.code, t.bits, t.lanes]


def _to_manifest(kernel, obj_digest: str) -> dict:
    return {
        "name": kernel.name,
        "buffers": [[b.name, _type_fields(b.type), b.dimensions, b.is_output]
                    for b in kernel.buffers],
        "params": [[p.name, _type_fields(p.type)] for p in kernel.params],
        "errors": [[e.error, e.message, list(e.arg_kinds)] for e in kernel.errors],
        "parallel": kernel.parallel,
        "object_key": kernel.object_key,
        "object_sha256": obj_digest,
        "names": sorted([t, n] for t, n in kernel.names.items()),
        "rows": sorted([t, v] for t, v in getattr(kernel, "rows", {}).items()),
    }


def _from_manifest(m: dict):
    """(name, buffers, params, errors, parallel, object_key, object digest,
    names, rows) of a manifest; raises (TypeError, ValueError, KeyError) on a
    malformed one."""
    def text(v):
        if not isinstance(v, str):
            raise TypeError(f"expected a string, not {v!r}")
        return v

    def typ(v):
        code, bits, lanes = v
        return ir.Type(text(code), int(bits), int(lanes))

    buffers = [BufferArg(text(n), typ(t), int(d), bool(o)) for n, t, d, o in m["buffers"]]
    params = [ir.ScalarParam(text(n), typ(t)) for n, t in m["params"]]
    errors = [ErrorRecord(text(e), text(msg), tuple(text(k) for k in kinds))
              for e, msg, kinds in m["errors"]]
    names = {text(t): text(n) for t, n in m["names"]}
    rows = {text(t): int(v) for t, v in m.get("rows", [])}
    return (text(m["name"]), buffers, params, errors, bool(m["parallel"]),
            text(m["object_key"]), text(m["object_sha256"]), names, rows)


def load_kernel(graph_key: str):
    """The Kernel stored for `graph_key`, loaded from the object cache, or None."""
    if not config.cache_dir:
        return None
    key, t = _disk_key(graph_key)
    entry = disk_cache.read_entry(key, "kernel", _expect(t))
    if entry is None:
        return None
    try:
        name, buffers, params, errors, parallel, object_key, digest, names, rows = \
            _from_manifest(entry[0])
    except (TypeError, ValueError, KeyError):          # a malformed manifest is a miss
        return None
    obj = jit.cached_object(object_key, t)
    if obj is None or hashlib.sha256(obj).hexdigest() != digest:
        return None
    check_runs_on_host(t)
    with jit.llvm_lock():
        engine, address = jit.load_entry(obj, t, jit.target_machine(t), entry_symbol(name),
                                         parallel)
    debug_print(1, f"pyhalide: {name}: kernel cache hit (no lowering, no LLVM work)")
    kernel = jit.make_kernel(name, engine, address, buffers, params, errors, parallel,
                             object_key)
    kernel.names = names
    kernel.rows = rows
    return kernel


def store_kernel(graph_key: str, kernel) -> None:
    """Record `kernel` (compiled for the current target) under `graph_key`."""
    object_key = getattr(kernel, "object_key", None)
    if not config.cache_dir or object_key is None or kernel.lazy is not None:
        return          # (a lazy kernel's whole kernel is compiled from what lowering kept)
    key, t = _disk_key(graph_key)
    obj = jit.cached_object(object_key, t)         # the entry records this object's digest
    if obj is not None:
        manifest = _to_manifest(kernel, hashlib.sha256(obj).hexdigest())
        disk_cache.write_entry(key, "kernel", {**manifest, **_expect(t)}, b"")


def _expect(t) -> dict:
    """The manifest fields that must match this process: the target and the
    compiler's sources."""
    return {"target": t.key(), "compiler": _compiler_source_hash()}
