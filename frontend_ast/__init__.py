"""pyhalide.frontend_ast: plain Python loops -> Func definitions (through the
user API), the engine behind `@ph.pipeline` (pyhalide/pipeline.py).

Modules, in the order a call goes through them:

    source.py      the decorated function's source, parsed, with file positions
    analyze.py     the supported subset (located errors), liveness, carried scalars
    specialize.py  one specialization (argument dtypes/dimensions): build, outputs, run
    builder.py     the interpreter: inputs, statements, conditions, run-time checks
    exprs.py       expressions; calls.py builtins, NumPy/math functions, array creation
    ops.py         operators with NumPy 2 / Python semantics; convert.py conversions;
                   types.py NEP 50 promotion
    ranges.py      numeric and affine bounds, proofs that indices are in range
    arrays.py      array reads/writes, NumPy indexing, the writes of one iteration
    loops.py       loops, loop-carried state ("groups"), scans, type fixpoints
    emit.py/defs.py  the definitions (pure, update, RDom, where), array versions
    deps.py        reads of arrays that the same loop nest writes
    schedules.py   schedule functions, side files, p.funcs / p.vars
    targets.py     the running target and the choice of a side file
    deftext.py     `--stage defs` text and p.lower()
    errors.py      CompileError with file:line:col, caret and hint
"""
