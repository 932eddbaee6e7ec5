# End-to-end runs of the vyre-conform program on the OpenCL backend (PoCL).
if(TARGET vc-backend-opencl)
  find_package(SQLite3 REQUIRED)
  vc_add_test(test_runner SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runner.c
    LIBS vc_exec SQLite::SQLite3 LABELS integration)
  add_dependencies(test_runner vyre-conform vc-backend-opencl)
  set_tests_properties(test_runner PROPERTIES TIMEOUT 600)
endif()

# ci/nightly's promotion rule, with the stand-in runner of the results tests.
add_test(NAME runner_nightly_promote
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/nightly_promote_test.sh ${CMAKE_SOURCE_DIR}
          $<TARGET_FILE:vc_fake_conform>)
set_tests_properties(runner_nightly_promote PROPERTIES LABELS "runner;ci")
