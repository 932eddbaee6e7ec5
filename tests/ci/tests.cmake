# The CI adoption files (docs/gating.md): the image, the Kubernetes night and
# gate scripts, the manifests' and workflow's validation, and shellcheck of
# the scripts.
set(VC_CT ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME ci_k8s_night COMMAND sh ${VC_CT}/k8s_night_test.sh ${CMAKE_SOURCE_DIR})
add_test(NAME ci_k8s_gate COMMAND sh ${VC_CT}/k8s_gate_test.sh ${CMAKE_SOURCE_DIR})
add_test(NAME ci_validate_manifests COMMAND sh ${VC_CT}/validate_test.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(ci_k8s_night ci_k8s_gate PROPERTIES LABELS ci TIMEOUT 120)
set_tests_properties(ci_validate_manifests PROPERTIES LABELS ci TIMEOUT 300)
find_program(VC_SHELLCHECK shellcheck)
if(VC_SHELLCHECK)
  add_test(NAME ci_shellcheck COMMAND ${VC_SHELLCHECK}
    ${CMAKE_SOURCE_DIR}/ci/image ${CMAKE_SOURCE_DIR}/ci/validate-manifests
    ${CMAKE_SOURCE_DIR}/ci/k8s/night ${CMAKE_SOURCE_DIR}/ci/k8s/gate
    ${VC_CT}/k8s_night_test.sh ${VC_CT}/k8s_gate_test.sh ${VC_CT}/fake_kubectl.sh
    ${VC_CT}/validate_test.sh ${VC_CT}/image_test.sh)
else()
  add_test(NAME ci_shellcheck COMMAND sh -c "echo 'ci_shellcheck needs shellcheck (ci/install-deps.sh)'; exit 1")
endif()
set_tests_properties(ci_shellcheck PROPERTIES LABELS ci)
# Builds the image: skipped (77) where no podman or buildah runs.
add_test(NAME ci_image COMMAND sh ${VC_CT}/image_test.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(ci_image PROPERTIES LABELS "ci;image" SKIP_RETURN_CODE 77 TIMEOUT 3600)
