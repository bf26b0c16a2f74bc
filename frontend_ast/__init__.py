"""pyhalide.frontend_ast: plain Python loops -> Func definitions (through the
user API), the engine behind `@ph.pipeline` (pyhalide/pipeline_function.py).

Modules, in the order a call goes through them:

    source.py      the decorated function's source, parsed, with file positions
    analyze.py     the supported subset (located errors), liveness, carried scalars
    specialize.py  one specialization (argument dtypes/dimensions): build, outputs, run
    builder.py     the interpreter: creates the objects below, binds the inputs,
                   executes statements (assignments, `if`, `for`, `return`)
    exprs.py       expressions; calls.py builtins, NumPy/math functions, array
                   creation; refs.py what names evaluate to that is not a value
    ops.py         operators with NumPy 2 / Python semantics; convert.py conversions;
                   unions.py values whose type depends on data; types.py NEP 50
                   promotion; values.py Val, Arr, Loop. These five import in one
                   direction: types <- values <- unions <- convert <- ops
                   (tests/core/test_structure.py checks it)
    ranges.py      numeric and affine bounds, proofs that indices are in range
    loop_bounds.py affine bounds of loop bounds, call-time bound checks
    arrays.py      array reads/writes, NumPy indexing, the writes of one iteration
    loops.py       loops, typing passes and type fixpoints of loop-carried state
    emit.py        Funcs and definitions through the API, placeholders resolved
    defs.py        loop state and array writes as definitions, array versions
    deps.py        reads of arrays that the same loop nest writes
    schedules.py   schedule functions, side files, p.funcs / p.vars
    targets.py     the running target and the choice of a side file
    deftext.py     `--stage defs` text and p.lower()
    errors.py      CompileError with file:line:col, caret and hint

The interpreter's state is split into objects with documented fields, each
given the others it uses when the Builder creates it (only the LoopRunner
calls back into the interpreter, through the two functions it is given):

    context.Context      where (cur_node, the source map), the typing mode, the
                         symbols, the run-time and call-time checks; the `cx`
                         that ops/convert/unions receive (errors, guard, static
                         parameters, `and`/`or` with range facts)
    scope.Scope          names -> values; the conditions the current statement
                         runs under (enclosing ifs, continues, lazy operands)
    loop_state.LoopState the active loops, their frames of pending writes, the
                         groups of carried scalars (loop_state.Group, fields
                         documented there), the loop nest being emitted
    emit.Emitter         Funcs, definitions, placeholder resolution      (cx)
    defs.Definitions     groups and cells -> definitions, array versions
                                                      (cx, scope, state, emitter)
    arrays.ArrayAccess   element reads and writes, one index-clamping helper
                         for both                     (cx, scope, state, defs)
    exprs.Expressions    expressions -> values         (cx, scope, arrays)
    loops.LoopRunner     `for` loops and their typing passes (cx, scope, state,
                         emitter, defs, the interpreter's evaluate/execute)
    builder.Builder      statements, over all of the above

A collaborator changes only its own fields and those of the objects it is
given, as its class docstring says.
"""
