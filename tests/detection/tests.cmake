# Detection power (docs/detection.md): the catalogue's named killers exist
# (programs in corpus/, registered unit tests), come from two themes or say
# why not, and agree with docs/detection.md. No device.
vc_add_test(test_named_killers
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_named_killers.c
  LIBS vc_model vc_litmus
  LABELS detection unit)
# The independent model of docs/semantics.md (tests/detection/semantics_model.py)
# agrees with every value corpus/semantics states in (expect (buffer ...)),
# and every output there has one: goldens that do not come from the oracle.
find_program(VC_PYTHON3 python3)
if(VC_PYTHON3)
  file(GLOB VC_SEMANTICS_PROGRAMS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/corpus/semantics/*.vyre)
  # and the other programs whose stated values come from the model
  list(APPEND VC_SEMANTICS_PROGRAMS ${CMAKE_SOURCE_DIR}/corpus/values/f32_scaled_sums.vyre
    ${CMAKE_SOURCE_DIR}/corpus/values/spill_across_empty_segments.vyre)
  add_test(NAME semantics_model_agrees
    COMMAND ${VC_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/semantics_model.py --check ${VC_SEMANTICS_PROGRAMS})
  set_tests_properties(semantics_model_agrees PROPERTIES LABELS "detection;unit")
endif()
# ci/mutants --named's usage errors and `vyre-conform mutants --killers`.
add_test(NAME mutants_named_usage
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/mutants_usage.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(mutants_named_usage PROPERTIES LABELS "detection;unit")
