# Sources of the parser, validator and printer (paths relative to harness/).
set(VC_PARSER_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/parse.c
  ${CMAKE_CURRENT_SOURCE_DIR}/print.c)
