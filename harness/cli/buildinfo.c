/* The compile definitions of harness/cli/CMakeLists.txt, in one place. */
#include "harness/cli/buildinfo.h"

#include "harness/base/version.h"
#include "harness/model/digest.h"

#ifndef VC_BUILD_COMPILER
#define VC_BUILD_COMPILER "unknown"
#endif
#ifndef VC_BUILD_TYPE
#define VC_BUILD_TYPE ""
#endif
#ifndef VC_BUILD_OPTIONS
#define VC_BUILD_OPTIONS ""
#endif

vc_package_build vc_build_info(void) {
  return (vc_package_build){VC_VERSION,    VC_GIT_COMMIT,       vc_build_id(),
                            VC_BUILD_COMPILER, VC_BUILD_TYPE[0] ? VC_BUILD_TYPE : "(none)",
                            VC_BUILD_OPTIONS};
}
