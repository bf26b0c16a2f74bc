"""The disk cache of synthesized operators (tables/synth_cache.py): a second
process gets the operator without synthesizing (z3 is not even imported), an
entry planted, edited or copied from another key is never used, and
`pyhalide tables export --synthesized` writes the cached operators with the
tables' export keys; `pyhalide assoc` names the source."""
import json
import os
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from pyhalide.cli import app
from pyhalide.ir.config import override
from pyhalide.tables import synth, synth_cache
from pyhalide.tables.entry import EXPORT_KEYS

MATRIX = "(f[0]*a + f[1]*c, f[0]*b + f[1]*d, f[2]*a + f[3]*c, f[2]*b + f[3]*d)"
NEAR_MISS = "2*f + a"
runner = CliRunner()

_CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import pyhalide as ph
    from pyhalide.associativity_cli import build_update
    op = ph.prove_associativity(build_update(sys.argv[1], [np.dtype("int32")]).update())
    print(op.associative, op.source, "z3" in sys.modules)
""")


def _child(cache, text):
    env = dict(os.environ, PYHALIDE_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", _CHILD, text], env=env, capture_output=True,
                         text=True, timeout=300, check=True)
    return out.stdout.split()


@pytest.fixture
def cache(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o755)
    synth_cache._keys.clear()
    with override(cache_dir=str(root)):
        yield root
    synth_cache._keys.clear()


def _assoc(text):
    synth.forget()              # what this process proved: read from the disk cache
    res = runner.invoke(app, ["assoc", text])
    return res.output


def test_second_process_pays_nothing(cache):
    assert _child(cache, MATRIX) == ["True", "polynomial", "True"]
    assert _child(cache, MATRIX) == ["True", "polynomial", "False"]     # no z3: no synthesis


def _entries(cache):
    return sorted((cache / synth_cache.FOLDER).glob("*.json"))


def _claim_associative(record):
    """Make the refusal of NEAR_MISS claim that 2*f + a is associative."""
    record.update(reason="", types=["int32"], ops=["(x0 * 2) + y0"], identities=["0"],
                  identity_side="both", commutative=False, source="synthesized", slots=[0])


def test_edited_entry_is_not_used(cache):
    assert "associative  no" in _assoc(NEAR_MISS)
    (path,) = _entries(cache)
    record = json.loads(path.read_text())
    _claim_associative(record)
    path.write_text(json.dumps(record))          # the old mac: it no longer matches
    out = _assoc(NEAR_MISS)
    assert "associative  no" in out and "breaks op(op(a, b), c)" in out


def test_entry_copied_from_another_key_is_not_used(cache):
    assert "associative  no" in _assoc(NEAR_MISS)
    (refusal,) = _entries(cache)
    assert "polynomial" in _assoc("f*a + 2*f + 2*a + 2")     # (f + 2)(a + 2) - 2
    (proven,) = [p for p in _entries(cache) if p != refusal]
    refusal.write_bytes(proven.read_bytes())     # a valid entry, of another canonical form
    out = _assoc(NEAR_MISS)
    assert "associative  no" in out and "breaks op(op(a, b), c)" in out


def test_entry_made_with_another_key_is_not_used(cache):
    assert "associative  no" in _assoc(NEAR_MISS)
    (path,) = _entries(cache)
    record = json.loads(path.read_text())
    _claim_associative(record)
    record["mac"] = synth_cache._mac(b"k" * 32, record)
    path.write_text(json.dumps(record))
    out = _assoc(NEAR_MISS)
    assert "associative  no" in out and "breaks op(op(a, b), c)" in out


def test_export_synthesized_has_the_tables_keys(cache):
    assert "polynomial" in _assoc(MATRIX)
    assert "associative  no" in _assoc(NEAR_MISS)          # refusals are not exported
    res = runner.invoke(app, ["tables", "export", "--synthesized"])
    assert res.exit_code == 0, res.output
    (line,) = res.output.strip().splitlines()
    record = json.loads(line)
    assert tuple(record) == EXPORT_KEYS
    assert record["ops"][0] == "(x0 * y0) + (x1 * y2)" and record["identities"] == [
        "1", "0", "0", "1"] and record["identity_side"] == "both"


def test_assoc_shows_the_source_and_synthesis_time(cache):
    out = _assoc(MATRIX)
    assert "source       synthesized (associativity proven as a polynomial identity)" in out
    assert "synthesis" in out.splitlines()[-1]
    assert "source       table entry" in _assoc("f + a")
