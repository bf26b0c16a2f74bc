"""The interpreter's scope: the values Python names have, and the conditions
under which the current statement runs."""
from __future__ import annotations

from pyhalide import ir

from . import ops
from .ranges import Aff
from .values import Val


class Scope:
    """Names and conditions of the code being executed.

    Fields:
      env    name -> value (Val, Arr, TupleVal, a module or builtin reference,
             or a marker of an unbound / finished-loop name); the interpreter
             binds names, loops bind state and loop variables
      path   [bool Val] conditions of the enclosing `if`s
      alive  one entry per active loop: the condition that no `continue` ran
             in this iteration (None: always)
      lazy   > 0 while evaluating an operand Python may not evaluate (the
             right side of `and`/`or`, a branch of `x if c else y`)
    Conditions refine the symbols' facts (cx.syms) while they hold
    (push_facts / pop_facts).
    """

    def __init__(self, cx):
        self.cx = cx
        self.env = {}
        self.path = []
        self.alive = []
        self.lazy = 0

    def current_condition(self):
        """The condition under which the current statement runs (None: always)."""
        return self.condition_outside(len(self.alive))

    def condition_outside(self, depth):
        """The condition of the enclosing ifs and `continue`s of loop levels
        below `depth` (the number of active loops to include)."""
        out = None
        conds = list(self.path) + [a for a in self.alive[:depth] if a is not None]
        for c in conds:
            c = ops.truth(self.cx, c)
            if c.is_const:
                if c.const:
                    continue
                return c
            out = c if out is None else self.cx.logical_and(out, c)
        return out

    def condition_parts(self) -> list:
        """The Vals whose conjunction is current_condition() (compared by
        identity: a part is an immutable symbolic value)."""
        return list(self.path) + [a for a in self.alive if a is not None]

    def if_reached(self, c: Val) -> Val:
        """An `if` test c as the statement's branches use it: a test that may
        raise (a checked read) is evaluated only where no `continue` ran
        before the `if` in this iteration, as in Python (elsewhere it is
        false; nothing the statement does is kept there)."""
        if not c.risky:
            return c
        ran = [a for a in self.alive if a is not None]
        if not ran:
            return c
        reached = ops.truth(self.cx, ran[0])
        for a in ran[1:]:
            reached = self.cx.logical_and(reached, ops.truth(self.cx, a))
        if reached.is_const:
            return c if reached.const else reached
        return ops.select(self.cx, reached, c, Val(ir.Const(ir.Bool(), False), c.ty))

    def unconditional(self) -> bool:
        """Whether the current statement runs whenever its loop iteration does
        (no enclosing `if`, no `continue` before it, not a lazy operand)."""
        return not self.path and all(a is None for a in self.alive) and not self.lazy

    def test_reached(self) -> bool:
        """Whether the current statement is in a branch of a single `if` (no
        other `if` around it at any loop level, not a lazy operand): Python
        evaluates that `if`'s test in every iteration of the loops around it
        where no `continue` or `break` ran before the `if`, and if_reached
        has made a test that may raise evaluated only there."""
        return len(self.path) == 1 and not self.lazy

    def push_facts(self, c: Val, when_true: bool):
        """Assume c is `when_true` (affine facts bounding loop variables)
        until the matching pop_facts."""
        facts = {}
        if c is not None and c.facts:
            for d in (c.facts[0] if when_true else c.facts[1]):
                for s, k in d.terms.items():
                    if s in self.cx.syms.loops and k in (1, -1):
                        rest = Aff({t: v for t, v in d.terms.items() if t != s}, d.c)
                        lows, highs = facts.setdefault(s, ([], []))
                        if k == 1:
                            lows.append(rest.scale(-1))
                        else:
                            highs.append(rest)
        self.cx.syms.push(facts)
        self.cx.assumed.append((c, when_true))

    def pop_facts(self):
        self.cx.syms.pop()
        self.cx.assumed.pop()
