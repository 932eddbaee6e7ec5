/* Driver faults (docs/detection.md): a fault-injecting layer around a
 * backend's plugin table. In a build configured with -DVC_MUTANTS=ON and
 * with VYRE_CONFORM_FAULT (or `--fault NAME`) naming a FAULT row of
 * harness/base/mutants.h, vc_fault_wrap returns a table whose operations
 * call the plugin's and misbehave the way that driver bug would; otherwise
 * it returns the plugin's table itself. One plugin per process is wrapped;
 * the layer is not thread-safe, like the devices it wraps. */
#ifndef VC_FAULT_H
#define VC_FAULT_H

#include "backends/backend.h"

const vc_backend *vc_fault_wrap(const vc_backend *be);

#endif
