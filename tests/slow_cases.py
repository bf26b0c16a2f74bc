"""Parametrized tests whose later cases run in the slow run only (`-m slow`,
which .ci/run runs after the default suite): each function named here keeps
its first `keep` cases that are not marked slow already, in collection order,
in the default run. Their cases repeat one construct over dtypes, shapes,
memory layouts or programs of one generator, so the default run still has
each construct; every case still runs in CI. The default run's budget is 10
minutes on CI's 2 cores (docs/test_time29.md: the counts of session 29 keep 2
cases, or a quarter of the cases of functions with more than 8)."""
from __future__ import annotations

import pytest

KEEP = {
    "tests/backend/test_avx512_codegen.py::test_seeded_wide_programs": 2,
    "tests/backend/test_backend_arith.py::test_division_by_constant": 23,
    "tests/backend/test_backend_arith.py::test_integer_ops": 4,
    "tests/backend/test_backend_vector.py::test_vector_reduce": 24,
    "tests/backend/test_invariant_division.py::test_32_and_64_bit_random_and_edges": 2,
    "tests/backend/test_strided_loads.py::test_strided_vector_load_equals_numpy": 6,
    "tests/core/test_core_expr.py::test_integer_ops_wrap_and_euclid": 2,
    "tests/core/test_core_partition_loops.py::test_random_linear_guards_are_exact": 6,
    "tests/core/test_core_schedules.py::test_blur_schedules_match_reference": 4,
    "tests/dask/test_dask_nan.py::test_nan_reductions_on_dask_equal_python": 2,
    "tests/dask/test_dask_scan.py::test_integer_scans_equal_one_machine": 2,
    "tests/frontend/test_argsort_insertion22.py::test_argsort_by_insertion": 2,
    "tests/frontend/test_array_assignment.py::test_laplacian": 2,
    "tests/frontend/test_array_creation.py::test_joins_nd": 2,
    "tests/frontend/test_array_creation.py::test_tile": 2,
    "tests/frontend/test_array_dense_reads.py::test_broadcasting_and_mismatches": 3,
    "tests/frontend/test_array_dot.py::test_float_products_within_bound": 2,
    "tests/frontend/test_array_dot.py::test_integer_products_exact": 2,
    "tests/frontend/test_array_extras.py::test_equals_plain_python": 2,
    "tests/frontend/test_array_fuzz.py::test_array_expression_fuzz": 2,
    "tests/frontend/test_array_in_loops.py::test_array_code_in_loops_equals_python": 2,
    "tests/frontend/test_array_interp.py::test_interp_equals_numpy": 1,
    "tests/frontend/test_array_interp.py::test_searchsorted_equals_numpy": 1,
    "tests/frontend/test_array_quantile.py::test_equal_numpy": 2,
    "tests/frontend/test_array_reductions.py::test_reductions_of_every_dtype": 1,
    "tests/frontend/test_array_reductions.py::test_reductions_of_every_shape": 8,
    "tests/frontend/test_array_reductions.py::test_result_dtypes_follow_numpy": 2,
    "tests/frontend/test_array_scans.py::test_scans_of_dtypes": 2,
    "tests/frontend/test_array_scans.py::test_scans_of_shapes": 2,
    "tests/frontend/test_array_shape.py::test_shape_operations_any_ndim": 2,
    "tests/frontend/test_array_shift.py::test_one_d": 2,
    "tests/frontend/test_array_slicing.py::test_slices_1d_dtypes": 2,
    "tests/frontend/test_array_sort.py::test_argsort_is_numpys_stable_order": 2,
    "tests/frontend/test_array_sort.py::test_sort_1d_equals_numpy": 2,
    "tests/frontend/test_array_trace.py::test_trace_equals_numpy": 2,
    "tests/frontend/test_array_ufuncs.py::test_casts": 2,
    "tests/frontend/test_array_ufuncs.py::test_operator_functions": 2,
    "tests/frontend/test_array_ufuncs.py::test_signs_and_rounding": 2,
    "tests/frontend/test_array_ufuncs.py::test_transcendental_within_two_ulp": 2,
    "tests/frontend/test_axis_sum_shapes.py::test_sums_equal_numpy": 3,
    "tests/frontend/test_break_row_element.py::test_argument_rows": 2,
    "tests/frontend/test_break_row_element.py::test_recurrence_rows_of_argument": 2,
    "tests/frontend/test_break_row_element.py::test_row_sums_until": 2,
    "tests/frontend/test_broadcast_unswitch21.py::test_gray_scott_equals_numpy_at_every_shape": 2,
    "tests/frontend/test_broadcast_unswitch22.py::"
    "test_scheduled_gray_scott_equals_numpy_at_every_shape": 3,
    "tests/frontend/test_carried_array_aliases.py::test_swapping_an_argument_into_a_local_name": 4,
    "tests/frontend/test_carried_arrays.py::test_carried_arrays_equal_python": 2,
    "tests/frontend/test_carried_loops24.py::test_lms_pairwise": 2,
    "tests/frontend/test_carried_sizes22.py::test_mandelbrot_where_equals_python": 2,
    "tests/frontend/test_carried_state22.py::test_against_python": 1,
    "tests/frontend/test_complex.py::test_array_operations_are_numpys_bit_for_bit": 1,
    "tests/frontend/test_complex_argument_writes.py::test_complex_arguments_are_written": 1,
    "tests/frontend/test_complex_concatenate20.py::test_complex_join_equals_numpy": 1,
    "tests/frontend/test_complex_concatenate20.py::"
    "test_part_sums_of_complex_arguments_equal_numpy": 2,
    "tests/frontend/test_complex_part_ravel20.py::test_part_ravel_is_a_copy_as_numpy": 1,
    "tests/frontend/test_complex_stack_order20.py::test_complex_stack_sums_equal_numpy": 1,
    "tests/frontend/test_complex_sums.py::test_complex_means": 1,
    "tests/frontend/test_complex_sums.py::test_one_axis_pairwise": 2,
    "tests/frontend/test_convergence_nests22.py::test_fixed_point_with_break": 5,
    "tests/frontend/test_convergence_nests22.py::test_more_forms": 3,
    "tests/frontend/test_convergence_nests22.py::test_residual_with_max_and_a_counter": 4,
    "tests/frontend/test_copyto.py::test_copyto_equals_python": 3,
    "tests/frontend/test_data_branch_checks21.py::test_checks_under_a_test_of_data": 12,
    "tests/frontend/test_false_errors18.py::test_swapped_2d_steps_over_an_empty_region": 2,
    "tests/frontend/test_first_iteration_untold23.py::test_nest_matches_python": 2,
    "tests/frontend/test_frontend_loop_bounds.py::test_window_bounds_from_a_scalar_argument": 8,
    "tests/frontend/test_hoisted_reads22.py::test_a_read_the_inner_loop_never_writes_compiles": 4,
    "tests/frontend/test_hoisted_reads22.py::"
    "test_more_reads_the_inner_loop_overwrites_equal_python": 2,
    "tests/frontend/test_hoisted_split23.py::test_split_pieces_equal_python": 2,
    "tests/frontend/test_imperative_nests.py::test_against_python": 3,
    "tests/frontend/test_inplace_lu27.py::test_square": 2,
    "tests/frontend/test_inplace_whole_updates.py::test_whole_inplace_updates_equal_python": 2,
    "tests/frontend/test_local_extremes20.py::test_stencil_extremes_equal_numpy": 4,
    "tests/frontend/test_loop_bound_data_reach20.py::"
    "test_bound_checked_where_python_evaluates_it": 2,
    "tests/frontend/test_loop_forms.py::test_for_x_in_array": 3,
    "tests/frontend/test_loop_merge.py::test_variable_assigned_at_two_loop_depths": 2,
    "tests/frontend/test_loop_merge_exit.py::test_merged_loop_exit_equals_python": 2,
    "tests/frontend/test_loop_nest_scans.py::test_running_value_read_inside_the_nest": 3,
    "tests/frontend/test_loop_while_counter.py::test_counter_indexes_the_array": 6,
    "tests/frontend/test_lost_errors25.py::test_start_value_under_if_forms": 2,
    "tests/frontend/test_lost_errors25b.py::test_start_under_if_reading_a_func": 2,
    "tests/frontend/test_lu_pivot27.py::test_lu_pivot_as_python": 2,
    "tests/frontend/test_mask_reductions22.py::test_reductions_of_a_mask_read_equal_numpy": 8,
    "tests/frontend/test_maybe_unbound_nested.py::test_against_python": 7,
    "tests/frontend/test_ndindex_generators.py::test_local_maxima": 2,
    "tests/frontend/test_nested_loop_exit.py::test_escape_time_leaves_its_loop": 4,
    "tests/frontend/test_nested_while.py::test_against_python": 5,
    "tests/frontend/test_norm_order19.py::test_norms_sum_in_numpys_memory_order": 2,
    "tests/frontend/test_numpy_kernels.py::test_kernel_equals_plain_python": 7,
    "tests/frontend/test_numpy_pad.py::test_modes": 2,
    "tests/frontend/test_param_named_like_func_vars.py::"
    "test_argument_named_like_a_reduction_var": 2,
    "tests/frontend/test_phase_bounds25.py::test_one_axis_of_2d": 2,
    "tests/frontend/test_phase_first_run26.py::"
    "test_in_place_write_before_a_reduction_against_python": 2,
    "tests/frontend/test_phase_mode_empty.py::test_matrix_members": 2,
    "tests/frontend/test_read_after_write19.py::test_equals_python": 4,
    "tests/frontend/test_reduce_lanes_registers21.py::test_infinite_extremes_and_lane_positions": 2,
    "tests/frontend/test_reduce_lanes_registers21.py::test_special_values_bit_for_bit": 2,
    "tests/frontend/test_reshape_written_args.py::test_ravel_of_written_argument": 2,
    "tests/frontend/test_result_layout.py::test_returned_layout_is_numpys": 5,
    "tests/frontend/test_result_layout.py::test_sums_in_numpys_memory_order": 2,
    "tests/frontend/test_returned_reshape.py::test_values_equal_python": 2,
    "tests/frontend/test_returned_views.py::test_returned_view_shares_the_argument": 2,
    "tests/frontend/test_row_sum_groups.py::test_row_counts_around_the_group": 2,
    "tests/frontend/test_scan_one_pass.py::test_one_d": 2,
    "tests/frontend/test_scan_outputs.py::test_the_array_is_the_scan_and_equals_python": 2,
    "tests/frontend/test_slice_dots20.py::test_row_slice_dots_as_python": 2,
    "tests/frontend/test_sum_order.py::test_2d_row_lengths": 1,
    "tests/frontend/test_sum_order_functions19.py::test_shape_functions_sum_in_numpys_order": 1,
    "tests/frontend/test_sum_order_new_arrays.py::"
    "test_sums_of_new_arrays_follow_the_operands_layout": 1,
    "tests/frontend/test_ufunc_outer_divmod_diagonal.py::test_equals_python": 2,
    "tests/frontend/test_unread_loop_scalars23.py::test_unread_scalar_raises_as_python": 2,
    "tests/frontend/test_unread_loop_scalars23.py::test_written_array_read_raises_as_python": 2,
    "tests/frontend/test_untaken_shape_checks24.py::"
    "test_wrong_shape_in_loop_checked_only_when_it_runs": 2,
    "tests/frontend/test_writes_reading_reductions.py::"
    "test_write_reads_a_reduction_of_its_array": 2,
    "tests/halide_api/test_autodiff.py::test_math_functions": 3,
    "tests/halide_api/test_boundary_conditions.py::test_on_a_buffer_with_implicit_bounds": 2,
    "tests/halide_api/test_halide_intrinsics.py::test_intrinsics_equal_halide": 2,
    "tests/halide_api/test_halide_intrinsics.py::test_intrinsics_equal_their_definitions": 2,
    "tests/halide_api/test_vector_float_to_int.py::test_vector_cast_saturates_like_scalar": 2,
    "tests/rfactor/test_guard_split_fuzz.py::"
    "test_random_guarded_update_rfactored_equals_serial": 10,
    "tests/rfactor/test_heldout_loops.py::test_heldout_loop_rfactored_equals_python": 2,
    "tests/rfactor/test_one_sided_identity.py::test_last_write_wins": 3,
    "tests/rfactor/test_one_sided_identity.py::test_left_identity_tuple": 3,
    "tests/rfactor/test_one_sided_identity.py::test_neither_identity_seeds_each_slice": 4,
    "tests/rfactor/test_one_sided_identity.py::test_no_identity": 3,
    "tests/rfactor/test_one_sided_identity.py::test_one_sided_table_entries": 7,
    "tests/rfactor/test_parallel_scan.py::test_running_sum_in_place_int32": 2,
    "tests/rfactor/test_parallel_scan_frontend.py::test_scan_loops_equal_python": 2,
    "tests/rfactor/test_rfactor_frontend.py::test_python_number_accumulators_rfactor": 2,
    "tests/rfactor/test_rfactor_helpers.py::test_inline_reductions_rfactor": 2,
    "tests/rfactor/test_rfactor_helpers.py::test_other_helpers_rfactor": 2,
    "tests/rfactor/test_rfactor_nan_tuples.py::"
    "test_rfactored_loop_with_nan_and_signed_zeros_equals_python": 2,
    "tests/rfactor/test_rfactor_paper.py::test_paper_reduction_rfactor_equals_serial": 2,
    "tests/rfactor/test_rfactor_pipeline_checks.py::"
    "test_histogram_with_fewer_bins_than_the_data_range": 2,
    "tests/rfactor/test_rfactor_scatter_checks.py::"
    "test_funcs_that_are_not_outputs_keep_their_rules": 2,
    "tests/rfactor/test_rfactor_scatter_checks.py::"
    "test_out_of_range_bin_raises_under_every_schedule": 2,
    "tests/rfactor/test_synth_rfactor.py::test_commutative_synthesized_operator_inner_rvar": 2,
    "tests/rfactor/test_synth_rfactor.py::test_synthesized_operator_rfactor_equals_serial": 7,
    "tests/runtime/test_entry_results.py::test_entry_answers_and_equals_python": 2,
    "tests/scans/test_scan_loop_order.py::test_column_scan_equals_numpy": 2,
    "tests/scans/test_scan_peel.py::test_peeled_scan_equals_python_without_a_clamp": 2,
    "tests/schedules/test_schedule_directives.py::test_compute_at_each_loop_of_tiled_consumer": 3,
    "tests/schedules/test_schedule_directives.py::test_directive_1d": 5,
    "tests/schedules/test_schedule_directives.py::test_directive_2d": 3,
    "tests/schedules/test_schedule_directives.py::test_sizes_smaller_than_split_factor": 2,
    "tests/schedules/test_schedule_directives.py::test_tail_strategy_1d": 4,
    "tests/schedules/test_schedule_directives.py::test_tail_strategy_2d": 2,
    "tests/schedules/test_sliding_chains.py::test_chains_slid_in_strips_equal_the_reference": 2,
    "tests/tables/test_handwritten_variants.py::"
    "test_near_misses_synthesized_only_where_rfactor_equals_serial": 2,
    "tests/tables/test_handwritten_variants.py::test_rfactor_equals_serial": 7,
    "tests/tables/test_handwritten_variants_generated.py::test_table_entries_written_by_hand": 2,
    "tests/vectorize/test_vectorize_memory.py::test_strided_loads": 6,
    "tests/vectorize/test_vectorize_types.py::test_elementwise_ops_every_type": 2,
}


def mark_later_cases_slow(items) -> None:
    """Adds the `slow` mark to the cases past KEEP's count of each function."""
    seen = {}
    for item in items:
        base = item.nodeid.split("[", 1)[0]
        keep = KEEP.get(base)
        if keep is None or "[" not in item.nodeid or item.get_closest_marker("slow"):
            continue
        seen[base] = seen.get(base, 0) + 1
        if seen[base] > keep:
            item.add_marker(pytest.mark.slow)
