# The program generator and the equivalence transformations (harness/gen).
vc_add_test(test_gen_program SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gen_program.c
  LIBS vc_gen LABELS gen)
set_tests_properties(test_gen_program PROPERTIES TIMEOUT 300)
# The dead-output analysis, >= 98 % live programs, no NaN bits in integer outputs.
vc_add_test(test_gen_live SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gen_live.c
  LIBS vc_gen LABELS gen)
set_tests_properties(test_gen_live PROPERTIES TIMEOUT 300)
vc_add_test(test_gen_transform SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gen_transform.c
  LIBS vc_gen LABELS gen)
set_tests_properties(test_gen_transform PROPERTIES TIMEOUT 300)
# Every corpus program the check accepts, through every transformation: minutes.
vc_add_test(test_gen_transform_corpus SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gen_transform.c
  LIBS vc_gen LABELS corpus)
target_compile_definitions(test_gen_transform_corpus PRIVATE VC_XF_CORPUS)
set_tests_properties(test_gen_transform_corpus PROPERTIES TIMEOUT 1800)
# The commands as a user runs them.
vc_add_test(test_gen_cli SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gen_cli.c LABELS gen integration)
add_dependencies(test_gen_cli vyre-conform)
set_tests_properties(test_gen_cli PROPERTIES TIMEOUT 300)
# The generator, the check it runs and the transformations under valgrind, as
# ci/test runs the parser and the oracle on the corpus. Not in the sanitizer
# build: valgrind cannot run an ASan binary (that build checks the same code
# with ASan instead).
find_program(VC_VALGRIND valgrind)
if(VC_VALGRIND AND NOT VC_SANITIZE)
  add_test(NAME gen_valgrind COMMAND sh -c
    "d=$(mktemp -d) && ${VC_VALGRIND} -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite $<TARGET_FILE:vyre-conform> generate --seed 5 --count 40 --out $d --size small && ${VC_VALGRIND} -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite $<TARGET_FILE:vyre-conform> transform $d/gen_5_3.vyre --seed 1 --only all --verify >/dev/null; s=$?; rm -rf $d; exit $s")
  set_tests_properties(gen_valgrind PROPERTIES LABELS gen TIMEOUT 600)
endif()
# The generator's benchmark (a tool, not a test): docs/performance.md.
add_executable(vc-gen-bench ${CMAKE_CURRENT_LIST_DIR}/bench_gen.c)
target_link_libraries(vc-gen-bench PRIVATE vc_gen vc_warnings)
