#include "tests/cuda/cuda_fixture.h"

#include <stdio.h>

int cuda_fixture_load(vc_plugin *plugin) {
  vc_error e;
  if (vc_plugin_load_file(VC_BINARY_DIR "/vc-backend-cuda.so", plugin, &e) == 0) return 0;
  fprintf(stderr, "%s\n", e.msg);
  return -1;
}
