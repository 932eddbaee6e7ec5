/* How this binary was built (set by CMake): --version prints it, a package's
 * manifest records it. */
#ifndef VC_BUILDINFO_H
#define VC_BUILDINFO_H

#include "results/package/package.h"

/* Version, commit, build id, compiler, build type and the CMake options. */
vc_package_build vc_build_info(void);

#endif
