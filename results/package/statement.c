/* statement.txt (content.h): what the submitter declares, to be filled in
 * and signed; what the package knows is filled in already. */
#include <stdio.h>

#include "results/package/content.h"

static const char *or_fill(const char *s) { return s && s[0] ? s : "FILL IN"; }

void vc_pkg_statement(const vc_pkg_content *c, vc_strbuf *sb) {
  const vc_package_opts *o = c->o;
  vc_sb_puts(sb, "vyre-conform qualification statement\n\n");
  if (!c->clean)
    vc_sb_puts(sb, "NOT FOR SUBMISSION: made from a checkout with uncommitted changes "
                   "(--allow-dirty; tree/git-status.txt lists them).\n\n");
  vc_sb_printf(sb, "Product: %s\n", or_fill(o->product));
  vc_sb_printf(sb, "Driver: %s\n", or_fill(o->driver));
  vc_sb_printf(sb, "Operating system: %s\n", or_fill(o->os));
  vc_sb_printf(sb, "Harness: vyre-conform %s (commit %s, build %s)\n", o->build.version,
               o->build.commit, o->build.build_id);
  vc_sb_printf(sb, "Checkout: %s%s\n", c->commit, c->clean ? "" : " with uncommitted changes");
  vc_sb_puts(sb, "Runs:\n");
  for (uint32_t i = 0; i < c->nruns; i++) {
    const vc_run_data *r = c->runs[i];
    vc_sb_printf(sb, "  run %lld: %s on %s, driver %s, %s, host %s\n", (long long)r->id,
                 r->info.backend, r->has_device ? r->device.device_name : "an unrecorded device",
                 r->has_device ? r->device.driver_version : "unknown", r->status, r->info.host);
  }
  vc_sb_printf(sb, "Corpus: %u programs (manifest.json, \"corpus\")\n\n", c->ncorpus);
  vc_sb_puts(sb, "Submitted by (name, organisation): FILL IN\n"
                 "Date: FILL IN\n\n"
                 "I declare that the results in this package were produced by the harness\n"
                 "named above, unmodified, from the checkout named above, on the product\n"
                 "named above, and that the package has not been edited since it was made.\n\n"
                 "Signature: FILL IN\n");
}
