"""Reads of an element written earlier in the same loop iteration, whose
written value reads arrays the loop nest writes (`a[i] *= k; b[i] += a[i]`).

The written value `a(i) * k` reads `a` as it was before the write. In the
write's own definition (the update of `a`) that is what `a(i)` means; in any
other definition (`b`'s update, an accumulator's) `a(i)` is `a` after the
whole nest. So such a read becomes a placeholder, resolved per definition:

- in a definition of the written array itself, to the written value (the
  value Python reads, made of reads the definition makes before its write);
- in any other definition, to a read `a(i)` of the array after the nest,
  recorded at the reading statement: deps.check_reads then proves that no
  later write (in this iteration or a later one) changes the element before
  the nest ends, or refuses with a located error.

A placeholder left unresolved (a definition made elsewhere) is refused by
the emitter's finalize (`is_forwarded`)."""
from __future__ import annotations

import itertools

from pyhalide import ir

PREFIX = "fwd:"
_ids = itertools.count()


def new_name(arr_name: str) -> str:
    return f"{PREFIX}{arr_name}#{next(_ids)}"


def is_forwarded(name: str) -> bool:
    return name.startswith(PREFIX)


def reads_written(node, nest_writes) -> bool:
    """Whether `node` calls the current Func of an array the nest writes, or
    holds a forwarded read (which stands for such a call)."""
    if any(is_forwarded(k) for k in ir.free_vars(node)):
        return True
    fns = set()
    for w in nest_writes:
        func = getattr(w.arr, "func", None)
        if func is not None:
            fns.add(id(func.function()))
    if not fns:
        return False
    return any(c.call_type == ir.FUNC and id(c.func) in fns for c in ir.find_calls(node))


def resolve(forwards: dict, nodes, own_arr=None, call_holds=None) -> list:
    """`nodes` with every placeholder replaced: by its written value where
    it forwards an element of `own_arr` (the array the definition writes)
    or where `call_holds` says its read call would be refused (a later
    write of the element) and the value's own reads would not, else by its
    recorded read call (a refused one is then reported at the read). Values may hold further placeholders."""
    out = []
    for n in nodes:
        for _ in range(64):
            names = [k for k in ir.free_vars(n) if k in forwards]
            if not names:
                break
            sub = {}
            for k in names:
                arr, call, value = forwards[k]
                own = own_arr is not None and arr is own_arr
                sub[k] = value if own or (call_holds is not None and not call_holds(call)
                                          and call_holds(value)) else call
            n = ir.substitute(n, sub)
        out.append(n)
    return out
