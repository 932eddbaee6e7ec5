# Tests of the .vyre parser, validator and printer.
set(VC_PARSER_TESTS ${CMAKE_CURRENT_LIST_DIR})

foreach(t test_parse_errors test_parse_model test_parse_literals)
  vc_add_test(${t} SOURCES ${VC_PARSER_TESTS}/${t}.c ${VC_PARSER_TESTS}/parser_util.c
    LIBS vc_lang LABELS parser)
endforeach()

vc_add_test(test_print_roundtrip SOURCES ${VC_PARSER_TESTS}/test_print_roundtrip.c
  ${VC_PARSER_TESTS}/parser_util.c ${VC_PARSER_TESTS}/program_gen.c
  LIBS vc_lang LABELS parser)
