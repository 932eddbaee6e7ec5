# The CPU oracle: semantics, execution, checks, orders and its backend table.
add_library(vc_oracle_testutil STATIC ${CMAKE_CURRENT_LIST_DIR}/oracle_util.c)
target_include_directories(vc_oracle_testutil PRIVATE ${CMOCKA_INCLUDE_DIR})
target_link_libraries(vc_oracle_testutil PUBLIC vc_oracle vc_lang vc_warnings)
target_compile_options(vc_oracle_testutil PRIVATE -Wno-cast-qual)

foreach(t int f32 exec checks order backend)
  vc_add_test(test_oracle_${t}
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_oracle_${t}.c
    LIBS vc_oracle_testutil
    LABELS oracle)
  target_compile_options(test_oracle_${t} PRIVATE -ffp-contract=off)
endforeach()
