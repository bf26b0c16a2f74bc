"""A readers-writer lock between the pytest-xdist workers of one run, on two
files of a directory the controller made (tests/conftest.py).

    with held(lock_dir, exclusive): ...

Every test holds `run` shared; an exclusive test holds it exclusively, so it
runs while no other worker runs a test. `gate` gives the exclusive test
precedence: a test takes `gate` shared only while it takes `run`, and an
exclusive test holds `gate` exclusively until it ends, so workers that keep
starting tests cannot keep it waiting."""
import contextlib
import fcntl
import os

_files = {}


def _fd(lock_dir: str, name: str) -> int:
    path = os.path.join(lock_dir, name)
    if path not in _files:
        _files[path] = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    return _files[path]


@contextlib.contextmanager
def held(lock_dir: str, exclusive: bool):
    gate, run = _fd(lock_dir, "gate"), _fd(lock_dir, "run")
    mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
    fcntl.flock(gate, mode)
    try:
        fcntl.flock(run, mode)
    except BaseException:
        fcntl.flock(gate, fcntl.LOCK_UN)
        raise
    if not exclusive:
        fcntl.flock(gate, fcntl.LOCK_UN)
    try:
        yield
    finally:
        fcntl.flock(run, fcntl.LOCK_UN)
        if exclusive:
            fcntl.flock(gate, fcntl.LOCK_UN)
