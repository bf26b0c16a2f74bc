"""Test-wide settings: the IR verifier runs after every lowering pass, the
on-disk object cache lives in a temporary folder, and only the shipped tables
are loaded (not the user's generated ones; subprocesses inherit this)."""
import os
import tempfile

import pytest

from pyhalide.ir.config import config

os.environ["PYHALIDE_TABLES_DIR"] = "0"


@pytest.fixture(autouse=True, scope="session")
def _verify_every_pass():
    old_verify, old_cache = config.verify, config.cache_dir
    config.verify = True
    config.cache_dir = tempfile.mkdtemp(prefix="pyhalide-test-cache-")
    yield
    config.verify, config.cache_dir = old_verify, old_cache
