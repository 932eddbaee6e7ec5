# The corpus as CI runs it (label corpus): split-on-oracle with golden
# digests over the whole corpus, every mode on PoCL and on lavapipe, and every
# kernel compiled for CUDA (checked by ptxas) and for Vulkan (checked by
# spirv-val).
set(VC_CORPUS_DIR ${CMAKE_CURRENT_LIST_DIR})

add_test(NAME corpus_check COMMAND vyre-conform check --require-digests --quiet corpus/
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(corpus_check PROPERTIES LABELS corpus TIMEOUT 1800)

foreach(api opencl vulkan)
  if(TARGET vc-backend-${api})
    add_test(NAME corpus_${api}
      COMMAND sh ci/run-corpus ${api} ${CMAKE_BINARY_DIR} ${CMAKE_BINARY_DIR}/corpus-${api}.db
              --progress plain
      WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(corpus_${api} PROPERTIES LABELS corpus TIMEOUT 1800 RUN_SERIAL TRUE)
  else()
    vc_tests_not_registered("the ${api} backend is not built" corpus_${api})
  endif()
endforeach()
# A fixed generated sample in every mode on PoCL and lavapipe (seed 7, the
# first 80 programs: gen_7_55 among them, which failed with the OpenCL
# warm-up guard; gen_7_83 and gen_7_108 are past it: PoCL 3.1 aborts
# compiling the latter's native kernel, and the former's native run is
# untrustworthy there). With empty kernel caches on a loaded 2-core machine,
# lavapipe 15 s and PoCL 154 s; seconds with the caches warm
# (docs/detection.md, "The generated sample").
foreach(api opencl vulkan)
  if(TARGET vc-backend-${api})
    add_test(NAME corpus_generated_${api}
      COMMAND sh ${VC_CORPUS_DIR}/generated_sample.sh $<TARGET_FILE:vyre-conform> ${api} 7 80
              ${CMAKE_BINARY_DIR}/generated-${api}.db
      WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(corpus_generated_${api} PROPERTIES LABELS corpus TIMEOUT 900 RUN_SERIAL TRUE)
  endif()
endforeach()
# The same sample through check (no device): the oracle and split-on-oracle;
# and, through check only, 200 large programs of seed 3 (2 s), which reach
# splitter decisions the 80 small ones do not (lose-var-set and
# return-ends-invocation, docs/detection.md "The generated sample").
add_test(NAME corpus_generated_check
  COMMAND sh ${VC_CORPUS_DIR}/generated_sample.sh $<TARGET_FILE:vyre-conform> check 7 80 none
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
add_test(NAME corpus_generated_check_large
  COMMAND sh ${VC_CORPUS_DIR}/generated_sample.sh $<TARGET_FILE:vyre-conform> check 3 200 none large
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(corpus_generated_check corpus_generated_check_large PROPERTIES
  LABELS corpus TIMEOUT 300)
if(TARGET vc-backend-vulkan)
  file(GLOB VC_LVP_JSON /usr/share/vulkan/icd.d/lvp_icd.*.json)
  set_tests_properties(corpus_vulkan corpus_generated_vulkan PROPERTIES ENVIRONMENT
    "VK_DRIVER_FILES=${VC_LVP_JSON};MESA_VK_IGNORE_CONFORMANCE_WARNING=1")
  find_program(VC_SPIRV_VAL_CORPUS spirv-val)
  add_test(NAME corpus_spirv_val
    COMMAND sh ${VC_CORPUS_DIR}/compile_and_validate.sh $<TARGET_FILE:vyre-conform> vulkan
            ${VC_SPIRV_VAL_CORPUS} --target-env vulkan1.1
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(corpus_spirv_val PROPERTIES LABELS corpus TIMEOUT 1800)
else()
  vc_tests_not_registered("the vulkan backend is not built" corpus_spirv_val)
endif()
if(TARGET vc-backend-cuda)
  find_package(CUDAToolkit QUIET)
  find_program(VC_PTXAS ptxas HINTS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)
  if(VC_PTXAS)
    add_test(NAME corpus_nvrtc_ptxas
      COMMAND sh ${VC_CORPUS_DIR}/compile_and_validate.sh $<TARGET_FILE:vyre-conform> cuda
              ${VC_PTXAS} -arch=sm_90
      WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  else()
    # Without ptxas the PTX is still compiled by NVRTC and must not fail.
    add_test(NAME corpus_nvrtc_ptxas
      COMMAND sh ${VC_CORPUS_DIR}/compile_and_validate.sh $<TARGET_FILE:vyre-conform> cuda true
      WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  endif()
  set_tests_properties(corpus_nvrtc_ptxas PROPERTIES LABELS corpus TIMEOUT 1800)
else()
  vc_tests_not_registered("the cuda backend is not built" corpus_nvrtc_ptxas)
endif()

# vyre-conform check on files written by the test: --write-digests, limits,
# diagnostics of a binary file, a symlink loop.
vc_add_test(test_check_cli SOURCES ${VC_CORPUS_DIR}/test_check_cli.c LABELS integration)
add_dependencies(test_check_cli vyre-conform)
set_tests_properties(test_check_cli PROPERTIES TIMEOUT 300)
