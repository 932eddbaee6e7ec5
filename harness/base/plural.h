/* A count's noun (or verb) in agreement with it: "1 program", "2 programs",
 * "1 element differs", "2 elements differ". */
#ifndef VC_PLURAL_H
#define VC_PLURAL_H

#include <stdint.h>

/* one when n is 1, else many. */
static inline const char *vc_plural(uint64_t n, const char *one, const char *many) {
  return n == 1 ? one : many;
}

#endif
