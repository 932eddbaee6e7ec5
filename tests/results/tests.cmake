# Tests of the results database, compare, merge, expectations, reports and
# the nightly CI script.
set(VC_RT ${CMAKE_CURRENT_LIST_DIR})

add_library(vc_results_fixture STATIC ${VC_RT}/fixture.c)
target_include_directories(vc_results_fixture PUBLIC ${CMOCKA_INCLUDE_DIR})
target_link_libraries(vc_results_fixture PUBLIC vc_results ${CMOCKA_LIBRARY} PRIVATE vc_warnings)
target_compile_options(vc_results_fixture PRIVATE -Wno-cast-qual)

vc_add_test(results_record SOURCES ${VC_RT}/test_record.c LIBS vc_results_fixture LABELS results)
vc_add_test(results_faults SOURCES ${VC_RT}/test_faults.c LIBS vc_results_fixture LABELS results)
vc_add_test(results_text SOURCES ${VC_RT}/test_text.c LIBS vc_results_fixture LABELS results)
vc_add_test(results_expectations SOURCES ${VC_RT}/test_expectations.c LIBS vc_results_fixture LABELS results)
vc_add_test(results_compare SOURCES ${VC_RT}/test_compare.c LIBS vc_results_fixture vc_results_cmd LABELS results)
# A results file of schema version 1, made by that release: read, migrated, compared.
vc_add_test(results_migrate SOURCES ${VC_RT}/test_migrate.c LIBS vc_results_fixture vc_results_cmd LABELS results)
# Results files on a read-only volume: compare, merge and report read them.
vc_add_test(results_readonly SOURCES ${VC_RT}/test_readonly.c LIBS vc_results_fixture vc_results_cmd LABELS results)
# The worker-to-runner wire, column by column.
vc_add_test(test_wire SOURCES ${VC_RT}/test_wire.c LIBS vc_run LABELS results)
# export --csv/--failures, and a failures file as compare's baseline.
vc_add_test(results_csv SOURCES ${VC_RT}/test_csv.c LIBS vc_results_fixture vc_results_cmd LABELS results)
# The worker's standard error, captured per result.
vc_add_test(results_capture SOURCES ${VC_RT}/test_capture.c LIBS vc_run LABELS results)
# ... and end to end: PoCL's debug log lands in every result's stderr column.
if(TARGET vc-backend-opencl)
  add_test(NAME results_stderr_pocl
    COMMAND sh ${VC_RT}/stderr_pocl_test.sh $<TARGET_FILE:vyre-conform> ${CMAKE_SOURCE_DIR})
  set_tests_properties(results_stderr_pocl PROPERTIES LABELS "results;opencl;pocl" TIMEOUT 300)
  # The reports of a real PoCL run with a planted flip (xmllint validates the JUnit).
  add_test(NAME results_report_pocl
    COMMAND sh ${VC_RT}/report_pocl_test.sh $<TARGET_FILE:vyre-conform> ${CMAKE_SOURCE_DIR})
  set_tests_properties(results_report_pocl PROPERTIES LABELS "results;opencl;pocl" TIMEOUT 300)
  # `verdict` of a results file is the exit status of the PoCL run that wrote it.
  add_test(NAME results_verdict_pocl
    COMMAND sh ${VC_RT}/verdict_pocl_test.sh $<TARGET_FILE:vyre-conform>)
  set_tests_properties(results_verdict_pocl PROPERTIES LABELS "results;opencl;pocl" TIMEOUT 300)
  # ci/nightly end to end with the real runner: 4 shards on PoCL, retries,
  # merge, bootstrap and gate.
  add_test(NAME results_nightly_pocl
    COMMAND sh ${VC_RT}/nightly_pocl_test.sh $<TARGET_FILE:vyre-conform> ${CMAKE_SOURCE_DIR})
  # 6 min under ASan on an idle 2-core machine, past 10 beside two CPU hogs:
  # the timeout only catches a hang
  set_tests_properties(results_nightly_pocl PROPERTIES LABELS "integration;opencl;ci" TIMEOUT 1800)
  # Real shards on PoCL merge into the whole run; another build's shard is refused.
  add_test(NAME results_merge_pocl
    COMMAND sh ${VC_RT}/merge_pocl_test.sh $<TARGET_FILE:vyre-conform>)
  set_tests_properties(results_merge_pocl PROPERTIES LABELS "results;integration;opencl;pocl"
    TIMEOUT 300)
  # A package of a PoCL run verifies; each tampering of it is named invalid.
  add_test(NAME results_package_pocl
    COMMAND sh ${VC_RT}/package_test.sh $<TARGET_FILE:vyre-conform> opencl)
  set_tests_properties(results_package_pocl PROPERTIES LABELS "results;integration;opencl;pocl"
    TIMEOUT 300)
endif()
# ... and of a lavapipe run (only lavapipe, whatever else the machine has).
if(TARGET vc-backend-vulkan)
  add_test(NAME results_package_lavapipe
    COMMAND sh ${VC_RT}/package_test.sh $<TARGET_FILE:vyre-conform> vulkan)
  set_tests_properties(results_package_lavapipe PROPERTIES LABELS "results;integration;vulkan"
    ENVIRONMENT "VK_DRIVER_FILES=${VC_LAVAPIPE_ICD}" TIMEOUT 300)
endif()
# Divergence classes by cause on a device that flushes denormals.
vc_add_test(results_divclass SOURCES ${VC_RT}/test_divclass.c LIBS vc_exec LABELS results)
# A package's parts without a device: reasons' classes, the JSON reader, SHA256SUMS.
vc_add_test(results_package SOURCES ${VC_RT}/test_package.c LIBS vc_results_fixture LABELS results)
vc_add_test(results_merge SOURCES ${VC_RT}/test_merge.c LIBS vc_results_fixture vc_results_cmd LABELS results)
# The sections the HTML and Markdown reports share say the same in both.
vc_add_test(results_sections SOURCES ${VC_RT}/test_sections.c LIBS vc_results_fixture LABELS results)

# The JUnit test parses the XML with libxml2; the render test decodes
# Chromium's PNG with zlib. Without them the tests fail rather than vanish.
find_package(LibXml2)
find_package(ZLIB)
if(LibXml2_FOUND)
  vc_add_test(results_report SOURCES ${VC_RT}/test_report.c
    LIBS vc_results_fixture vc_results_cmd LibXml2::LibXml2 LABELS results)
  # the JUnit report is validated by xmllint against this schema (libxml2-utils)
  target_compile_definitions(results_report PRIVATE
    VC_JUNIT_XSD="${VC_RT}/data/junit-10.xsd")
else()
  add_test(NAME results_report COMMAND sh -c "echo 'results_report needs libxml2-dev'; exit 1")
endif()
if(ZLIB_FOUND)
  vc_add_test(results_render SOURCES ${VC_RT}/test_render.c ${VC_RT}/png_colours.c
    LIBS vc_results_fixture ZLIB::ZLIB LABELS results chromium)
else()
  add_test(NAME results_render COMMAND sh -c "echo 'results_render needs zlib1g-dev'; exit 1")
endif()

# ci/nightly, end to end with a stand-in runner; the CI adoption files parse.
add_executable(vc_fake_conform ${VC_RT}/fake_conform.c)
target_link_libraries(vc_fake_conform PRIVATE vc_results_fixture vc_results_cmd vc_warnings)
target_compile_options(vc_fake_conform PRIVATE -Wno-cast-qual)
add_test(NAME results_nightly
  COMMAND sh ${VC_RT}/nightly_test.sh ${CMAKE_SOURCE_DIR} $<TARGET_FILE:vc_fake_conform>)
set_tests_properties(results_nightly PROPERTIES LABELS "results;ci")
find_program(VC_PYTHON3 python3)
if(VC_PYTHON3)
  add_test(NAME results_ci_files COMMAND ${VC_PYTHON3} ${VC_RT}/ci_files_test.py ${CMAKE_SOURCE_DIR})
else()
  add_test(NAME results_ci_files COMMAND sh -c "echo 'results_ci_files needs python3 (and python3-yaml)'; exit 1")
endif()
set_tests_properties(results_ci_files PROPERTIES LABELS "results;ci")

# A benchmark, not a test: vc_bench_results [PROGRAMS [REPEATS]].
add_executable(vc_bench_results ${VC_RT}/bench_results.c)
target_link_libraries(vc_bench_results PRIVATE vc_results_fixture vc_warnings)
target_compile_options(vc_bench_results PRIVATE -Wno-cast-qual)
