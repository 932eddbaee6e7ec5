# Fuzzing (clang, -DVC_FUZZ=ON): ci/fuzz runs each target for a bounded time,
# seeded from corpus/.
if(VC_FUZZ)
  add_executable(fuzz_split ${CMAKE_CURRENT_LIST_DIR}/fuzz_split.c)
  target_compile_options(fuzz_split PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_split PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_split PRIVATE vc_exec vc_warnings)
endif()
