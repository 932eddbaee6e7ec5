# The base utilities every layer and plugin links (harness/base).
vc_add_test(test_kvopts SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_kvopts.c LIBS vc_base
  LABELS unit)
vc_add_test(test_sha256 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sha256.c LIBS vc_base
  LABELS unit)
vc_add_test(test_strbuf SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_strbuf.c LIBS vc_base
  LABELS unit)
