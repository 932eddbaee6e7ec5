# End-to-end runs of the vyre-conform program on the OpenCL backend (PoCL).
if(TARGET vc-backend-opencl)
  find_package(SQLite3 REQUIRED)
  vc_add_test(test_runner SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runner.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_exec SQLite::SQLite3 LABELS integration)
  add_dependencies(test_runner vyre-conform vc-backend-opencl)
  set_tests_properties(test_runner PROPERTIES TIMEOUT 600)
  # Several workers: the same database as one, the device token, interrupts,
  # the plain heartbeat, flake reruns.
  vc_add_test(runner_jobs_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_jobs.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_base SQLite::SQLite3 LABELS integration)
  add_dependencies(runner_jobs_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_jobs_pocl PROPERTIES TIMEOUT 600)
  # --jobs above the programs to run (after --resume): one worker a program.
  vc_add_test(runner_jobs_cap_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_jobs_cap.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_run SQLite::SQLite3 LABELS "integration;opencl")
  add_dependencies(runner_jobs_cap_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_jobs_cap_pocl PROPERTIES TIMEOUT 600)
  # A flake is a failure unless a flake entry lists it (run, report, compare).
  vc_add_test(runner_flakes_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_flakes.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_exec SQLite::SQLite3 LABELS "integration;opencl")
  add_dependencies(runner_flakes_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_flakes_pocl PROPERTIES TIMEOUT 300)
  # Rows of a crashed or timed-out worker keep its last words (results.stderr).
  vc_add_test(runner_last_words_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_last_words.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_base SQLite::SQLite3 LABELS integration)
  add_dependencies(runner_last_words_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_last_words_pocl PROPERTIES TIMEOUT 300)
  # Results files a run must refuse, and never write.
  vc_add_test(test_runner_db SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_runner_db.c
    LIBS vc_base SQLite::SQLite3 LABELS integration)
  add_dependencies(test_runner_db vyre-conform vc-backend-opencl)
  # A program's own (expect (timeout S)) against the default and --timeout.
  vc_add_test(runner_timeout_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_timeout_run.c
    LIBS vc_base SQLite::SQLite3 LABELS "integration;opencl")
  add_dependencies(runner_timeout_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_timeout_pocl PROPERTIES TIMEOUT 300)
  # PoCL's cached binaries hold the work-group function of the first launch.
  vc_add_test(runner_kcache_pocl_wg SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_kcache_pocl_wg.c
    LIBS vc_base LABELS "integration;opencl")
  add_dependencies(runner_kcache_pocl_wg vyre-conform vc-backend-opencl)
  set_tests_properties(runner_kcache_pocl_wg PROPERTIES TIMEOUT 300)
  # The command line mistyped: selections matching nothing in part, forgotten
  # values, outputs over inputs, `-`, the results commands' help, counts,
  # a results file in a missing folder.
  vc_add_test(runner_cli_guards_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_guards.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_base SQLite::SQLite3 LABELS "integration;opencl")
  add_dependencies(runner_cli_guards_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_cli_guards_pocl PROPERTIES TIMEOUT 300)
  # Workers get jobs once ready; --device-lock keeps two runs' device phases apart.
  vc_add_test(runner_device_lock_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_device_lock.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_base SQLite::SQLite3 LABELS "integration;opencl")
  add_dependencies(runner_device_lock_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_device_lock_pocl PROPERTIES TIMEOUT 600)
  # A run's lock, its workers, SIGHUP and a file-size limit live and die with its process.
  vc_add_test(runner_lifetime_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_lifetime.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_base SQLite::SQLite3 LABELS "integration;opencl")
  add_dependencies(runner_lifetime_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_lifetime_pocl PROPERTIES TIMEOUT 600)
  # A results file locked by another writer: the run waits, saying so, up to --db-timeout.
  vc_add_test(runner_db_wait_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_db_wait.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_base SQLite::SQLite3 LABELS "integration;opencl")
  add_dependencies(runner_db_wait_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_db_wait_pocl PROPERTIES TIMEOUT 600)
  # --shard K/N by --shard-costs: each program in one shard, where --shard-plan says.
  vc_add_test(runner_shard_costs_pocl SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_shard_run.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c
    LIBS vc_base SQLite::SQLite3 LABELS "integration;opencl")
  add_dependencies(runner_shard_costs_pocl vyre-conform vc-backend-opencl)
  set_tests_properties(runner_shard_costs_pocl PROPERTIES TIMEOUT 600)
endif()

# check --timeout inside one long phase of the oracle (no device).
find_package(SQLite3 REQUIRED)
vc_add_test(runner_check_timeout SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_check_timeout.c
  ${CMAKE_CURRENT_LIST_DIR}/run_util.c LIBS vc_base SQLite::SQLite3 LABELS integration)
add_dependencies(runner_check_timeout vyre-conform)
set_tests_properties(runner_check_timeout PROPERTIES TIMEOUT 300)

# Verdicts (harness/model/verdict.c, harness/exec/judge.c) on their own.
vc_add_test(test_verdict SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_verdict.c LIBS vc_exec
  LABELS unit)

# The run's exit status against expectations: skip on PoCL, the project's
# expectations on lavapipe (only lavapipe, whatever else the machine has).
find_package(SQLite3 REQUIRED)
add_executable(test_gate_run ${CMAKE_CURRENT_LIST_DIR}/test_gate_run.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c)
target_include_directories(test_gate_run PRIVATE ${CMOCKA_INCLUDE_DIR} ${CMAKE_SOURCE_DIR})
target_link_libraries(test_gate_run PRIVATE SQLite::SQLite3 ${CMOCKA_LIBRARY} vc_warnings)
target_compile_options(test_gate_run PRIVATE -Wno-cast-qual)
target_compile_definitions(test_gate_run PRIVATE
  VC_SOURCE_DIR="${CMAKE_SOURCE_DIR}" VC_BINARY_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_gate_run vyre-conform)
if(TARGET vc-backend-opencl)
  add_test(NAME test_gate_run_pocl COMMAND test_gate_run)
  set_tests_properties(test_gate_run_pocl PROPERTIES LABELS "integration;opencl"
    ENVIRONMENT "GATE_BACKEND=opencl" TIMEOUT 300)
endif()
if(TARGET vc-backend-vulkan)
  add_dependencies(test_gate_run vc-backend-vulkan)
  add_test(NAME test_gate_run_lavapipe COMMAND test_gate_run)
  set_tests_properties(test_gate_run_lavapipe PROPERTIES LABELS "integration;vulkan"
    ENVIRONMENT "GATE_BACKEND=vulkan;VK_DRIVER_FILES=${VC_LAVAPIPE_ICD};MESA_VK_IGNORE_CONFORMANCE_WARNING=1"
    TIMEOUT 300)
endif()
if(TARGET vc-backend-opencl)
  add_dependencies(test_gate_run vc-backend-opencl)
endif()

# ci/qualify runs its backends at once, one device lock between them.
if(TARGET vc-backend-opencl AND TARGET vc-backend-vulkan)
  add_test(NAME runner_qualify_pocl_lavapipe
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/qualify_test.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(runner_qualify_pocl_lavapipe PROPERTIES LABELS "integration;ci"
    ENVIRONMENT "VK_DRIVER_FILES=${VC_LAVAPIPE_ICD}" TIMEOUT 600)
  # its litmus run on lavapipe meets Mesa's unnamed leak (tests/litmus/tests.cmake)
  list(APPEND VC_LSAN_OFF runner_qualify_pocl_lavapipe)
endif()

# ci/qualify --package: the runs' package, verified; a dirty checkout refused.
if(TARGET vc-backend-opencl)
  add_test(NAME runner_qualify_package_pocl
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/qualify_package_test.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(runner_qualify_package_pocl PROPERTIES LABELS "integration;ci;opencl;pocl"
    TIMEOUT 300)
endif()

# One judge: run, report, compare, export and ci/nightly agree on lavapipe's
# known fault; a copied binary finds the expectations of the checkout it is
# run from (docs/gating.md, docs/usage.md).
if(TARGET vc-backend-vulkan)
  add_test(NAME runner_one_judge_lavapipe
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/one_judge_test.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  add_test(NAME runner_moved_binary_lavapipe
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/moved_binary_test.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(runner_one_judge_lavapipe runner_moved_binary_lavapipe PROPERTIES
    LABELS "integration;ci;vulkan" ENVIRONMENT "VK_DRIVER_FILES=${VC_LAVAPIPE_ICD}"
    TIMEOUT 300)
endif()

# ci/nightly's promotion rule, with the stand-in runner of the results tests.
add_test(NAME runner_nightly_promote
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/nightly_promote_test.sh ${CMAKE_SOURCE_DIR}
          $<TARGET_FILE:vc_fake_conform>)
set_tests_properties(runner_nightly_promote PROPERTIES LABELS "runner;ci")

# The kernel cache end to end: warm hits, a corrupted entry rewritten, two
# runs sharing a cache, --no-cache, the default folder.
add_executable(test_kcache_run ${CMAKE_CURRENT_LIST_DIR}/test_kcache_run.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c)
target_include_directories(test_kcache_run PRIVATE ${CMOCKA_INCLUDE_DIR} ${CMAKE_SOURCE_DIR})
target_link_libraries(test_kcache_run PRIVATE SQLite::SQLite3 ${CMOCKA_LIBRARY} vc_warnings)
target_compile_options(test_kcache_run PRIVATE -Wno-cast-qual)
target_compile_definitions(test_kcache_run PRIVATE VC_BINARY_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_kcache_run vyre-conform)
if(TARGET vc-backend-opencl)
  add_dependencies(test_kcache_run vc-backend-opencl)
  add_test(NAME opencl_kcache_pocl COMMAND test_kcache_run)
  set_tests_properties(opencl_kcache_pocl PROPERTIES LABELS "integration;opencl"
    ENVIRONMENT "KC_BACKEND=opencl" TIMEOUT 600)
endif()
if(TARGET vc-backend-vulkan)
  add_dependencies(test_kcache_run vc-backend-vulkan)
  add_test(NAME vk_kcache_lavapipe COMMAND test_kcache_run)
  set_tests_properties(vk_kcache_lavapipe PROPERTIES LABELS "integration;vulkan"
    ENVIRONMENT "KC_BACKEND=vulkan;VK_DRIVER_FILES=${VC_LAVAPIPE_ICD};MESA_VK_IGNORE_CONFORMANCE_WARNING=1"
    TIMEOUT 600)
endif()

# The reference cache end to end: a warm run reads every reference, a
# damaged entry is rewritten, two runs at once, --no-reference-cache, the
# default folder.
add_executable(test_refcache_run ${CMAKE_CURRENT_LIST_DIR}/test_refcache_run.c ${CMAKE_CURRENT_LIST_DIR}/run_util.c)
target_include_directories(test_refcache_run PRIVATE ${CMOCKA_INCLUDE_DIR} ${CMAKE_SOURCE_DIR})
target_link_libraries(test_refcache_run PRIVATE SQLite::SQLite3 ${CMOCKA_LIBRARY} vc_warnings)
target_compile_options(test_refcache_run PRIVATE -Wno-cast-qual)
target_compile_definitions(test_refcache_run PRIVATE VC_BINARY_DIR="${CMAKE_BINARY_DIR}")
add_dependencies(test_refcache_run vyre-conform)
if(TARGET vc-backend-opencl)
  add_dependencies(test_refcache_run vc-backend-opencl)
  add_test(NAME opencl_refcache_pocl COMMAND test_refcache_run)
  set_tests_properties(opencl_refcache_pocl PROPERTIES LABELS "integration;opencl" TIMEOUT 600)
endif()

# Kernel cache entries on their own.
vc_add_test(runner_kcache SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_kcache.c LIBS vc_base LABELS unit)
# Reference cache entries on their own, and two processes on one key.
vc_add_test(runner_refcache SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_refcache.c LIBS vc_exec vc_lang
  LABELS unit)
# Caselist files (--caselist).
vc_add_test(runner_caselist SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_caselist.c LIBS vc_lang LABELS unit)

# The start order of a run with several workers.
vc_add_test(test_schedule SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_schedule.c LIBS vc_run
  LABELS unit)
# The plan of --shard K/N and the --shard-costs it reads.
vc_add_test(test_shard_plan SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_shard_plan.c LIBS vc_run
  LABELS unit)
