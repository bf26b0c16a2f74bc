"""The names of run-time check images (pyhalide.checks): a read of an image named
with CHECK_PREFIX is a check, not a read of the user's data. Here, in the IR
package, so that the tables (which import only the IR) can tell the two apart."""
from __future__ import annotations

from . import nodes

CHECK_PREFIX = "__pyhalide_check"


def is_check_read(c) -> bool:
    """Whether the Call c reads a check image (not the user's data)."""
    return isinstance(c, nodes.Call) and c.call_type == nodes.IMAGE and \
        c.name.startswith(CHECK_PREFIX)
