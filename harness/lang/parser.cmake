# Sources of the parser, validator and printer (absolute: other folders include this too).
set(VC_PARSER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/lex.c
  ${CMAKE_CURRENT_LIST_DIR}/read.c
  ${CMAKE_CURRENT_LIST_DIR}/parse_lit.c
  ${CMAKE_CURRENT_LIST_DIR}/parse_common.c
  ${CMAKE_CURRENT_LIST_DIR}/parse_decl.c
  ${CMAKE_CURRENT_LIST_DIR}/parse_init.c
  ${CMAKE_CURRENT_LIST_DIR}/parse_scope.c
  ${CMAKE_CURRENT_LIST_DIR}/parse_expr.c
  ${CMAKE_CURRENT_LIST_DIR}/parse_stmt.c
  ${CMAKE_CURRENT_LIST_DIR}/parse.c
  ${CMAKE_CURRENT_LIST_DIR}/print.c
  ${CMAKE_CURRENT_LIST_DIR}/diag.c)
