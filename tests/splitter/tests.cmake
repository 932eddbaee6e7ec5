vc_add_test(test_split SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_split.c LIBS vc_exec)
vc_add_test(test_gate_checks SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gate_checks.c LIBS vc_exec)
vc_add_test(test_host_copies SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_host_copies.c LIBS vc_exec)
vc_add_test(test_device_phase SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_device_phase.c LIBS vc_exec)
vc_add_test(test_plan_validate SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plan_validate.c LIBS vc_exec)
# The plan validator against a planted splitter fault, in check and in a run
# on PoCL (the mutant build only: docs/detection.md).
if(VC_MUTANTS AND TARGET vc-backend-opencl)
  add_test(NAME plan_validator_mutant
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/plan_validator_mutant.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(plan_validator_mutant PROPERTIES
    LABELS "integration;opencl;mutant-split" TIMEOUT 600)
endif()
# The splitter's decisions read off small plans (harness/split/decisions.h),
# and every decision taken by 2 corpus programs from 2 themes at least
# (docs/splitter.md, section 8). No device.
vc_add_test(test_split_decisions SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_split_decisions.c
  LIBS vc_split LABELS unit)
add_test(NAME split_coverage
  COMMAND vyre-conform split --coverage --min-programs 2 --min-themes 2 corpus/
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(split_coverage PROPERTIES LABELS "corpus;unit" TIMEOUT 300)
