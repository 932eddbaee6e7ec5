/* Result statuses and modes: names, order and what counts as a failure. */
#ifndef VC_RESULTS_STATUS_H
#define VC_RESULTS_STATUS_H

#include <stdbool.h>

#include "results/record.h"

/* diverge, error, crash, timeout and invalid: a result that fails a run. */
bool vc_status_is_failure(vc_status s);
/* native 0, host-split 1, resident-split 2, any other mode 3. */
int vc_mode_rank(const char *mode);
/* Orders modes by rank, then by name. */
int vc_mode_cmp(const char *a, const char *b);

#endif
