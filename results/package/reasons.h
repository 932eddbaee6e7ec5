/* The classes an `unsupported` result's reason may fall in: a package's
 * verifier accepts an unsupported result only with a reason of a known
 * class. One table (reasons.c) holds the phrases the harness, the oracle and
 * the plugins write. */
#ifndef VC_PACKAGE_REASONS_H
#define VC_PACKAGE_REASONS_H

/* "device limit", "missing feature", "harness limit", or NULL for a reason
   of no known class (an empty one included). */
const char *vc_unsupported_class(const char *reason);

#endif
