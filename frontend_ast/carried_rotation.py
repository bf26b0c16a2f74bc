"""Names that a loop carrying arrays (carried_arrays.py) rotates among its
arrays: `In, Out = Out, In` (ping-pong buffers, lapl2d), `u, v = v, u`,
`a, b, c = b, c, a`.

The loop's state holds one member per rebound name: the contents of the
array the name holds at the start of an iteration. After the body, name n
holds the array name pi(n) held at the start (pi is a permutation of the
names on each cycle), so after T iterations n holds the array name pi^T(n)
held before the loop. An array that is also seen outside the rotating
names (an argument the caller sees, or another name bound to it before the
loop, which the loop does not mention) therefore holds, after the loop, the
member of the name that rotated onto it: for the array name m held before
the loop, member pi^-r(m) where r = T mod the cycle's length. Those arrays
are written back with that value after the loop.

After such a loop, which array a rotating name holds depends on the trip
count, so the name is bound to a new array of its contents that refuses
writes (a write through it would have to reach one of the arrays
depending on T; Arr.writes_refused)."""
from __future__ import annotations

import ast

from pyhalide import ir

from .array_choice import SameSizeAtCall, whole
from .arrayexpr import ArrayExpr, same_size
from .carried_body import base_of
from .types import PY_BOOL
from .values import Arr, Val, with_type_range


class Rotation:
    """The permutation of a loop's rebound names (see the module docstring).

    pi:      name -> the name whose start array it holds after the body
             (names whose end array is no start array are absent)
    cycles:  name -> its cycle (a list starting at that name, following pi)
    exposed: names whose start array is seen outside the rotating names"""

    def __init__(self, loop, env0, env1, names, exposed):
        start = {_ident(env0[m]): m for m in names}
        self.pi = {}
        for n in names:
            m = start.get(_ident(env1.get(n)))
            if m is not None:
                self.pi[n] = m
        self.cycles = {}
        for n in names:
            cyc, k = [n], self.pi.get(n)
            while k is not None and k != n and k not in cyc:
                cyc.append(k)
                k = self.pi.get(k)
            if k == n:
                self.cycles[n] = cyc
        self.exposed = [n for n in names if exposed(n)]
        self.loop = loop

    def check(self, err, env0, names, written_names):
        """Refuse what the write-back cannot state: an exposed array that is
        on no cycle while the loop writes into the rotating arrays, and an
        exposed array the loop's body also reaches through another name."""
        mentioned = {x.id for s in self.loop.body for x in ast.walk(s)
                     if isinstance(x, ast.Name)}
        for n in self.exposed:
            obj = base_of(env0[n])
            others = sorted(k for k, v in env0.items() if k not in names and
                            isinstance(v, (Arr, ArrayExpr)) and base_of(v) is obj and
                            k in mentioned)
            if others:
                raise err(f"this loop rebinds {n!r}, and the array {n!r} names before the "
                          f"loop is also read or written in it through {others[0]!r}: not "
                          f"supported yet", hint=f"copy it first ({n} = {n}.copy()) before "
                                                 f"the loop")
            if n not in self.cycles and written_names:
                what = f"the array {n!r} names before the loop" if n in written_names else \
                    f"arrays it rebinds ({', '.join(written_names)})"
                raise err(f"this loop writes into {what} and then binds {n!r} to another "
                          f"array: not supported yet when the array {n!r} names before the loop "
                          f"is also seen elsewhere (an argument, or another name) and the loop "
                          f"does not pass it on from name to name as in `a, b = b, a`",
                          hint=f"copy it first ({n} = {n}.copy()) before the loop")

    def shape(self, cx, n, shape, members, node) -> list:
        """Member n's shape: on a cycle, the shape of the cycle's member
        already made (the arrays a name holds in turn must have one shape:
        a call-time check raises where their sizes differ)."""
        cyc = self.cycles.get(n, ())
        first = next((m for m in members if m.name in cyc), None)
        if first is None:
            return shape
        if len(first.shape) != len(shape):
            raise cx.err(node, f"this loop passes arrays of different numbers of dimensions "
                               f"from name to name ({first.name!r} and {n!r}): not supported "
                               f"yet", hint="rotate arrays of one shape")
        for a, b in zip(first.shape, shape):
            if not same_size(cx, a, b):
                cx.static_checks.append(SameSizeAtCall(
                    a, b, f"this loop passes the arrays {first.name!r} and {n!r} from name to "
                          f"name, and their sizes differ in this call", cx.smap.loc(node)))
        return first.shape

    def write_backs(self, written_names):
        """The exposed names whose start arrays get a value after the loop:
        those on a cycle through which the loop writes (an array no name of
        its cycle writes into keeps its contents)."""
        return [n for n in self.exposed if n in self.cycles and
                any(k in written_names for k in self.cycles[n])]

    def final(self, n, views, T) -> ArrayExpr:
        """The contents, after the loop, of the array n held before it:
        views[name] is member name's final value (ArrayExpr)."""
        cyc = self.cycles[n]
        p = len(cyc)
        r = ir.Mod(T, ir.index(p))
        # pi^-k(n): k steps back along the cycle
        choices = [views[cyc[(-k) % p]] for k in range(p)]
        first = choices[0]

        def elem(idx):
            out = choices[p - 1].elem(idx)
            for k in reversed(range(p - 1)):
                v = choices[k].elem(idx)
                out = with_type_range(Val(ir.Select(ir.EQ(r, ir.index(k)), v.node, out.node),
                                          first.ty))
            return out
        return ArrayExpr(first.shape, first.ty, elem, first.node)

    def may_hold_exposed(self, n) -> bool:
        """Whether name n may hold an exposed array after the loop (n, or a
        name whose start array n holds after some number of iterations)."""
        seen = set()
        while n is not None and n not in seen:
            if n in self.exposed:
                return True
            seen.add(n)
            n = self.pi.get(n)
        return False

    def alternatives(self, arr, n, env0, T):
        """arr.alternatives, [(condition Val or None, Arr or None)]: the array
        n holds after the loop by the trip count (what a `return n` returns:
        the argument itself where Python returns it); None stands for arr
        (a name whose chain of start arrays ends in an array made in the
        loop holds that array after as many iterations)."""
        chain, k = [n], self.pi.get(n)
        while k is not None and k != n and k not in chain:
            chain.append(k)
            k = self.pi.get(k)
        p = len(chain)
        at = ir.Mod(T, ir.index(p)) if n in self.cycles else T
        # (an array no other name sees is not written back: n's own value)
        alts = [(Val(ir.EQ(at, ir.index(k)), PY_BOOL),
                 whole(env0[m]) if m in self.exposed else None) for k, m in enumerate(chain)]
        if n in self.cycles:
            alts[-1] = (None, alts[-1][1])
        else:
            alts.append((None, None))
        arr.alternatives = alts

    def refuse_writes(self, arr, n, names, env0):
        """Mark the new array bound to rotating name n after the loop, and
        the arrays it may stand for (n's value is their contents after the
        loop: a later write into them through another name would not
        reach it)."""
        k, seen = n, set()
        while k is not None and k not in seen:
            seen.add(k)
            obj = base_of(env0[k])
            obj.writes_refused = (
                f"the loop at line {self.loop.lineno} passes {obj.name!r} from name to name "
                f"({', '.join(names)}), and after it which of these names holds it depends on "
                f"the number of iterations: writing into it after the loop is not supported "
                f"yet", "write into a copy, made before the loop")
            k = self.pi.get(k)
        arr.writes_refused = (
            f"after the loop at line {self.loop.lineno}, which rebinds {', '.join(names)}, "
            f"which array {n!r} names depends on the number of iterations (an array it may "
            f"name is also seen elsewhere: an argument, or another name): writing through "
            f"it is not supported yet",
            f"write into a copy ({n} = {n}.copy()), or into the arrays by names the loop does "
            f"not rebind")



def _ident(v):
    """What a name holds, as a key: the array (also for a view of all of
    it), or the view object itself."""
    w = whole(v)
    return id(w) if w is not None else id(v)
