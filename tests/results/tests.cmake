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
vc_add_test(results_merge SOURCES ${VC_RT}/test_merge.c LIBS vc_results_fixture vc_results_cmd LABELS results)

# The JUnit test parses the XML with libxml2; the render test decodes
# Chromium's PNG with zlib. Without them the tests fail rather than vanish.
find_package(LibXml2)
find_package(ZLIB)
if(LibXml2_FOUND)
  vc_add_test(results_report SOURCES ${VC_RT}/test_report.c
    LIBS vc_results_fixture vc_results_cmd LibXml2::LibXml2 LABELS results)
else()
  add_test(NAME results_report COMMAND sh -c "echo 'results_report needs libxml2-dev'; exit 1")
endif()
if(ZLIB_FOUND)
  vc_add_test(results_render SOURCES ${VC_RT}/test_render.c ${VC_RT}/png_colours.c
    LIBS vc_results_fixture ZLIB::ZLIB LABELS results chromium)
else()
  add_test(NAME results_render COMMAND sh -c "echo 'results_render needs zlib1g-dev'; exit 1")
endif()

