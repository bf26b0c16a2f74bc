"""Slow: the quick mode reproduces the shipped tables' subset, and every
shipped entry re-proves."""
import subprocess
import sys

import pytest

from pyhalide.tables import store

QUICK = 4


def cli(*args):
    return subprocess.run([sys.executable, "-m", "pyhalide.cli", "tables", *args],
                          capture_output=True, text=True)


@pytest.mark.slow
def test_quick_mode_reproduces_the_shipped_subset(tmp_path):
    r = cli("generate", "--max-leaves", str(QUICK), "--jobs", "2", "--out", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    for path in store.table_files():
        shipped = [rec for rec in store.read_records(path)
                   if rec["origin"] == "handwritten" or rec["leaves"] <= QUICK]
        assert store.read_records(tmp_path / path.name) == shipped, path.name


@pytest.mark.slow
def test_every_shipped_entry_reproves():
    r = cli("verify", "--jobs", "2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
