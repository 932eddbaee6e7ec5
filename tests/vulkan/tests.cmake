# Tests of the Vulkan backend on Mesa lavapipe (a CPU Vulkan driver), plus
# spirv-val on the SPIR-V the plugin produces without a device.
if(NOT TARGET vc-backend-vulkan)
  vc_tests_of(${CMAKE_CURRENT_LIST_FILE} vc_vk_tests)
  vc_tests_not_registered("the vulkan backend is not built" ${vc_vk_tests})
  return()
endif()
set(VC_VK_TESTS ${CMAKE_CURRENT_LIST_DIR})
# The unit test links glslang's static C++ libraries.
enable_language(CXX)

# Only lavapipe, whatever else the machine has: results are reproducible.
file(GLOB VC_LVP_ICD /usr/share/vulkan/icd.d/lvp_icd.*.json /etc/vulkan/icd.d/lvp_icd.*.json)
list(GET VC_LVP_ICD 0 VC_LVP_ICD_FILE)
if(NOT VC_LVP_ICD_FILE)
  set(VC_LVP_ICD_FILE "lavapipe-icd-not-found.json")  # the tests then fail, naming it
  message(WARNING "Mesa lavapipe ICD not found: the Vulkan tests will fail (install mesa-vulkan-drivers)")
endif()
find_program(VC_SPIRV_VAL spirv-val)
if(NOT VC_SPIRV_VAL)
  set(VC_SPIRV_VAL "spirv-val-not-found")
  message(WARNING "spirv-val not found: test_vk_spirv will fail (install spirv-tools)")
endif()

add_library(vc_vk_test_util STATIC ${VC_VK_TESTS}/vk_test_util.c)
target_include_directories(vc_vk_test_util PRIVATE ${CMOCKA_INCLUDE_DIR})
target_compile_options(vc_vk_test_util PRIVATE -Wno-cast-qual)
target_link_libraries(vc_vk_test_util PUBLIC vc_split vc_exec vc_model vc_native_test_util
  vc_warnings ${CMAKE_DL_LIBS} ${CMOCKA_LIBRARY})
target_compile_definitions(vc_vk_test_util PRIVATE
  VC_SOURCE_DIR="${CMAKE_SOURCE_DIR}" VC_BINARY_DIR="${CMAKE_BINARY_DIR}")

function(vc_vk_test name)
  vc_add_test(${name} ${ARGN})
  add_dependencies(${name} vc-backend-vulkan)
  # Mesa's "not a conformant implementation" warning would fill the logs.
  set_tests_properties(${name} PROPERTIES ENVIRONMENT
    "VK_DRIVER_FILES=${VC_LVP_ICD_FILE};MESA_VK_IGNORE_CONFORMANCE_WARNING=1")
endfunction()

# The plugin's parts, linked directly: driver versions, targets, options, glslang,
# float controls, native kernels' SPIR-V.
vc_vk_test(test_vk_units SOURCES ${VC_VK_TESTS}/test_vk_units.c
  LIBS vc_vulkan_core vc_split vc_native_test_util LABELS vulkan)
# The pipeline barrier between two dispatches of one submission, counted
# (lavapipe's bytes cannot show it missing; docs/detection.md).
vc_vk_test(test_vk_dispatch_barrier SOURCES ${VC_VK_TESTS}/test_vk_dispatch_barrier.c
  LIBS vc_vulkan_core vc_split LABELS vulkan mutant-unit)
target_link_options(test_vk_dispatch_barrier PRIVATE LINKER:--wrap=vkCmdPipelineBarrier)
set_target_properties(test_vk_dispatch_barrier PROPERTIES LINKER_LANGUAGE CXX)
# host_alloc's memory copied with one vkCmdCopyBuffer (counted), no staging.
vc_vk_test(test_vk_host_memory SOURCES ${VC_VK_TESTS}/test_vk_host_memory.c
  LIBS vc_vulkan_core vc_split LABELS vulkan)
target_link_options(test_vk_host_memory PRIVATE LINKER:--wrap=vkCmdCopyBuffer)
set_target_properties(test_vk_host_memory PROPERTIES LINKER_LANGUAGE CXX)
# The plugin as the harness loads it: identity, transfers, batching, limits, errors.
vc_vk_test(test_vk_plugin SOURCES ${VC_VK_TESTS}/test_vk_plugin.c
  LIBS vc_vk_test_util LABELS vulkan)
# One program per semantic rule: lavapipe's bytes equal the oracle's.
vc_vk_test(test_vk_semantics SOURCES ${VC_VK_TESTS}/test_vk_semantics.c
  LIBS vc_vk_test_util vc_oracle LABELS vulkan)
# Native kernels on lavapipe: cases, orderings, defaults, control words,
# untrustworthy runs, the deadline.
vc_vk_test(test_vk_native SOURCES ${VC_VK_TESTS}/test_vk_native.c
  LIBS vc_vk_test_util vc_cgen vc_oracle LABELS vulkan native)
set_tests_properties(test_vk_native PROPERTIES TIMEOUT 600)
# The kernel cache's pipeline cache data, one entry per pipeline: warm after
# cold in another process, concurrent writers, damaged entries rewritten.
vc_vk_test(test_vk_pcache SOURCES ${VC_VK_TESTS}/test_vk_pcache.c
  LIBS vc_vk_test_util LABELS vulkan)
# spirv-val on the offline SPIR-V of every test program and native case.
vc_vk_test(test_vk_spirv SOURCES ${VC_VK_TESTS}/test_vk_spirv.c
  LIBS vc_vk_test_util LABELS vulkan)
target_compile_definitions(test_vk_spirv PRIVATE VC_SPIRV_VAL="${VC_SPIRV_VAL}")

# Figures, not a test: compile times, batched against waited launches, transfer rates.
add_executable(bench_vk ${VC_VK_TESTS}/bench_vk.c)
target_link_libraries(bench_vk PRIVATE vc_vk_test_util vc_warnings)
add_dependencies(bench_vk vc-backend-vulkan)
target_compile_definitions(bench_vk PRIVATE
  VC_SOURCE_DIR="${CMAKE_SOURCE_DIR}" VC_BINARY_DIR="${CMAKE_BINARY_DIR}")
