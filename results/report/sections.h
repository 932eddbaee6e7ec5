/* The sections that the HTML and the Markdown report share, written once
 * against a markup dialect (markup.h): what each says is decided here,
 * how it is spelled there. The page shell, the charts and the layout of
 * the matrix stay with their report (report_html.c, report_md.c). */
#ifndef VC_RESULTS_SECTIONS_H
#define VC_RESULTS_SECTIONS_H

#include "harness/base/strbuf.h"
#include "results/report/markup.h"
#include "results/report/qual.h"
#include "results/store/load.h"

/* The verdict and a line per run, the warnings about unfinished runs,
   planted faults, and a table of each run's provenance. */
void vc_section_first_screen(const vc_markup *d, const vc_qual *q, vc_strbuf *sb);
/* What changed against the baseline (nothing without one). */
void vc_section_changes(const vc_markup *d, const vc_qual *q, vc_strbuf *sb);
/* Per run: counts per mode, the new failures, the known ones by the
   expectation that excused them, unsupported by reason. */
void vc_section_counts(const vc_markup *d, const vc_qual *q, vc_strbuf *sb);
/* Every flake with its attempts (nothing without one). */
void vc_section_flakes(const vc_markup *d, const vc_qual *q, vc_strbuf *sb);
/* The grid-sync contract: each run's litmus run of the same device, a row
   per test x access x place, and whether the controls had power (nothing
   without one; docs/litmus.md). */
void vc_section_litmus(const vc_markup *d, const vc_qual *q, vc_strbuf *sb);
/* Choosing a mode: each run's crossover map of the same device, a row per
   point, where each mode wins, a chart per live size (nothing without one;
   docs/performance.md). */
void vc_section_crossover(const vc_markup *d, const vc_qual *q, vc_strbuf *sb);
/* A section per failure, new ones first, with anchor f-RUN-SECTION. */
void vc_section_failures(const vc_markup *d, const vc_qual *q, vc_strbuf *sb);

/* The record of run r: the run (status, times, harness, command line,
   corpus, options, results digest), then its device (ids, driver, limits,
   float environment, fingerprint, the plugin's further properties). */
void vc_section_run_record(const vc_markup *d, const vc_run_data *r, vc_strbuf *sb);
/* The matrix, which each report lays out its own way (HTML: every program,
   in groups that fold; Markdown: the programs that did not pass
   everywhere). What they share: the title of run r's column m (the mode,
   after the backend when several runs stand side by side), and what a cell
   says ("known: diverge 2/3"; NULL: the run has no such cell). */
void vc_matrix_column(const vc_markup *d, const vc_qual *q, uint32_t r, uint32_t m, vc_strbuf *sb);
void vc_matrix_label(const vc_markup *d, const vc_qrun *qr, const vc_cell *c, vc_strbuf *sb);

#endif
