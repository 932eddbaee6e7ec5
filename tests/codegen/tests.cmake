# The C-family code generator: the text it writes (no device), and the
# OpenCL C it writes run on PoCL against the oracle.
vc_add_test(test_cgen_text
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cgen_text.c
  LIBS vc_cgen vc_split
  LABELS codegen mutant-unit)
if(VC_WITH_OPENCL)
  vc_add_test(test_cgen_pocl
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cgen_pocl.c
    LIBS vc_split vc_oracle vc_exec
    LABELS codegen opencl pocl)
  add_dependencies(test_cgen_pocl vc-backend-opencl)
endif()
# The rules no CPU device can show, in the text (docs/detection.md); with
# test_cgen_text and test_native_text, the device-free tests ci/mutants
# runs under each planted fault (label mutant-unit).
vc_add_test(test_cgen_rules_text
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cgen_rules_text.c
  LIBS vc_cgen vc_split
  LABELS codegen mutant-unit)
# The catalogue of planted faults: required names, refusals, none in a normal build.
vc_add_test(test_mutant_catalogue
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mutant_catalogue.c
  LIBS vc_model
  LABELS codegen)
