"""Fixtures of the back-end tests: every test gets a private object cache
directory and a clean in-process kernel cache."""
import pytest

from pyhalide.ir.config import override
from pyhalide.lowering import jit


@pytest.fixture(autouse=True)
def _private_cache(tmp_path):
    jit.clear_memory_cache()
    with override(cache_dir=str(tmp_path / "objcache"), debug=0, target="host"):
        yield
    jit.clear_memory_cache()
