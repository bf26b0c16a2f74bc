"""Automatic differentiation of Func pipelines (Halide 21's
propagate_adjoints, Li et al. 2018: reverse mode over Func definitions).

derivative.py     propagate_adjoints's three forms and Derivative
reverse.py        the walk from the output to the inputs, one adjoint Func
                  per definition, buffer and Param
expr_adjoints.py  reverse mode over one definition's values
math_adjoints.py  the derivatives of the math intrinsics
scatter.py        one contribution to an adjoint: gather where invertible,
                  else scatter over the reader's region
bounds.py         the region of each Func the output reads
overwrite.py      the updates whose adjoints cannot be taken
adjoint_func.py   an adjoint Func's definitions while they are built
rvars.py          RVars with their RDoms' bounds and predicates
"""
from .derivative import Derivative, propagate_adjoints

__all__ = ["Derivative", "propagate_adjoints"]
