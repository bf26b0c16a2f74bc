"""What the automatic scheduler is told: Halide 21's
`AutoschedulerParams(name, {...})`, and the machine it schedules for (the
target's vector width, the thread count)."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields

from ..ir.config import config

NAME = "pyhalide"
_KNOWN = {"parallelism", "float_reassociation", "tune"}


class AutoschedulerParams:
    """`ph.AutoschedulerParams("pyhalide", {"parallelism": "2"})`: the
    autoscheduler's name and its string parameters, as in Halide 21.
    Parameters: parallelism (threads to plan for; default all cores),
    float_reassociation ("true"/"false", default "true": float sums and
    products may be reassociated by rfactor), tune (K: up to K candidate
    schedules timed on the actual arguments of a @pipeline call, the fastest
    kept and cached on disk; autoschedule/tune.py)."""

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

    @property
    def mode(self) -> str:
        """The @pipeline spelling of these parameters' float rule."""
        return "auto" if self.float_reassociation else "auto-exact"

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


@dataclass(frozen=True)
class Knobs:
    """The planner's free choices that never change a result: thresholds of
    parallel pure stages, stencil strips, vectorization, and the chunks of
    *integer* reductions (exact in any order). The chunks of a float
    reduction are not a knob (plan.CHUNKS): its order of reassociation
    depends only on the pipeline, the size class and the target. None: the
    planner's default (the constant in plan.py / fusion.py). The tuning mode
    times plans made with several Knobs (tune.CANDIDATES)."""

    parallel_min: int = None     # points of a pure stage worth a parallel loop
    int_chunks: int = None       # parallel chunks of an integer reduction
    rfactor_ints: bool = True    # whether integer reductions are rfactored at all
    fuse: bool = True            # stencil producers computed per strip of their consumer
    rows_shift: int = 0          # strip and tile rows times 2**rows_shift
    vectorize: bool = True       # pure stages vectorized

    def as_json(self) -> dict:
        return {k: v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data) -> "Knobs":
        """Knobs from as_json's dict; ValueError when it is not one."""
        if not isinstance(data, dict) or set(data) != {f.name for f in fields(cls)}:
            raise ValueError("not a Knobs record")
        kinds = {"parallel_min": int, "int_chunks": int, "rows_shift": int,
                 "rfactor_ints": bool, "fuse": bool, "vectorize": bool}
        for k, v in data.items():
            if v is None and k in ("parallel_min", "int_chunks"):
                continue
            if type(v) is not kinds[k] or (kinds[k] is int and k != "rows_shift" and v < 1):
                raise ValueError(f"bad Knobs field {k}")
        return cls(**data)
