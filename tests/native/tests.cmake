# Native mode: the generator's text (no device), its GLSL through glslang
# and spirv-val, its CUDA C through NVRTC and ptxas, and native runs on
# PoCL through the OpenCL plugin and through the vyre-conform program.
add_library(vc_native_test_util STATIC ${CMAKE_CURRENT_LIST_DIR}/native_util.c)
target_include_directories(vc_native_test_util PRIVATE ${CMOCKA_INCLUDE_DIR})
target_link_libraries(vc_native_test_util PUBLIC vc_split vc_warnings)
target_compile_options(vc_native_test_util PRIVATE -Wno-cast-qual)
target_compile_definitions(vc_native_test_util PRIVATE VC_SOURCE_DIR="${CMAKE_SOURCE_DIR}")

vc_add_test(test_native_text
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_native_text.c
  LIBS vc_native_test_util vc_cgen
  LABELS native codegen mutant-unit)

if(TARGET vc-backend-opencl)
  vc_add_test(test_native_pocl
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_native_pocl.c
    LIBS vc_native_test_util vc_cgen vc_oracle vc_exec
    LABELS native opencl pocl)
  add_dependencies(test_native_pocl vc-backend-opencl)
  set_tests_properties(test_native_pocl PROPERTIES TIMEOUT 900)

  find_package(SQLite3 REQUIRED)
  vc_add_test(test_native_conform
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_native_conform.c
    LIBS vc_native_test_util SQLite::SQLite3
    LABELS native opencl pocl integration)
  add_dependencies(test_native_conform vyre-conform vc-backend-opencl)
  set_tests_properties(test_native_conform PROPERTIES TIMEOUT 900)
  # lavapipe too, where the Vulkan plugin and its ICD are (both grid barriers)
  file(GLOB VC_NATIVE_LVP_ICD /usr/share/vulkan/icd.d/lvp_icd.*.json /etc/vulkan/icd.d/lvp_icd.*.json)
  if(TARGET vc-backend-vulkan AND VC_NATIVE_LVP_ICD)
    list(GET VC_NATIVE_LVP_ICD 0 VC_NATIVE_LVP_ICD_FILE)
    target_compile_definitions(test_native_conform PRIVATE VC_LVP_ICD="${VC_NATIVE_LVP_ICD_FILE}")
    add_dependencies(test_native_conform vc-backend-vulkan)
  endif()
  if(TARGET vc-backend-cuda)
    target_compile_definitions(test_native_conform PRIVATE VC_HAVE_CUDA_PLUGIN=1)
    add_dependencies(test_native_conform vc-backend-cuda)
  endif()
endif()

# GLSL: glslang's validator and spirv-val as programs (registered only where
# both are installed: Debian glslang-tools, spirv-tools).
find_program(VC_GLSLANG_VALIDATOR glslangValidator)
find_program(VC_SPIRV_VAL spirv-val)
if(VC_GLSLANG_VALIDATOR AND VC_SPIRV_VAL)
  vc_add_test(test_native_glsl
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_native_glsl.c
    LIBS vc_native_test_util vc_cgen
    LABELS native codegen vulkan)
  target_compile_definitions(test_native_glsl PRIVATE
    VC_GLSLANG="${VC_GLSLANG_VALIDATOR}" VC_SPIRV_VAL="${VC_SPIRV_VAL}")
  set_tests_properties(test_native_glsl PROPERTIES TIMEOUT 600)
endif()

# CUDA C: NVRTC from the toolkit (registered only where it is installed),
# and ptxas when the toolkit has it. The library itself, not CUDA::nvrtc,
# which also links the driver's stub (absent at run time without a GPU).
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND AND CUDA_nvrtc_LIBRARY)
  find_path(VC_CUDA_CG_INCLUDE cooperative_groups.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_program(VC_NATIVE_PTXAS ptxas HINTS ${CUDAToolkit_BIN_DIR})
  if(VC_CUDA_CG_INCLUDE)
    vc_add_test(test_native_cuda
      SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_native_cuda.c
      LIBS vc_native_test_util vc_cgen ${CUDA_nvrtc_LIBRARY}
      LABELS native codegen cuda)
    target_include_directories(test_native_cuda SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
    target_compile_definitions(test_native_cuda PRIVATE VC_CUDA_INCLUDE="${VC_CUDA_CG_INCLUDE}")
    if(VC_NATIVE_PTXAS)
      target_compile_definitions(test_native_cuda PRIVATE VC_PTXAS="${VC_NATIVE_PTXAS}")
    endif()
    set_tests_properties(test_native_cuda PROPERTIES TIMEOUT 900)
  else()
    vc_tests_not_registered("the CUDA toolkit has no cooperative_groups.h" test_native_cuda)
  endif()
else()
  vc_tests_not_registered("the CUDA toolkit or its NVRTC was not found" test_native_cuda)
endif()
