/* The oracle as a backend: backends/backend.h over host memory, in process.
 *
 * Buffers are host allocations, upload and download are copies, and a
 * launch runs a SEGMENT kernel's program with vc_oracle_run over the bound
 * buffers at once. NATIVE kernels are refused (VC_ERR_UNSUPPORTED): the
 * oracle runs unsplit programs directly. The splitter's check
 * (split-on-oracle) drives the host-split mode through this table.
 *
 * open() takes options "order=forward|reverse|shuffle,seed=N,checks=on|off,
 * deadline=NS" (vc_oracle_opts; deadline: a vc_now_ns() value). */
#ifndef VC_ORACLE_BACKEND_H
#define VC_ORACLE_BACKEND_H

#include "backends/backend.h"
#include "oracles/oracle.h"

const vc_backend *vc_oracle_backend(void);

/* The merged report (vc_oracle_report_merge) of every launch on d since it
   was opened; each first issue's message begins with its kernel's label. */
int vc_oracle_backend_report(vc_dev *d, vc_oracle_report *r);

#endif
