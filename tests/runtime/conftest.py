"""The Ctrl-C tests (test_sigint.py, test_compiled_entry.py) test pyhalide
under Python's own SIGINT handler (KeyboardInterrupt). In full runs under
pytest-xdist (session 17) one worker's SIGINT was found ignored (SIG_IGN) before
them, left so by something outside pyhalide (pyhalide never calls
signal.signal; no test left it changed: tests/conftest.py would name it), so
each test here starts from Python's default handler where another one is in
place (setting it again where it is in place would hide pyhalide's own handler,
installed in front of it with sigaction) and gets the previous one back after."""
import signal

import pytest

from pyhalide.lowering import interrupt


@pytest.fixture(autouse=True)
def _python_sigint_handler():
    old = signal.getsignal(signal.SIGINT)
    replaced = old is not signal.default_int_handler
    if replaced:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        interrupt._state["seen"] = object()      # pyhalide's handler goes in front of it again
    yield
    if replaced:
        signal.signal(signal.SIGINT, old)
