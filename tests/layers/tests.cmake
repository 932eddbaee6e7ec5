# The layering of the source tree (docs/architecture.md): the tree obeys it,
# and the check fails on violations planted into a copy.
add_test(NAME layers COMMAND ${CMAKE_SOURCE_DIR}/ci/check-layers ${CMAKE_SOURCE_DIR})
add_test(NAME layers_planted_violations
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/planted_violations.sh ${CMAKE_SOURCE_DIR}/ci/check-layers
          ${CMAKE_SOURCE_DIR})
set_tests_properties(layers layers_planted_violations PROPERTIES LABELS unit)
# The plugin ABI version follows backend.h and program.h's layout (ci/check-abi),
# and the check fails on a change planted into a copy.
add_test(NAME abi_version COMMAND ${CMAKE_SOURCE_DIR}/ci/check-abi ${CMAKE_SOURCE_DIR})
add_test(NAME abi_version_planted
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/abi_planted.sh ${CMAKE_SOURCE_DIR}/ci/check-abi
          ${CMAKE_SOURCE_DIR})
set_tests_properties(abi_version abi_version_planted PROPERTIES LABELS unit)
