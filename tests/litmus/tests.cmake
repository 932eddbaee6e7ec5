# The litmus tests of the grid-sync contract (docs/litmus.md): the layer on
# the oracle backend, and a short run of `vyre-conform litmus` on PoCL and on
# lavapipe.
vc_add_test(test_litmus SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_litmus.c LIBS vc_litmus)
if(TARGET vc-backend-opencl)
  add_test(NAME litmus_pocl
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/litmus_test.sh $<TARGET_FILE:vyre-conform> opencl)
  set_tests_properties(litmus_pocl PROPERTIES LABELS "integration;opencl;litmus" TIMEOUT 600)
  # After PoCL has compiled kernels in the process, LeakSanitizer's tracer
  # crashed at exit reading a dynamic TLS block ("Tracer caught signal 11"),
  # once in a fresh clone's sanitizer step: as for test_raw_barrier, this
  # test's leak check does not scan TLS (which can only report more leaks).
  list(APPEND VC_LSAN_NO_TLS litmus_pocl)
endif()
if(TARGET vc-backend-vulkan)
  add_test(NAME litmus_lavapipe
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/litmus_test.sh $<TARGET_FILE:vyre-conform> vulkan)
  set_tests_properties(litmus_lavapipe PROPERTIES LABELS "integration;vulkan;litmus" TIMEOUT 600
    ENVIRONMENT "VK_DRIVER_FILES=${VC_LAVAPIPE_ICD};MESA_VK_IGNORE_CONFORMANCE_WARNING=1")
  # Mesa 22.3's lavapipe leaks 128 bytes in any process that creates and
  # destroys an instance and a device (a 20-line program shows it), and the
  # loader has unloaded it before the leak check, so the stack cannot be
  # named; litmus exits normally and would fail on it. litmus_pocl keeps
  # the leak check of the same code.
  list(APPEND VC_LSAN_OFF litmus_lavapipe)
endif()
