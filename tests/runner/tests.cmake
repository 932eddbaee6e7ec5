# End-to-end runs of the vyre-conform program on the OpenCL backend (PoCL).
if(TARGET vc-backend-opencl)
  find_package(SQLite3 REQUIRED)
  vc_add_test(test_runner SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runner.c
    LIBS vc_exec SQLite::SQLite3 LABELS integration)
  add_dependencies(test_runner vyre-conform vc-backend-opencl)
  set_tests_properties(test_runner PROPERTIES TIMEOUT 600)
  # Results files a run must refuse, and never write.
  vc_add_test(test_runner_db SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runner_db.c
    LIBS vc_base SQLite::SQLite3 LABELS integration)
  add_dependencies(test_runner_db vyre-conform vc-backend-opencl)
endif()
