"""The lock that runs `exclusive` tests alone under pytest-xdist
(tests/xdist_lock.py): an exclusive holder waits for the tests running in
other processes, and tests started after it asked wait for it."""
import subprocess
import sys
import threading
import time

from tests import xdist_lock
from tests.example_scripts import ROOT

HOLD = """
import sys
from tests import xdist_lock
with xdist_lock.held(sys.argv[1], False):
    print("held", flush=True)
    sys.stdin.readline()
"""


def _holder(lock_dir):
    """A process holding the shared lock (a test running) until told to end."""
    p = subprocess.Popen([sys.executable, "-c", HOLD, lock_dir], cwd=ROOT, text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert p.stdout.readline() == "held\n"
    return p


def _release(p):
    p.stdin.write("\n")
    p.stdin.flush()
    assert p.wait(30) == 0


def test_an_exclusive_test_waits_for_running_tests_and_goes_first(tmp_path):
    lock_dir = str(tmp_path)
    first = _holder(lock_dir)
    events = []

    def exclusive():
        with xdist_lock.held(lock_dir, True):
            events.append("exclusive")
            time.sleep(0.3)
        events.append("exclusive done")
    t = threading.Thread(target=exclusive, daemon=True)
    t.start()
    time.sleep(0.3)
    assert events == []                  # a test of another worker still runs
    later = subprocess.Popen([sys.executable, "-c", HOLD, lock_dir], cwd=ROOT, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    time.sleep(0.3)
    _release(first)
    t.join(30)
    assert events == ["exclusive", "exclusive done"]
    assert later.stdout.readline() == "held\n"   # started only after the exclusive test
    _release(later)
