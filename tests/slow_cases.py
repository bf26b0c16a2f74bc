"""Parametrized tests whose later cases run in the slow run only (`-m slow`,
which .ci/run runs after the default suite): each function named here keeps
its first `keep` cases, in collection order, in the default run. Their cases
repeat one construct over dtypes, shapes, memory layouts or programs of one
generator, so the default run still has each construct; every case still
runs in CI. The default run's budget is 10 minutes on CI's 2 cores
(docs/test_time27.md)."""
from __future__ import annotations

import pytest

KEEP = {
    "tests/frontend/test_sum_order_new_arrays.py::"
    "test_sums_of_new_arrays_follow_the_operands_layout": 1,
    "tests/frontend/test_complex_concatenate20.py::test_complex_join_equals_numpy": 1,
    "tests/frontend/test_complex_stack_order20.py::test_complex_stack_sums_equal_numpy": 1,
    "tests/frontend/test_array_interp.py::test_interp_equals_numpy": 3,
    "tests/frontend/test_array_interp.py::test_searchsorted_equals_numpy": 1,
    "tests/frontend/test_array_scans.py::test_scans_of_dtypes": 2,
    "tests/frontend/test_array_scans.py::test_scans_of_shapes": 2,
    "tests/frontend/test_array_quantile.py::test_equal_numpy": 2,
    "tests/frontend/test_local_extremes20.py::test_stencil_extremes_equal_numpy": 4,
    "tests/scans/test_scan_loop_order.py::test_column_scan_equals_numpy": 2,
    "tests/frontend/test_array_trace.py::test_trace_equals_numpy": 2,
    "tests/frontend/test_sum_order_functions19.py::test_shape_functions_sum_in_numpys_order": 1,
    "tests/frontend/test_array_reductions.py::test_reductions_of_every_shape": 10,
    "tests/frontend/test_complex_part_ravel20.py::test_part_ravel_is_a_copy_as_numpy": 1,
    "tests/frontend/test_array_dot.py::test_integer_products_exact": 3,
    "tests/frontend/test_phase_bounds25.py::test_one_axis_of_2d": 2,
    "tests/frontend/test_complex_sums.py::test_one_axis_pairwise": 6,
    "tests/schedules/test_schedule_directives.py::test_tail_strategy_2d": 6,
    "tests/schedules/test_schedule_directives.py::test_directive_2d": 13,
    "tests/schedules/test_schedule_directives.py::test_directive_1d": 21,
    "tests/tables/test_handwritten_variants.py::test_rfactor_equals_serial": 29,
    "tests/frontend/test_numpy_kernels.py::test_kernel_equals_plain_python": 38,
    "tests/frontend/test_imperative_nests.py::test_against_python": 13,
    "tests/frontend/test_maybe_unbound_nested.py::test_against_python": 31,
    "tests/frontend/test_nested_while.py::test_against_python": 23,
    "tests/frontend/test_writes_reading_reductions.py::"
    "test_write_reads_a_reduction_of_its_array": 9,
    "tests/frontend/test_axis_sum_shapes.py::test_sums_equal_numpy": 13,
    "tests/frontend/test_array_ufuncs.py::test_operator_functions": 6,
    "tests/frontend/test_array_ufuncs.py::test_transcendental_within_two_ulp": 8,
    "tests/frontend/test_loop_nest_scans.py::test_running_value_read_inside_the_nest": 3,
    "tests/frontend/test_scan_outputs.py::test_the_array_is_the_scan_and_equals_python": 3,
    "tests/frontend/test_carried_arrays.py::test_carried_arrays_equal_python": 7,
}


def mark_later_cases_slow(items) -> None:
    """Adds the `slow` mark to the cases past KEEP's count of each function."""
    seen = {}
    for item in items:
        base = item.nodeid.split("[", 1)[0]
        keep = KEEP.get(base)
        if keep is None or "[" not in item.nodeid:
            continue
        seen[base] = seen.get(base, 0) + 1
        if seen[base] > keep:
            item.add_marker(pytest.mark.slow)
