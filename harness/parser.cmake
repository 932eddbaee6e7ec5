# Sources of the parser, validator and printer (paths relative to harness/).
set(VC_PARSER_SOURCES
  ${CMAKE_CURRENT_SOURCE_DIR}/lex.c
  ${CMAKE_CURRENT_SOURCE_DIR}/read.c
  ${CMAKE_CURRENT_SOURCE_DIR}/parse_lit.c
  ${CMAKE_CURRENT_SOURCE_DIR}/parse_common.c
  ${CMAKE_CURRENT_SOURCE_DIR}/parse_decl.c
  ${CMAKE_CURRENT_SOURCE_DIR}/parse_init.c
  ${CMAKE_CURRENT_SOURCE_DIR}/parse_scope.c
  ${CMAKE_CURRENT_SOURCE_DIR}/parse_expr.c
  ${CMAKE_CURRENT_SOURCE_DIR}/parse_stmt.c
  ${CMAKE_CURRENT_SOURCE_DIR}/parse.c
  ${CMAKE_CURRENT_SOURCE_DIR}/print.c)
