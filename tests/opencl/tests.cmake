# The OpenCL backend plugin on PoCL, through the plugin ABI.
if(VC_WITH_OPENCL)
  vc_add_test(test_opencl_plugin
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_opencl_plugin.c
    LIBS vc_split vc_exec
    LABELS opencl pocl)
  add_dependencies(test_opencl_plugin vc-backend-opencl)
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
