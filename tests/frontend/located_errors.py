"""expect_error: a @pipeline call fails to compile with a located message."""
import pytest

import pyhalide as ph
from tests.frontend.test_frontend_errors import where


def expect_error(fn, args, snippet, *words):
    """ph.pipeline(fn)(*args) raises a CompileError located at the first
    `snippet` in fn's body, containing each of words, without internal names."""
    with pytest.raises(ph.CompileError) as info:
        ph.pipeline(fn)(*args)
    msg = str(info.value)
    assert msg.startswith(where(fn, snippet) + ":"), msg
    for w in words:
        assert w in msg, msg
    assert "_ph_" not in msg, msg
    return msg
