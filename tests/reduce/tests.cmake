# The reducer and the fuzzer (docs/fuzzing.md): edits and signatures without
# a device; reduce end to end on PoCL; planted faults of the mutant build.
vc_add_test(test_reduce_edit SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_reduce_edit.c
  LIBS vc_reduce LABELS unit)
# The fuzzer's differentials without an oracle, on runs made in memory.
vc_add_test(test_fuzz_differential SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fuzz_differential.c
  LIBS vc_fuzz LABELS unit)
# The campaign's one call: what it hands back to the command before a device.
vc_add_test(test_fuzz_campaign SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_fuzz_campaign.c
  LIBS vc_fuzz LABELS unit)
# The programs' source the fuzzer records, and the migration that adds it.
find_package(SQLite3 REQUIRED)
vc_add_test(test_source_column SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_source_column.c
  LIBS vc_store SQLite::SQLite3 LABELS unit results)
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

# A bounded fuzz run on PoCL and on lavapipe; in the mutant build a planted
# fault found as one finding (test_fuzz_mutant_pocl).
add_executable(test_fuzz ${CMAKE_CURRENT_LIST_DIR}/test_fuzz.c ${CMAKE_CURRENT_LIST_DIR}/reduce_util.c)
target_include_directories(test_fuzz PRIVATE ${CMOCKA_INCLUDE_DIR})
target_link_libraries(test_fuzz PRIVATE vc_reduce SQLite::SQLite3 ${CMOCKA_LIBRARY} vc_warnings)
target_compile_options(test_fuzz PRIVATE -Wno-cast-qual)
target_compile_definitions(test_fuzz PRIVATE
  VC_SOURCE_DIR="${CMAKE_SOURCE_DIR}" VC_BINARY_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_fuzz vyre-conform)
if(TARGET vc-backend-opencl)
  add_dependencies(test_fuzz vc-backend-opencl)
  add_test(NAME test_fuzz_pocl COMMAND test_fuzz)
  set_tests_properties(test_fuzz_pocl PROPERTIES LABELS "integration;opencl" TIMEOUT 900
    ENVIRONMENT "FUZZ_BACKEND=opencl")
  if(VC_MUTANTS)
    add_test(NAME test_fuzz_mutant_pocl COMMAND test_fuzz)
    set_tests_properties(test_fuzz_mutant_pocl PROPERTIES
      LABELS "integration;opencl;mutant-reduce" TIMEOUT 900
      ENVIRONMENT "FUZZ_BACKEND=opencl;FUZZ_MUTANT=div-unguarded")
  endif()
endif()
if(TARGET vc-backend-vulkan)
  add_dependencies(test_fuzz vc-backend-vulkan)
  add_test(NAME test_fuzz_lavapipe COMMAND test_fuzz)
  set_tests_properties(test_fuzz_lavapipe PROPERTIES LABELS "integration;vulkan" TIMEOUT 900
    ENVIRONMENT "FUZZ_BACKEND=vulkan;VK_DRIVER_FILES=${VC_LAVAPIPE_ICD};MESA_VK_IGNORE_CONFORMANCE_WARNING=1")
endif()
