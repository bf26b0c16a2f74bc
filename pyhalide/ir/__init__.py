"""The IR layer: types, Expr/Stmt nodes, mutator/visitor, printer, Function;
beside them what every layer shares: config, version, lru, cache_trust.

Imports nothing else of the project.
"""
from .errors import CompileError
from .function import (
                  Definition,
                  Dim,
                  EditedList,
                  FuncBound,
                  FuncSchedule,
                  Function,
                  InputImage,
                  LoopLevel,
                  ReductionVariable,
                  ScalarParam,
                  SourceLoc,
                  Split,
                  StageSchedule,
                  at,
)
from .mutator import FuncMutator, Mutator, Visitor, children, node_fields
from .nodes import *  # noqa: F401,F403  (the node classes)
from .nodes import FUNC, IMAGE, INTRINSIC, Expr, ForKind, IRNode, Stmt, block, index_var
from .ops import (
                  BINARY_NODES,
                  clear_uses_memo,
                  conjunction,
                  const,
                  const_value,
                  equal,
                  find_calls,
                  free_vars,
                  index,
                  is_const,
                  is_lazy_select,
                  lazy_select,
                  mentioned_names,
                  one,
                  reads_memory,
                  shared_bindings,
                  substitute,
                  uses_var,
                  zero,
)
from .printer import expr_to_str, function_to_str, stmt_to_str, to_str
from .types import ALL_SCALAR_TYPES, INDEX, Bool, Float, Int, Type, UInt, as_type
