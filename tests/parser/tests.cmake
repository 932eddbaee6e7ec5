# Tests of the .vyre parser, validator and printer.
set(VC_PARSER_TESTS ${CMAKE_CURRENT_LIST_DIR})

foreach(t test_parse_errors test_parse_model test_parse_literals test_expect_timeout
    test_output_digest)
  vc_add_test(${t} SOURCES ${VC_PARSER_TESTS}/${t}.c ${VC_PARSER_TESTS}/parser_util.c
    LIBS vc_split LABELS parser)
endforeach()

vc_add_test(test_print_roundtrip SOURCES ${VC_PARSER_TESTS}/test_print_roundtrip.c
  ${VC_PARSER_TESTS}/parser_util.c ${VC_PARSER_TESTS}/program_gen.c
  LIBS vc_split LABELS parser)

# Fuzzing the parser and printer: build with -DVC_FUZZ=ON (clang), then e.g.
#   fuzz_parse -max_total_time=300 NEW_DIR corpus/
if(VC_FUZZ)
  include(${CMAKE_SOURCE_DIR}/harness/lang/parser.cmake)
  add_executable(fuzz_parse ${VC_PARSER_TESTS}/fuzz_parse.c ${VC_PARSER_SOURCES})
  target_compile_options(fuzz_parse PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_parse PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_parse PRIVATE vc_model vc_warnings)
endif()

# Throughput of the parser and printer (run by hand; not a test).
add_executable(bench_parse ${VC_PARSER_TESTS}/bench_parse.c)
target_link_libraries(bench_parse PRIVATE vc_split vc_warnings)
