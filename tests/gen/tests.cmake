# The program generator and the equivalence transformations (harness/gen).
vc_add_test(test_gen_program SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gen_program.c
  LIBS vc_gen LABELS gen)
set_tests_properties(test_gen_program PROPERTIES TIMEOUT 300)
vc_add_test(test_gen_transform SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gen_transform.c
  LIBS vc_gen LABELS gen)
set_tests_properties(test_gen_transform PROPERTIES TIMEOUT 300)
# Every corpus program the check accepts, through every transformation: minutes.
vc_add_test(test_gen_transform_corpus SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gen_transform.c
  LIBS vc_gen LABELS corpus)
target_compile_definitions(test_gen_transform_corpus PRIVATE VC_XF_CORPUS)
set_tests_properties(test_gen_transform_corpus PROPERTIES TIMEOUT 1800)
