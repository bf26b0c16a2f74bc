"""What the automatic scheduler is told: Halide 21's
`AutoschedulerParams(name, {...})`, and the machine it schedules for (the
target's vector width, the thread count)."""
from __future__ import annotations

import os

from ..ir.config import config

NAME = "pyhalide"
_KNOWN = {"parallelism", "float_reassociation", "tune"}


class AutoschedulerParams:
    """`ph.AutoschedulerParams("pyhalide", {"parallelism": "2"})`: the
    autoscheduler's name and its string parameters, as in Halide 21.
    Parameters: parallelism (threads to plan for; default all cores),
    float_reassociation ("true"/"false", default "true": float sums and
    products may be reassociated by rfactor), tune (candidates to time;
    only "0" is implemented)."""

    def __init__(self, name: str = NAME, extra=None):
        if name != NAME:
            raise ValueError(f"unknown autoscheduler {name!r}: pyhalide has one, "
                             f"AutoschedulerParams({NAME!r}, {{...}})")
        self.name = name
        self.extra = {str(k): str(v) for k, v in dict(extra or {}).items()}
        bad = sorted(set(self.extra) - _KNOWN)
        if bad:
            raise ValueError(f"unknown autoscheduler parameter(s) {', '.join(bad)}; "
                             f"known: {', '.join(sorted(_KNOWN))}")
        self.parallelism = _positive(self.extra.get("parallelism"), "parallelism",
                                     default=os.cpu_count() or 1)
        flag = self.extra.get("float_reassociation", "true").lower()
        if flag not in ("true", "false", "1", "0"):
            raise ValueError(f"float_reassociation must be \"true\" or \"false\", not {flag!r}")
        self.float_reassociation = flag in ("true", "1")
        self.tune = _positive(self.extra.get("tune", "0"), "tune", default=0, zero=True)
        if self.tune:
            raise NotImplementedError("the tuning mode (tune > 0) of the pyhalide "
                                      "autoscheduler is not implemented; use tune=0")

    def __repr__(self):
        return f"AutoschedulerParams({self.name!r}, {self.extra!r})"


def _positive(text, what, default, zero=False):
    if text is None:
        return default
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"autoscheduler parameter {what} must be an integer, "
                         f"not {text!r}") from None
    if n < (0 if zero else 1):
        raise ValueError(f"autoscheduler parameter {what} must be "
                         f"{'>= 0' if zero else '>= 1'}, not {n}")
    return n


def vector_bits(target: str = None) -> int:
    """The widest vector register of the target, in bits."""
    from ..lowering.target import parse_target
    feats = set(parse_target(target or config.target).features.split(","))
    if "+avx512f" in feats:
        return 512
    if "+avx" in feats:
        return 256
    return 128
