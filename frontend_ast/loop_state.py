"""The state of the loops being executed: the active loops, the pending
writes of their iterations, and the scalars they carry ("groups")."""
from __future__ import annotations

from pyhalide import ir

from . import ops
from .values import const_val


class Frame:
    """The pending writes of one loop iteration (or of one top-level statement)."""

    def __init__(self, loop=None, top=False):
        self.loop = loop
        self.top = top          # the top-level frame: writes are emitted at once
        self.cells = {}         # (id(arr), index key) -> arrays.Cell
        self.order = []         # cell keys in first-write order
        self.groups = []        # groups whose state is updated in this loop's body


class Group:
    """Scalars carried together by one loop chain: one (tuple) Func with one
    element per member. loops.LoopRunner creates and types it, then
    defs.Definitions defines it; the fields are set in that order.

    Made at creation:
      names        member names: the carried variables, then the extra
                   elements the typing adds ("?tag", "?other", "?assigned")
      chain_nodes  the For nodes of the loop chain that carries them, outermost first
      ctx          the loops enclosing the chain (the Func's pure dimensions)
      loc          where the chain starts (the pure definition's location)
      label        the Func's name ("_".join(names) at creation)
      base         the number of carried variables (members before the extras)
      init         per member: its value before the loop (None: unbound)
      unbound      per member: whether it is unassigned before the loop
    The type fixpoint (LoopRunner.create_group):
      tys          per member: its type in the loop (Python's promotion after
                   one iteration)
      typing       this group is being typed (no Func, placeholders only)
      probing      the type fixpoint is still running
      new_vals     the members' values at the end of the last typing run
      probe_tag    member index -> the placeholder of its probing tag
      tag_of       member -> its "?tag" element (true once it has the loop's type)
      other_of     member -> its "?other" element (its value of the other type)
      peel         member -> the loop-type constant its value element starts from
      flag_of      member -> its "?assigned" element (the loop assigned it)
      tags_added, flags_added  the extras were added (once per group)
      scan_needed  another definition in the loop reads the running value
      skippable    a condition outside the chain's innermost loop (an `if`, or
                   an outer loop's `continue`) can skip the update
      scan         it is a scan: one value per iteration of its single loop
      range_syms   per member: the symbol of its value in range inference
      cur_ranges   per member: the range assumed in the running inference round
      ranges       per member: the (lo, hi) of Python-int members
      store        per member: the IR type of its Func element
    The Func (defs.Definitions.define_group):
      func         the Func, its pure definition the initial values
      scan_loop    the Loop a scan is indexed by (None for a reduction)
      scan_var     the Var of that index
      start_node   member index -> the IR value its element starts from
      merged       its values moved into an array's merged Func
                   (imperative_nests.merge_imperative): nothing computes the Func
    While the loop runs (LoopRunner.run_loop / enter_group):
      chain        the active Loops of the chain
      ph           per member: its state placeholder in this iteration
      first        the "first iteration" placeholder of members whose type the
                   loop changes (None when none does)
    """

    def __init__(self, names, chain_nodes, ctx, loc):
        self.names = list(names)
        self.chain_nodes = list(chain_nodes)
        self.ctx = list(ctx)
        self.loc = loc
        # the flags loop_exits.py adds do not name the Func
        self.label = "_".join(n for n in self.names if "?" not in n) or "stop"
        self.base = len(self.names)
        self.init = []
        self.unbound = []
        self.tys = []
        self.typing = False
        self.probing = False
        self.new_vals = None
        self.probe_tag = {}
        self.tag_of = {}
        self.other_of = {}
        self.peel = {}
        self.flag_of = {}
        self.tags_added = False
        self.flags_added = False
        self.scan_needed = False
        self.skippable = False
        self.scan = False
        self.range_syms = []
        self.cur_ranges = None
        self.ranges = []
        self.store = []
        self.func = None
        self.scan_loop = None
        self.scan_var = None
        self.start_node = {}
        self.merged = False
        self.chain = []
        self.ph = []
        self.first = None

    def __repr__(self):
        return f"<Group {self.names}>"


class LoopState:
    """The loops being executed.

    Fields:
      loops          [Loop] the active loops, outermost first
      frames         [Frame] the top-level frame, then one per active loop
      active_groups  [Group] the groups whose loops are running
      ph_owner       state placeholder name -> its Group
      nest_id        id of the outermost For node being emitted (None outside
                     a loop nest and during its typing pre-pass)
      nest_writes    [Cell] the writes of the current nest (its pre-pass records them)
      recording      the pre-pass is recording nest_writes
      headers        id(For node) -> the latest Loop made for it (typing runs included)
      pure_vars      loop symbol -> its pure Var (shared by the typing runs)
      exit_conds     id(For node) -> the bool Val of its stop flag's test in the
                     running iteration (loops rewritten by loop_exits.py)
      snapshots      (nest id, id(Arr)) -> the Func holding the array's value
                     before the nest (arrays.ArrayAccess.before_write)
      symbolic_loops [Loop] loops whose body runs once with the loop variables
                     as symbols, not as active loops (carried_phases.py): a
                     slice that moves with them is a window (array_windows.py)
      guarded_starts names of the Funcs whose start value is computed only
                     where the `if`s around their loop hold
                     (defs.Definitions._start_under_ifs)
      unconditional_starts names of the current nest's Funcs whose loop runs
                     in every iteration of its enclosing loops (no `if`, no
                     `continue` before it): Python computes their start value
                     wherever the Func is computed
      nest_funcs_from the number of emitter.funcs made before the current
                     nest (its Funcs follow)
    """

    def __init__(self, cx):
        self.cx = cx
        self.loops = []
        self.frames = [Frame(top=True)]
        self.active_groups = []
        self.ph_owner = {}
        self.nest_id = None
        self.nest_writes = []
        self.recording = False
        self.headers = {}
        self.pure_vars = {}
        self.exit_conds = {}
        self.snapshots = {}
        self.nest_funcs_from = 0
        self.symbolic_loops = []
        self.guarded_starts = set()
        self.unconditional_starts = set()

    def window_loops(self) -> list:
        """The loops a window may move with: the active ones and the
        symbolic ones."""
        return self.loops + self.symbolic_loops

    def ran_condition_known(self, g) -> bool:
        """Whether "the loop chain ran at least once" is a condition on the
        bounds of its loops (no inner bound depends on an outer loop of the
        chain)."""
        syms = set()
        for n in g.chain_nodes:
            l = self.headers.get(id(n))
            if l is None:
                return False
            nodes = [ops.node_of(self.cx, l.start), ops.node_of(self.cx, l.stop)]
            if syms & set(ir.free_vars(nodes)):
                return False
            syms.add(l.sym)
        return True

    def first_iteration(self, g):
        """An IR test of the first iteration of g's loop chain (over loop
        placeholders), or None if inner bounds depend on outer chain loops."""
        if not self.ran_condition_known(g):
            return None
        out = None
        for n in g.chain_nodes:
            l = self.headers[id(n)]
            start = ops.cast(ir.INDEX, ops.node_of(self.cx, l.start))
            t = ir.EQ(l.var, start)
            out = t if out is None else ir.And(out, t)
        return out

    def ran_value(self, g):
        """A bool Val: the loop chain of g ran at least once (after the loop)."""
        out = const_val(True)
        for n in g.chain_nodes:
            l = self.headers[id(n)]
            ne = self.cx.compare("<" if l.step > 0 else ">", l.start, l.stop)
            out = self.cx.logical_and(out, ops.truth(self.cx, ne))
        return out
