"""Entries of the on-disk cache (config.cache_dir), in a format that cannot
run code when read: no pickle, only JSON and raw bytes.

    read_entry(key, kind, expect) -> (manifest, payload) | None
    write_entry(key, kind, manifest, payload) -> None

An entry is the file <cache_dir>/<key[:2]>/<key>.<kind>: a magic line, one
line of JSON (the manifest), then the payload bytes. The manifest records the
entry's full key, its kind, the pyhalide version, the size and sha256 of the
payload, and whatever the writer adds (the target, ...). Reading verifies all
of them, and the fields of `expect`: an entry copied from another key, made
by another version or for another target, or with a payload that does not
match its digest is a miss, and its payload is not returned.

The directory is used only when pyhalide.ir.cache_trust trusts it (owned by the
current user or root, not writable by others, every component of its path
too): a payload is native code, and whoever can write the cache can run code
in every process that loads it. Otherwise the cache is off (said once on
stderr). Write failures are reported at PYHALIDE_DEBUG=1 and ignored.
"""
from __future__ import annotations

import hashlib
import json
import os

from pyhalide.ir import cache_trust
from pyhalide.ir.config import config, debug_print
from pyhalide.ir.version import __version__

_MAGIC = b"PYHALIDE-CACHE2\n"
_HINT = ("Fix: make it (and its parents) yours and not writable by others "
         "(chmod go-w), or set PYHALIDE_CACHE_DIR to such a directory, or to 0 to "
         "turn the cache off.")


def _rel(key: str, kind: str) -> str:
    return os.path.join(key[:2], f"{key}.{kind}")


def _why_not(manifest, key: str, kind: str, payload: bytes, expect: dict) -> str | None:
    """Why a parsed entry does not belong to `key`, or None."""
    if not isinstance(manifest, dict):
        return "no manifest"
    want = dict(expect, key=key, kind=kind, version=__version__, size=len(payload))
    for field, value in want.items():
        if manifest.get(field) != value:
            return f"its {field} differs"
    if manifest.get("sha256") != hashlib.sha256(payload).hexdigest():
        return "its digest differs"
    return None


def read_entry(key: str, kind: str, expect: dict):
    """(manifest, payload) of the entry `key` of `kind`, or None when it is
    missing, unreadable, corrupt, made for anything else than `key`, this
    version and the `expect`ed fields, or when the cache is not trusted."""
    root = config.cache_dir
    if not root:
        return None
    data = cache_trust.read_file(root, _rel(key, kind), _HINT)
    if data is None or not data.startswith(_MAGIC):
        return None
    line, sep, payload = data[len(_MAGIC):].partition(b"\n")
    try:
        manifest = json.loads(line) if sep else None
    except (ValueError, RecursionError):
        manifest = None
    why = _why_not(manifest, key, kind, payload, expect)
    if why is not None:
        debug_print(1, f"pyhalide: ignoring the cache entry {_rel(key, kind)}: {why}")
        return None
    return manifest, payload


def write_entry(key: str, kind: str, manifest: dict, payload: bytes) -> None:
    """Store `payload` under `key` with `manifest` (JSON-serializable fields)
    plus the key, kind, version, size and digest (see read_entry)."""
    root = config.cache_dir
    if not root:
        return
    full = dict(manifest, key=key, kind=kind, version=__version__,
                size=len(payload), sha256=hashlib.sha256(payload).hexdigest())
    data = _MAGIC + json.dumps(full, sort_keys=True).encode() + b"\n" + payload
    try:
        cache_trust.write_file(root, _rel(key, kind), data, _HINT)
    except OSError as e:
        debug_print(1, f"pyhalide: cannot write the cache entry {_rel(key, kind)} ({e})")
