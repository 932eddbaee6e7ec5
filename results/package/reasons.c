/* Phrases of the unsupported reasons, by class, first match wins (reasons.h).
 * The harness's own limits come first: "above the plugin's limit" is the
 * harness's, not the device's. */
#include "results/package/reasons.h"

#include <stddef.h>
#include <string.h>

#define VC_REASON_TABLE(X)                                                    \
  X("harness limit", "a limit of the harness")         /* harness/split */   \
  X("harness limit", "the plugin's limit")             /* vk_limits.c */     \
  X("harness limit", "--max-buffer-bytes")             /* the run's budget */\
  X("harness limit", "oracle: ")                       /* oracles/ */        \
  X("harness limit", "above SIZE_MAX")                                       \
  X("harness limit", "too many registers")                                   \
  X("missing feature", "lacks")                        /* an extension, a feature bit */ \
  X("missing feature", "has no nvrtcGetCUBIN")                               \
  X("missing feature", "cannot launch cooperatively")                        \
  X("missing feature", "compiles for compute capability")                    \
  X("device limit", "exceeds")                                               \
  X("device limit", "exceed the")                                            \
  X("device limit", "above the device's")                                    \
  X("device limit", "above maxMemoryAllocationSize")                         \
  X("device limit", "the device allows")                                     \
  X("device limit", "no cooperative launch")

static const struct {
  const char *cls, *phrase;
} table[] = {
#define VC_X(c, p) {c, p},
    VC_REASON_TABLE(VC_X)
#undef VC_X
};

const char *vc_unsupported_class(const char *reason) {
  if (!reason || !reason[0]) return NULL;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strstr(reason, table[i].phrase)) return table[i].cls;
  return NULL;
}
