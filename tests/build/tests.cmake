# What a build leaves out says so: a configuration without the CUDA toolkit
# records why beside the plugins and in not-built.txt, and the binary reads
# the record (backends, --backend cuda).
add_test(NAME build_not_built
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/not_built_test.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(build_not_built PROPERTIES LABELS integration TIMEOUT 300)
