"""The decorated function's source: parsed once, with a map back to the file."""
from __future__ import annotations

import ast

from .analyze import check_supported
from .errors import SourceMap
from .loop_counter_index import INT_ARGS_ATTR
from .rewrites import rewrite
from .source_read import read_function


class ParsedFunction:
    def __init__(self, fn, tree: ast.FunctionDef, smap: SourceMap):
        self.fn = fn
        self.name = fn.__name__
        self.tree = tree
        self.smap = smap
        self.params = [a.arg for a in tree.args.args]
        self.file = smap.file
        self._supported = False     # check_supported has passed
        # (k, top-level statements of the whole tree) where the tree is the
        # whole one cut before its statement k (Specialization.prefix)
        self.cut = None

    def check_supported(self):
        """Raise the located CompileError of the first construct outside the
        supported subset (analyze.check_supported); once it passes, it is
        not run again."""
        if not self._supported:
            check_supported(self.tree, self.smap)
            self._supported = True


def parse_function(fn, int_args=frozenset()) -> ParsedFunction:
    """fn's source, rewritten; `int_args` names arguments that are Python
    ints in the build the tree is for (loop_counter_index.integer_names)."""
    tree, smap = read_function(fn)
    if int_args:
        setattr(tree, INT_ARGS_ATTR, frozenset(int_args))
    return ParsedFunction(fn, rewrite(tree, smap, fn), smap)
