# The program generator and the equivalence transformations (harness/gen).
vc_add_test(test_gen_program SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gen_program.c
  LIBS vc_gen LABELS gen)
set_tests_properties(test_gen_program PROPERTIES TIMEOUT 300)
