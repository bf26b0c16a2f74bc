"""The on-disk cache of synthesized operators (tables/synth.py), so that a
second process pays nothing for an operator one process proved.

    load(text, types, inputs) -> Synthesized | None
    store(text, synthesized) -> None
    cached_entries() -> list of TableEntry (for `pyhalide tables export --synthesized`)

An entry is <cache_dir>/synth2/<sha256 of the canonical text>.json: JSON
only (nothing that runs code when read), in the kernel cache's directory
under its trust check (pyhalide.ir.cache_trust: nobody else can write
there). An entry is used only when its `mac` (HMAC-SHA256 with the private
key <cache_dir>/synth2/key, made on first use, mode 600) matches its contents
and its canonical text is the one looked up: an entry planted or edited by
hand, copied from another key or from another cache, is ignored, and the
operator is synthesized and proven again.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets

from pyhalide import ir
from pyhalide.ir import cache_trust
from pyhalide.ir.config import config, debug_print
from pyhalide.ir.version import __version__

from .grammar import variables
from .syntax import format_expr, parse_expr, type_from_name, type_name

# the folder names the synthesis rules' generation: entries made under older rules (which
# accepted float operators that compare or select) are never read
FOLDER = _DIR = "synth2"
_HINT = ("Fix: make it (and its parents) yours and not writable by others "
         "(chmod go-w), or set PYHALIDE_CACHE_DIR to such a directory, or to 0 to "
         "turn the cache off.")
_keys: dict = {}


def _key(root: str, create: bool) -> bytes | None:
    if root in _keys:
        return _keys[root]
    rel = os.path.join(_DIR, "key")
    data = cache_trust.read_file(root, rel, _HINT)
    if (data is None or len(data) != 32) and create:
        try:
            cache_trust.write_file(root, rel, secrets.token_bytes(32), _HINT)
        except OSError as e:
            debug_print(1, f"synthesis cache: {e}")
            return None
        data = cache_trust.read_file(root, rel, _HINT)
    if data is None or len(data) != 32:
        return None
    _keys[root] = data
    return data


def _rel(text: str) -> str:
    return os.path.join(_DIR, hashlib.sha256(text.encode()).hexdigest() + ".json")


def _mac(key: bytes, record: dict) -> str:
    body = json.dumps({k: v for k, v in record.items() if k != "mac"}, sort_keys=True)
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def store(text: str, synthesized) -> None:
    """Record a proven operator (or a definite refusal) under `text`."""
    root = config.cache_dir
    if not root:
        return
    key = _key(root, create=True)
    if key is None:
        return
    s = synthesized
    if not _round_trips(s):
        return
    record = {"text": text, "version": __version__, "reason": s.reason,
              "types": [type_name(o.type) for o in s.ops] if s.ops else [],
              "ops": [format_expr(o) for o in s.ops],
              "identities": [format_expr(i) for i in s.identities],
              "identity_side": s.identity_side, "commutative": s.commutative,
              "source": s.source, "slots": list(s.slots)}
    record["mac"] = _mac(key, record)
    try:
        cache_trust.write_file(root, _rel(text), json.dumps(record).encode(), _HINT)
    except OSError as e:
        debug_print(1, f"synthesis cache: {e}")


def _round_trips(s) -> bool:
    """Whether the operator's text parses back into the same operator."""
    try:
        env = variables([o.type for o in s.ops]) if s.ops else {}
        return all(ir.equal(parse_expr(format_expr(e), env, e.type), e)
                   for e in s.ops + s.identities)
    except (TypeError, ValueError, KeyError, SyntaxError):
        return False


def _read(root: str, rel: str, key: bytes) -> dict | None:
    data = cache_trust.read_file(root, rel, _HINT)
    if data is None:
        return None
    try:
        record = json.loads(data)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("version") != __version__ or \
            not hmac.compare_digest(str(record.get("mac", "")), _mac(key, record)):
        return None
    return record


def load(text: str, types, inputs):
    """The cached result for `text`, or None (missing, not trusted, not ours)."""
    from .synth import Synthesized
    root = config.cache_dir
    key = _key(root, create=False) if root else None
    if key is None:
        return None
    record = _read(root, _rel(text), key)
    if record is None or record.get("text") != text:
        return None
    if not record["ops"]:
        return Synthesized(reason=record["reason"], cached=True, key=text)
    types = tuple(types)
    if [type_from_name(n) for n in record["types"]] != list(types):
        return None
    env = variables(types)
    ops = tuple(parse_expr(o, env, t) for o, t in zip(record["ops"], types))
    ids = tuple(parse_expr(i, env, t) for i, t in zip(record["identities"], types))
    slots = tuple(record["slots"])
    return Synthesized(ops, ids, record["identity_side"], record["commutative"],
                       record["source"], tuple(inputs[j] for j in slots), cached=True,
                       key=text, slots=slots)


def cached_entries() -> list:
    """The trusted cached operators that have an identity, as TableEntries
    (origin "synthesized"; the export keys of the tables)."""
    from .entry import TableEntry, count_leaves
    root = config.cache_dir
    key = _key(root, create=False) if root else None
    folder = os.path.join(root, _DIR) if root else ""
    if key is None or not os.path.isdir(folder):
        return []
    out = []
    for name in sorted(os.listdir(folder)):
        record = _read(root, os.path.join(_DIR, name), key) if name.endswith(".json") else None
        if record is None or not record["ops"] or record["identity_side"] == "none":
            continue
        types = [type_from_name(n) for n in record["types"]]
        env = variables(types)
        ops = [parse_expr(o, env, t) for o, t in zip(record["ops"], types)]
        ids = [parse_expr(i, env, t) for i, t in zip(record["identities"], types)]
        out.append(TableEntry.from_ir(types, ops, ids, record["commutative"],
                                      record["identity_side"], count_leaves(ops), "synthesized"))
    return out
