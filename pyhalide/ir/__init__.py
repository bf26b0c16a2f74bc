"""The IR layer: types, Expr/Stmt nodes, mutator/visitor, printer, Function.

Imports nothing else of the project.
"""
from .types import Type, Int, UInt, Float, Bool, as_type, INDEX, ALL_SCALAR_TYPES
from .nodes import *  # noqa: F401,F403  (the node classes)
from .nodes import IRNode, Expr, Stmt, ForKind, FUNC, IMAGE, INTRINSIC, block, index_var
from .mutator import Mutator, Visitor, FuncMutator, children, node_fields
from .printer import to_str, expr_to_str, stmt_to_str, function_to_str
from .ops import (const, zero, one, index, const_value, is_const, equal, substitute,
                  free_vars, uses_var, mentioned_names, find_calls, reads_memory,
                  conjunction, is_lazy_select, lazy_select)
from .errors import CompileError
from .function import (Function, Definition, StageSchedule, FuncSchedule, LoopLevel,
                       Split, Dim, ReductionVariable, SourceLoc, InputImage, ScalarParam)
