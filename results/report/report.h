/* results/report: what people read (HTML, Markdown, JUnit, compare printout). */
/* The reports of one run (docs/reports.md): a self-contained HTML
 * qualification report, a Markdown summary (the qualification record) and
 * JUnit XML. Each is appended to a string buffer. */
#ifndef VC_RESULTS_REPORT_H
#define VC_RESULTS_REPORT_H

#include "harness/base/strbuf.h"
#include "results/gate/cells.h"
#include "results/report/qual.h"
#include "results/store/load.h"

/* Each report of the runs q judged (results/report/qual.h): the verdict
   first, then the counts, the known issues, the matrix and the failures. */
int vc_report_html(const vc_qual *q, vc_strbuf *out, vc_error *err);
int vc_report_markdown(const vc_qual *q, vc_strbuf *out, vc_error *err);
/* Known failures and unsupported cells are <skipped>, new failures
   <failure> or <error>; q->opts->junit_limit and junit_link as
   deqp-runner's junit command has them. */
int vc_report_junit(const vc_qual *q, vc_strbuf *out, vc_error *err);

/* The warning that r's file holds runs newer than r that did not complete
   (r->unfinished_newer), naming each with its status; nothing when none.
   As text, and on standard error ("vyre-conform COMMAND: warning: ...");
   the reports put the text in a warning of their first screen. */
void vc_report_unfinished_text(const vc_run_data *r, vc_strbuf *out);
void vc_report_unfinished_stderr(const char *command, const vc_run_data *r);

/* SHA-256 over the corpus digest and every result row's outcome (program,
   source digest, mode, repeat, status, output digest), in a fixed order.
   Timings are left out: two runs with the same outcomes share the digest. */
void vc_report_digest(const vc_run_data *r, char hex[65]);

#endif
