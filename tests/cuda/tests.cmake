# Tests of the CUDA backend that run without a GPU or driver. The device
# itself is checked by vc-cuda-smoke on the GPU machine (docs/backend-cuda.md).
if(NOT TARGET vc-backend-cuda)
  vc_tests_of(${CMAKE_CURRENT_LIST_FILE} vc_cuda_tests)
  vc_tests_not_registered("the cuda backend is not built" ${vc_cuda_tests})
  return()
endif()
set(VC_CUDA_TESTS ${CMAKE_CURRENT_LIST_DIR})
set(VC_CUDA_FIXTURE ${VC_CUDA_TESTS}/cuda_fixture.c)

# The parts, linked directly: options, targets, limits, NVRTC, messages.
vc_add_test(test_cuda_units SOURCES ${VC_CUDA_TESTS}/test_cuda_units.c
  LIBS vc_cuda_core LABELS cuda unit)

# The plugin as the harness loads it, without a driver.
vc_add_test(test_cuda_plugin SOURCES ${VC_CUDA_TESTS}/test_cuda_plugin.c ${VC_CUDA_FIXTURE}
  LIBS vc_exec vc_model ${CMAKE_DL_LIBS} LABELS cuda unit)

# Generated CUDA C, checked for its structure.
vc_add_test(test_cuda_source SOURCES ${VC_CUDA_TESTS}/test_cuda_source.c ${VC_CUDA_FIXTURE}
  LIBS vc_split vc_exec LABELS cuda unit)

# Every test program, split into segment kernels, through NVRTC and ptxas.
if(NOT VC_PTXAS)
  set(VC_PTXAS "")
endif()
vc_add_test(test_cuda_offline SOURCES ${VC_CUDA_TESTS}/test_cuda_offline.c ${VC_CUDA_FIXTURE}
  LIBS vc_split vc_oracle vc_exec LABELS cuda unit)
target_compile_definitions(test_cuda_offline PRIVATE VC_PTXAS="${VC_PTXAS}")

# Fake drivers (fake_cuda.h): one of today, one without the _v2 names, one
# without graphs.
foreach(fake vc-fake-libcuda vc-fake-libcuda-old vc-fake-libcuda-nograph)
  add_library(${fake} MODULE ${VC_CUDA_TESTS}/fake_libcuda.c)
  target_include_directories(${fake} SYSTEM PRIVATE
    $<TARGET_PROPERTY:vc_cuda_core,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(${fake} PRIVATE vc_warnings)
endforeach()
target_compile_definitions(vc-fake-libcuda-old PRIVATE FAKE_CUDA_OLD_NAMES)
target_compile_definitions(vc-fake-libcuda-nograph PRIVATE FAKE_CUDA_NO_GRAPH)

# Libraries opened at run time that are missing, unusable or older.
if(EXISTS ${VC_CUDA_STUB_LIBCUDA})
  vc_add_test(test_cuda_noload SOURCES ${VC_CUDA_TESTS}/test_cuda_noload.c ${VC_CUDA_FIXTURE}
    LIBS vc_exec vc_model LABELS cuda unit)
  target_compile_definitions(test_cuda_noload PRIVATE
    VC_CUDA_STUB_LIBCUDA="${VC_CUDA_STUB_LIBCUDA}"
    VC_FAKE_OLD_LIBCUDA="$<TARGET_FILE:vc-fake-libcuda-old>"
    VC_FAKE_NOGRAPH_LIBCUDA="$<TARGET_FILE:vc-fake-libcuda-nograph>")
  add_dependencies(test_cuda_noload vc-fake-libcuda-old vc-fake-libcuda-nograph)
endif()

# The device code against the fake driver.
vc_add_test(test_cuda_fake SOURCES ${VC_CUDA_TESTS}/test_cuda_fake.c ${VC_CUDA_FIXTURE}
  LIBS vc_split vc_exec ${CMAKE_DL_LIBS} LABELS cuda unit)
target_include_directories(test_cuda_fake SYSTEM PRIVATE
  $<TARGET_PROPERTY:vc_cuda_core,INTERFACE_INCLUDE_DIRECTORIES>)
target_compile_definitions(test_cuda_fake PRIVATE
  VC_FAKE_LIBCUDA="$<TARGET_FILE:vc-fake-libcuda>" VC_PTXAS="${VC_PTXAS}")
add_dependencies(test_cuda_fake vc-fake-libcuda)

# launch=graph against the fake driver.
vc_add_test(test_cuda_graph SOURCES ${VC_CUDA_TESTS}/test_cuda_graph.c ${VC_CUDA_FIXTURE}
  LIBS vc_exec ${CMAKE_DL_LIBS} LABELS cuda unit)
target_include_directories(test_cuda_graph SYSTEM PRIVATE
  $<TARGET_PROPERTY:vc_cuda_core,INTERFACE_INCLUDE_DIRECTORIES>)
target_compile_definitions(test_cuda_graph PRIVATE VC_FAKE_LIBCUDA="$<TARGET_FILE:vc-fake-libcuda>"
  VC_PTXAS="${VC_PTXAS}")

# vc-cuda-smoke: built here, run on the GPU machine by hand.
add_executable(vc-cuda-smoke ${VC_CUDA_TESTS}/smoke_main.c ${VC_CUDA_TESTS}/smoke_program.c
  ${VC_CUDA_TESTS}/smoke_checks.c)
target_link_libraries(vc-cuda-smoke PRIVATE vc_exec vc_split vc_oracle vc_exec vc_warnings)
set_target_properties(vc-cuda-smoke PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
vc_add_test(test_cuda_smoke SOURCES ${VC_CUDA_TESTS}/test_cuda_smoke.c LABELS cuda unit)
target_compile_definitions(test_cuda_smoke PRIVATE
  VC_FAKE_LIBCUDA="$<TARGET_FILE:vc-fake-libcuda>")

# vc-cuda-bench (bench/): built here, run on the GPU machine by hand.
if(TARGET vc-cuda-bench)
  vc_add_test(test_cuda_bench SOURCES ${VC_CUDA_TESTS}/test_cuda_bench.c LABELS cuda unit)
  target_compile_definitions(test_cuda_bench PRIVATE
    VC_FAKE_LIBCUDA="$<TARGET_FILE:vc-fake-libcuda>")
  add_dependencies(test_cuda_bench vc-cuda-bench)
endif()

foreach(t test_cuda_plugin test_cuda_source test_cuda_offline test_cuda_noload test_cuda_fake
    test_cuda_graph test_cuda_smoke test_cuda_bench)
  if(TARGET ${t})
    add_dependencies(${t} vc-backend-cuda vc-cuda-smoke vc-fake-libcuda)
  endif()
endforeach()

# vc-nvrtc-bench: NVRTC compile times for docs/performance.md (by hand).
add_executable(vc-nvrtc-bench ${VC_CUDA_TESTS}/bench_nvrtc.c)
target_include_directories(vc-nvrtc-bench SYSTEM PRIVATE
  $<TARGET_PROPERTY:vc_cuda_core,INTERFACE_INCLUDE_DIRECTORIES>)
target_link_libraries(vc-nvrtc-bench PRIVATE vc_warnings ${CMAKE_DL_LIBS})
target_compile_options(vc-nvrtc-bench PRIVATE -Wno-pedantic)
set_target_properties(vc-nvrtc-bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
