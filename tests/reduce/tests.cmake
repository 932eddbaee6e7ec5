# The reducer and the fuzzer (docs/fuzzing.md): edits and signatures without
# a device; reduce end to end on PoCL; planted faults of the mutant build.
vc_add_test(test_reduce_edit SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reduce_edit.c
  LIBS vc_reduce LABELS unit)
if(TARGET vc-backend-opencl)
  vc_add_test(test_reduce_cli
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reduce_cli.c ${CMAKE_CURRENT_LIST_DIR}/reduce_util.c
    LIBS vc_reduce LABELS integration opencl)
  add_dependencies(test_reduce_cli vyre-conform vc-backend-opencl)
  set_tests_properties(test_reduce_cli PROPERTIES TIMEOUT 600)
  # Planted faults exist only in the mutant build (docs/detection.md).
  if(VC_MUTANTS)
    vc_add_test(test_reduce_mutants
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reduce_mutants.c ${CMAKE_CURRENT_LIST_DIR}/reduce_util.c
      LIBS vc_reduce LABELS integration opencl mutant-reduce)
    add_dependencies(test_reduce_mutants vyre-conform vc-backend-opencl)
    set_tests_properties(test_reduce_mutants PROPERTIES TIMEOUT 900)
  endif()
endif()
