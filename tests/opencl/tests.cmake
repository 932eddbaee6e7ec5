# The OpenCL backend plugin on PoCL, through the plugin ABI.
if(VC_WITH_OPENCL)
  vc_add_test(test_opencl_plugin
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_opencl_plugin.c
    LIBS vc_split vc_exec
    LABELS opencl pocl)
  add_dependencies(test_opencl_plugin vc-backend-opencl)
  # host_alloc's mapped memory, the plugin's OpenCL calls counted by
  # functions of this executable (exported so that they bind first).
  vc_add_test(test_opencl_host_memory
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_opencl_host_memory.c
    LIBS vc_exec ${CMAKE_DL_LIBS}
    LABELS opencl pocl)
  target_include_directories(test_opencl_host_memory SYSTEM PRIVATE ${VC_OPENCL_INCLUDE_DIR})
  set_target_properties(test_opencl_host_memory PROPERTIES ENABLE_EXPORTS ON)
  add_dependencies(test_opencl_host_memory vc-backend-opencl)
endif()

# The command line with the OpenCL plugin: backend names learnt from the
# plugin files found, device-option errors as usage errors.
if(TARGET vc-backend-opencl)
  vc_add_test(test_opencl_cli
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_opencl_cli.c
    LIBS vc_exec
    LABELS opencl pocl integration)
  target_compile_definitions(test_opencl_cli PRIVATE
    VC_INSTALL_PLUGIN_DIR="${CMAKE_INSTALL_PREFIX}/${VC_INSTALL_PLUGIN_DIR}")
  add_dependencies(test_opencl_cli vyre-conform vc-backend-opencl)
endif()

# Under the sanitizers: the LeakSanitizer suppressions (ci/lsan.supp) hide
# PoCL's and LLVM's leaks of a first kernel build, never one of our own.
if(VC_SANITIZE AND TARGET vc-backend-opencl)
  add_executable(lsan_leaker ${CMAKE_CURRENT_LIST_DIR}/lsan_leaker.c)
  target_link_libraries(lsan_leaker PRIVATE vc_exec vc_lang vc_warnings)
  target_compile_definitions(lsan_leaker PRIVATE VC_BINARY_DIR="${CMAKE_BINARY_DIR}")
  add_dependencies(lsan_leaker vc-backend-opencl)
  add_test(NAME test_lsan_catches_own_leak
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/lsan_own_leak.sh $<TARGET_FILE:lsan_leaker>)
  set_tests_properties(test_lsan_catches_own_leak PROPERTIES LABELS "opencl;pocl" TIMEOUT 600)
endif()
