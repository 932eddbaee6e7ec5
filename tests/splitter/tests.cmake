vc_add_test(test_split SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_split.c LIBS vc_exec)
vc_add_test(test_gate_checks SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_gate_checks.c LIBS vc_exec)
vc_add_test(test_host_copies SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_host_copies.c LIBS vc_exec)
vc_add_test(test_device_phase SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_device_phase.c LIBS vc_exec)
