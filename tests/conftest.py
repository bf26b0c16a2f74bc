"""Test-wide settings: the IR verifier runs after every lowering pass, the
on-disk object cache lives in a temporary folder of the run (under
pytest-xdist one folder for all workers, so that a kernel one worker compiled
is a cache hit in the other), and only the shipped tables are loaded (not the
user's generated ones; subprocesses inherit this).

Under pytest-xdist (`-n 2`), a test marked `exclusive` (it times calls on the
machine's cores) runs while no other worker runs a test: each test holds a
shared lock on a file of the run, an exclusive test an exclusive one (see
tests/xdist_lock.py)."""
import os
import shutil
import signal
import tempfile
import warnings

import pytest

from pyhalide.ir.config import config
from tests import xdist_lock
from tests.slow_cases import mark_later_cases_slow

os.environ["PYHALIDE_TABLES_DIR"] = "0"


@pytest.fixture(autouse=True, scope="session")
def _verify_every_pass(request):
    old_verify, old_cache = config.verify, config.cache_dir
    config.verify = True
    shared = getattr(request.config, "workerinput", {}).get("pyhalide_cache_dir")
    config.cache_dir = shared or tempfile.mkdtemp(prefix="pyhalide-test-cache-")
    yield
    if not shared:                  # the controller removes the workers' shared folder
        shutil.rmtree(config.cache_dir, ignore_errors=True)
    config.verify, config.cache_dir = old_verify, old_cache


def pytest_unconfigure(config):
    for name in ("_pyhalide_lock_dir", "_pyhalide_cache_dir"):
        folder = getattr(config, name, None)
        if folder:
            shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """(xdist, in the controller) tell each worker where the run's lock files
    and its object cache are."""
    config = node.config
    if getattr(config, "_pyhalide_lock_dir", None) is None:
        config._pyhalide_lock_dir = tempfile.mkdtemp(prefix="pyhalide-test-locks-")
        config._pyhalide_cache_dir = tempfile.mkdtemp(prefix="pyhalide-test-cache-")
    node.workerinput["pyhalide_lock_dir"] = config._pyhalide_lock_dir
    node.workerinput["pyhalide_cache_dir"] = config._pyhalide_cache_dir


@pytest.fixture(autouse=True)
def _sigint_handler_restored(request):
    """SIGINT's Python handler as each test found it: in a full run under
    pytest-xdist (session 17) a worker's SIGINT was left ignored (SIG_IGN) by
    some earlier test and the Ctrl-C tests after it failed; pyhalide itself never
    calls signal.signal. A test that changes the handler without restoring it is
    named in a warning, and the handler is put back."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after != before:
        warnings.warn(f"{request.node.nodeid} left SIGINT's handler {after!r} "
                      f"(was {before!r}): restored")
        signal.signal(signal.SIGINT, before)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    lock_dir = getattr(item.config, "workerinput", {}).get("pyhalide_lock_dir")
    if lock_dir is None:
        return (yield)
    with xdist_lock.held(lock_dir, item.get_closest_marker("exclusive") is not None):
        return (yield)


def pytest_collection_modifyitems(config, items):
    """Later cases of the parametrized tests of tests/slow_cases.py run in
    the slow run only."""
    mark_later_cases_slow(items)
