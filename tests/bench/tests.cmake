# The benchmark programs of bench/ on the devices here, correctness only:
# vc-raw-barrier-bench on PoCL (OpenCL) and lavapipe (Vulkan), small grids
# and few runs; vc-native-option-bench on PoCL.
if(TARGET vc-raw-barrier-bench)
  vc_add_test(test_raw_barrier SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_raw_barrier.c
    LABELS bench opencl pocl vulkan lavapipe)
  add_dependencies(test_raw_barrier vc-raw-barrier-bench)
  file(GLOB VC_RB_LVP_ICD /usr/share/vulkan/icd.d/lvp_icd.*.json /etc/vulkan/icd.d/lvp_icd.*.json)
  get_target_property(vc_rb_defs vc-raw-barrier-bench COMPILE_DEFINITIONS)
  if(VC_RB_LVP_ICD AND "VC_RB_VULKAN" IN_LIST vc_rb_defs)
    list(GET VC_RB_LVP_ICD 0 VC_RB_LVP_ICD_FILE)
    target_compile_definitions(test_raw_barrier PRIVATE VC_LVP_ICD="${VC_RB_LVP_ICD_FILE}")
  endif()
  if("VC_RB_OPENCL" IN_LIST vc_rb_defs)
    target_compile_definitions(test_raw_barrier PRIVATE VC_RB_HAS_OPENCL=1)
  endif()
  set_tests_properties(test_raw_barrier PROPERTIES TIMEOUT 300)
  # After PoCL has compiled a kernel in the process (an empty cache),
  # LeakSanitizer's tracer crashed at exit reading a dynamic TLS block
  # ("DTLS 7 at 0x6ad"): this test's leak check does not scan TLS.
  list(APPEND VC_LSAN_NO_TLS test_raw_barrier)
endif()

if(TARGET vc-backend-opencl)
  vc_add_test(test_native_option_bench SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_native_option_bench.c
    LABELS bench native opencl pocl)
  add_dependencies(test_native_option_bench vc-native-option-bench vc-backend-opencl)
endif()

# bench/throughput.sh prints no ratio from a failed run (a backend that does
# not exist, a fake vyre-conform's failures) and exits 1.
add_test(NAME bench_throughput_refuses_failed_runs
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/throughput_test.sh ${CMAKE_SOURCE_DIR} $<TARGET_FILE:vyre-conform>)
set_tests_properties(bench_throughput_refuses_failed_runs PROPERTIES LABELS bench TIMEOUT 300)

# vc-crossover-bench on PoCL: the map's points, CSV and charts; in the
# mutant build a splitter fault that loses the live value fails it.
if(TARGET vc-backend-opencl)
  set(crossover_other "")
  if(TARGET vc-backend-vulkan)
    set(crossover_other vulkan)
  endif()
  add_test(NAME bench_crossover_pocl
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/crossover_test.sh $<TARGET_FILE:vc-crossover-bench>
      $<TARGET_FILE:vyre-conform> ${PROJECT_SOURCE_DIR}/corpus ${crossover_other})
  set_tests_properties(bench_crossover_pocl PROPERTIES LABELS "bench;opencl;pocl" TIMEOUT 600)
  if(VC_MUTANTS)
    add_test(NAME bench_crossover_mutant_pocl
      COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/crossover_test.sh $<TARGET_FILE:vc-crossover-bench>
        $<TARGET_FILE:vyre-conform> ${PROJECT_SOURCE_DIR}/corpus)
    set_tests_properties(bench_crossover_mutant_pocl PROPERTIES
      LABELS "bench;opencl;pocl;mutant-split" TIMEOUT 600 ENVIRONMENT "MUTANT=lose-var-set")
  endif()
endif()
