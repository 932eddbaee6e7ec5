/* The harness version and the commit it was built from (set by CMake). */
#ifndef VC_VERSION_H
#define VC_VERSION_H

#ifndef VC_VERSION
#define VC_VERSION "0.0.0"
#endif
/* vc_commit.h is written at build time (harness/base/version.cmake). */
#if defined(__has_include)
#if __has_include("vc_commit.h")
#include "vc_commit.h"
#endif
#endif
#ifndef VC_GIT_COMMIT
#define VC_GIT_COMMIT "unknown"
#endif

#endif
