"""Complex scalars carried by loops: escape-time loops (`z = z*z + c` while
`abs(z) < 2`), complex accumulators (`s += a[i] * b[i]`).

A loop group (loop_state.Group) carries floats, one Func element per
member. A complex variable `z` is carried as two members, "z.real" and
"z.imag" (a Python name has no dot, so the names cannot clash), and the
group machinery (loops.LoopRunner, defs.Definitions) handles them as float
variables, type changes included (a Python complex `0j` that becomes
complex128 in the loop: its parts go from Python float to float64). Three
hooks keep `z` and its parts in step:

  members      start_groups: z's member names, its parts bound from its
               value before the loop
  join         enter_group, finish_group: z bound to the complex value of
               its parts (a union of parts: the union of complex values of
               the alternatives in the same position)
  split        emit_group_update: the parts bound from z's value at the end
               of an iteration

A variable that is real (or unassigned) before the loop and complex in it,
or complex before and real after an iteration, is a located error (its
carried type would change between real and complex)."""
from __future__ import annotations

import numpy as np

from . import complex_values as C
from . import types as T
from . import unions
from .loop_exits import describe_name
from .values import Val

_SUFFIXES = (".real", ".imag")

CARRY_HINT = ("give it a complex value before the loop (z = 0j, or complex(x)) and keep "
              "it complex in the loop")


def _parts(name: str):
    return tuple(name + s for s in _SUFFIXES)


def carried_names(name: str) -> tuple:
    """The member names a loop group may carry for the variable `name`:
    the name itself and its complex parts."""
    return (name,) + _parts(name)


def _complex_of(v) -> bool:
    """Whether every alternative of v is complex."""
    return isinstance(v, Val) and all(C.is_complex(a) for _, a in unions.alternatives(v))


def members(cx, env: dict, name: str) -> list:
    """The member names a loop group carries for the variable `name`: its
    two parts (bound in env) when its value before the loop is complex."""
    v = env.get(name)
    if not _complex_of(v):
        return [name]
    re, im = _parts(name)
    env[re], env[im] = (_part_union(cx, v, k) for k in (0, 1))
    return [re, im]


def bases(names) -> set:
    """The names plus the complex variables whose parts are among them."""
    out = set(names)
    for n in list(out):
        if n.endswith(_SUFFIXES[0]):
            out.add(n[: -len(_SUFFIXES[0])])
    return out


def _bases_in(names):
    for n in names:
        if n.endswith(_SUFFIXES[0]) and n[: -len(_SUFFIXES[0])] + _SUFFIXES[1] in names:
            yield n[: -len(_SUFFIXES[0])]


def _complex_type(pt) -> T.Ty:
    if pt.weak:
        return T.PY_COMPLEX
    return T.np_ty(np.complex64 if pt.dtype == np.float32 else np.complex128)


def _part_union(cx, v: Val, k: int) -> Val:
    alts = [(c, a.re if k == 0 else a.im) for c, a in unions.alternatives(v)]
    return alts[0][1] if len(alts) == 1 else unions.make_union(cx, alts)


def join(cx, env: dict, names, drop: bool = False):
    """Bind each complex variable carried among `names` to the complex value
    of its parts' values in env (`drop`: after the loop, the parts unbound)."""
    for base in list(_bases_in(names)):
        re_name, im_name = _parts(base)
        re, im = env.get(re_name), env.get(im_name)
        if drop:
            env.pop(re_name, None)
            env.pop(im_name, None)
        if not isinstance(re, Val) or not isinstance(im, Val):
            env.pop(base, None)
            continue
        ra, ia = unions.alternatives(re), unions.alternatives(im)
        if len(ra) != len(ia) or any(a.ty != b.ty for (_, a), (_, b) in zip(ra, ia)):
            raise cx.error(f"the real and imaginary parts of {base!r} have different types "
                           f"in this loop", hint=CARRY_HINT)
        alts = [(c, C.ComplexVal(cx, a, b, _complex_type(a.ty))) for (c, a), (_, b) in
                zip(ra, ia)]
        env[base] = alts[0][1] if len(alts) == 1 else unions.make_union(cx, alts)


def split(cx, env: dict, names, node):
    """Bind the parts of each complex variable carried among `names` from
    its value at the end of an iteration; a real variable that an
    iteration makes complex is a located error."""
    for name in names:
        v = env.get(name)
        if "?" not in name and not name.endswith(_SUFFIXES) and isinstance(v, Val) and \
                any(C.is_complex(a) for _, a in unions.alternatives(v)):
            raise cx.err(node, f"{describe_name(name)} is not complex before this loop and "
                               f"an iteration makes it complex: not supported",
                         hint=CARRY_HINT)
    for base in list(_bases_in(names)):
        v = env.get(base)
        if not isinstance(v, Val):
            continue
        if not _complex_of(v):
            raise cx.err(node, f"{base!r} is complex before this loop and an iteration gives "
                               f"it a {_describe(v)} value: not supported",
                         hint=CARRY_HINT)
        re_name, im_name = _parts(base)
        env[re_name], env[im_name] = (_part_union(cx, v, k) for k in (0, 1))


def _describe(v: Val) -> str:
    return unions.describe_types(v) if v.union else v.ty.describe()
