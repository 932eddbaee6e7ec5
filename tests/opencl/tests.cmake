# The OpenCL backend plugin on PoCL, through the plugin ABI.
if(VC_WITH_OPENCL)
  vc_add_test(test_opencl_plugin
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_opencl_plugin.c
    LIBS vc_split vc_exec
    LABELS opencl pocl)
  add_dependencies(test_opencl_plugin vc-backend-opencl)
endif()
