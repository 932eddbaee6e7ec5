# The CPU oracle: semantics, execution, checks, orders and its backend table.
# The semantics tests also run on the switch-dispatch build of the interpreter.
foreach(lib vc_oracle vc_oracle_switch)
  add_library(${lib}_testutil STATIC ${CMAKE_CURRENT_LIST_DIR}/oracle_util.c)
  target_include_directories(${lib}_testutil PRIVATE ${CMOCKA_INCLUDE_DIR})
  target_link_libraries(${lib}_testutil PUBLIC ${lib} vc_split vc_warnings)
  target_compile_options(${lib}_testutil PRIVATE -Wno-cast-qual)
endforeach()

function(vc_oracle_test name lib)
  vc_add_test(${name}
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/${ARGN}
    LIBS ${lib}_testutil
    LABELS oracle)
  target_compile_options(${name} PRIVATE -ffp-contract=off)
endfunction()

foreach(t int f32 exec checks order backend fast)
  vc_oracle_test(test_oracle_${t} vc_oracle test_oracle_${t}.c)
endforeach()
foreach(t int f32 exec checks fast)
  vc_oracle_test(test_oracle_${t}_switch vc_oracle_switch test_oracle_${t}.c)
endforeach()
