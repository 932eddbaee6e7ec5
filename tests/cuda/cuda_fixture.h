/* What the CUDA tests share: the plugin of this build, loaded as the
 * harness loads it. */
#ifndef VC_CUDA_FIXTURE_H
#define VC_CUDA_FIXTURE_H

#include "harness/exec/plugin.h"

/* Loads VC_BINARY_DIR/vc-backend-cuda.so; 0, or -1 after printing why. */
int cuda_fixture_load(vc_plugin *plugin);

#endif
