# Detection power (docs/detection.md): the catalogue's named killers exist
# (programs in corpus/, registered unit tests), come from two themes or say
# why not, and agree with docs/detection.md. No device.
vc_add_test(test_named_killers
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_named_killers.c
  LIBS vc_model vc_litmus
  LABELS detection unit)
# The independent model of docs/semantics.md (tests/detection/semantics_model.py)
# agrees with every value corpus/semantics states in (expect (buffer ...)),
# and every output there has one: goldens that do not come from the oracle.
find_program(VC_PYTHON3 python3)
if(VC_PYTHON3)
  file(GLOB VC_SEMANTICS_PROGRAMS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/corpus/semantics/*.vyre)
  # and the other programs whose stated values, for every output, the model
  # computes too (values/f32_scaled_sums and values/spill_across_empty_segments
  # took them from it; the others state values of their own that it confirms)
  foreach(p values/f32_scaled_sums values/spill_across_empty_segments
      values/i64_order_across_barrier values/spill_u64_high_word shared/shared_u64_reduce
      control/barrier_then_global_if_f32 control/barrier_then_global_if_u32
      control/barrier_then_local_if_f32 control/barrier_then_local_if_u32
      control/break_continue_while_in_loop control/break_nested_before_barrier
      control/continue_then_workgroup_barrier control/while_list_walk control/while_trip_counts)
    list(APPEND VC_SEMANTICS_PROGRAMS ${CMAKE_SOURCE_DIR}/corpus/${p}.vyre)
  endforeach()
  add_test(NAME semantics_model_agrees
    COMMAND ${VC_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/semantics_model.py --check ${VC_SEMANTICS_PROGRAMS})
  set_tests_properties(semantics_model_agrees PROPERTIES LABELS "detection;unit")
  # Every op x type docs/format.md allows is evaluated by the model in at least
  # two of those programs (issue 28, item 3); the census's op list equals
  # program.c's names and format.md's tables.
  add_test(NAME op_type_census
    COMMAND ${VC_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/op_type_census.py ${VC_SEMANTICS_PROGRAMS})
  add_test(NAME op_type_census_lists
    COMMAND ${VC_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/op_type_census.py --self-test)
  # It can fail: two programs leave gaps, and it says which (exit 1).
  add_test(NAME op_type_census_finds_gaps
    COMMAND sh -c "out=$(\"$0\" \"$1\" \"$2\" \"$3\" 2>&1 >/dev/null); s=$?; printf '%s\\n' \"$out\"; test $s = 1 && printf '%s\\n' \"$out\" | grep -q '^gap: atomic cmpxchg i64 shared: 0 program' && printf '%s\\n' \"$out\" | grep -q '^gap: div f32: 0 program'"
      ${VC_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/op_type_census.py
      ${CMAKE_SOURCE_DIR}/corpus/semantics/shifts.vyre ${CMAKE_SOURCE_DIR}/corpus/semantics/int_wrap.vyre)
  set_tests_properties(op_type_census op_type_census_lists op_type_census_finds_gaps
    PROPERTIES LABELS "detection;unit")
endif()
# ci/mutants --named's usage errors and `vyre-conform mutants --killers`.
add_test(NAME mutants_named_usage
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/mutants_usage.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(mutants_named_usage PROPERTIES LABELS "detection;unit")
