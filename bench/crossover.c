/* vc-crossover-bench --backend B [--device N] [--options S] [--barriers LIST]
 *                    [--live LIST] [--runs R] [--budget S] [--out DIR]
 *                    [--db FILE]
 *
 * The crossover map (docs/performance.md, "Choosing a mode"): what native,
 * resident-split and host-split cost on one device as the number of grid
 * barriers and the bytes live across them grow, and which mode wins where.
 * Each point is a program of `barriers` grid barriers whose invocations
 * each keep one u32 live across all of them (live bytes = 4 x invocations):
 * every segment updates it, v = 3v + k[0] with k[0] = 1, and the last
 * stores it. Every run of every mode is checked against the closed form
 * out[i] = 3^b i + (3^b - 1) / 2 (mod 2^32), so no oracle runs (the large
 * points would take it hours). A point's first run of a mode compiles and
 * is not timed; then up to R timed runs, fewer when they would pass the
 * budget (S seconds of the mode's own wall time, at least one run). Prints
 * per point the median wall of each mode (first upload to last download,
 * vc_mode_out.wall_ns) and its device time, and the winner; with --out,
 * DIR/crossover.csv, DIR/crossover.md and one SVG chart per live size
 * (DIR/crossover-LIVE.svg); with --db, the map into the results file
 * (tables crossover_maps and crossover_points, docs/database.md), where
 * `vyre-conform report` shows it beside a run of the same backend and
 * device. Exit status 0, 1 a run failed or gave a wrong byte, 2 usage, 3
 * no plugin or device, 5 the results file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/median.h"
#include "harness/base/clock.h"
#include "harness/base/exitcodes.h"
#include "harness/base/strbuf.h"
#include "harness/base/version.h"
#include "harness/exec/modes.h"
#include "harness/exec/plugin.h"
#include "harness/lang/parse.h"
#include "harness/model/digest.h"
#include "harness/model/inputs.h"
#include "harness/split/split.h"
#include "results/report/svg.h"
#include "results/store/record.h"

#define MAX_POINTS 16u
#define MAX_RUNS 100u
#define WG 256u

static const vc_mode order[VC_MODE_COUNT] = {VC_MODE_NATIVE, VC_MODE_RESIDENT_SPLIT,
                                             VC_MODE_HOST_SPLIT};

typedef struct cell {
  double wall_ns, device_ns; /* medians */
  uint32_t runs;
  const char *unsupported;   /* why the mode could not run, or NULL */
  char why[160];
} cell;

typedef struct point {
  uint32_t barriers;
  uint64_t live;
  cell c[VC_MODE_COUNT]; /* by mode */
} point;

typedef struct bench {
  const vc_backend *be;
  vc_dev *dev;
  uint32_t runs;
  double budget_ns;
} bench;

static int parse_list(const char *s, uint64_t *v, uint32_t *n, int sizes) {
  *n = 0;
  while (*s) {
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (end == s || *n == MAX_POINTS) return -1;
    if (sizes && (*end == 'K' || *end == 'M' || *end == 'G')) {
      x <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
      end++;
    }
    if (x == 0 || (*end && *end != ',')) return -1;
    v[(*n)++] = x;
    s = *end ? end + 1 : end;
  }
  return *n ? 0 : -1;
}

static void size_text(uint64_t b, char *out, size_t n) {
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    snprintf(out, n, "%lluM", (unsigned long long)(b >> 20));
  else if (b >= 1024 && b % 1024 == 0)
    snprintf(out, n, "%lluK", (unsigned long long)(b >> 10));
  else
    snprintf(out, n, "%llu", (unsigned long long)b);
}

/* The point's program: its grid in (x, y) workgroups of WG invocations. */
static void program_text(uint32_t barriers, uint64_t invocations, vc_strbuf *sb) {
  uint64_t groups = invocations / WG;
  uint32_t gx = groups <= 65535 ? (uint32_t)groups : 512u, gy = (uint32_t)(groups / gx);
  vc_sb_printf(sb,
               "(program crossover_%u_%llu\n  (workgroup %u)\n  (grid %u %u)\n"
               "  (buffer k u32 1 read (init (fill 1)))\n  (buffer out u32 %llu write)\n"
               "  (entry\n    (let i (add (mul (global_id y) %uu) (global_id x)))\n"
               "    (var v i)\n",
               barriers, (unsigned long long)invocations, WG, gx, gy,
               (unsigned long long)invocations, gx * WG);
  for (uint32_t b = 0; b < barriers; b++)
    vc_sb_puts(sb, "    (set v (add (mul v 3u) (load k 0u)))\n    (barrier grid)\n");
  vc_sb_puts(sb, "    (store out i v)))\n");
}

/* out[i] = A i + C with A = 3^b, C = 3^0 + ... + 3^(b-1), mod 2^32. */
static int check(const uint32_t *out, uint64_t n, uint32_t barriers, vc_error *err) {
  uint32_t a = 1, c = 0;
  for (uint32_t b = 0; b < barriers; b++) {
    c += a;
    a *= 3u;
  }
  for (uint64_t i = 0; i < n; i++)
    if (out[i] != a * (uint32_t)i + c)
      return vc_fail(err, VC_ERR_INTERNAL, "out[%llu] is 0x%08x, 0x%08x is due",
                     (unsigned long long)i, out[i], a * (uint32_t)i + c);
  return 0;
}

static int run_mode(bench *bn, vc_exec *x, const vc_split *sp, const uint32_t *const *in,
                    point *pt, vc_mode m, vc_error *err) {
  cell *c = &pt->c[m];
  double wall[MAX_RUNS], dev[MAX_RUNS], spent = 0;
  uint32_t out_index = 1; /* the plan's user buffers: k, out */
  for (uint32_t r = 0; r <= bn->runs; r++) { /* r = 0: the compiling run */
    vc_mode_out mo;
    memset(&mo, 0, sizeof mo);
    int rc = vc_exec_run(x, m, in, &mo, err);
    if (rc == VC_ERR_UNSUPPORTED || rc == VC_ERR_LIMIT) {
      snprintf(c->why, sizeof c->why, "%s", err->msg);
      c->unsupported = c->why;
      vc_mode_out_free(&mo);
      vc_error_clear(err);
      return 0;
    }
    if (!rc && m == VC_MODE_NATIVE && mo.native.untrustworthy)
      rc = vc_fail(err, VC_ERR_DEVICE, "untrustworthy run: %s", mo.native.note);
    if (!rc && (sp->nuser != 2 || !mo.outputs[out_index]))
      rc = vc_fail(err, VC_ERR_INTERNAL, "the plan has no output buffer out");
    if (!rc) rc = check(mo.outputs[out_index], pt->live / 4, pt->barriers, err);
    if (!rc && r > 0) {
      wall[c->runs] = (double)mo.wall_ns;
      dev[c->runs++] = (double)mo.device_ns;
      spent += (double)mo.wall_ns;
    }
    vc_mode_out_free(&mo);
    if (rc)
      return vc_fail_wrap(err, "%s, %u barriers, %llu bytes live", vc_mode_name(m), pt->barriers,
                          (unsigned long long)pt->live);
    if (r > 0 && spent >= bn->budget_ns) break;
  }
  c->wall_ns = vc_bench_median(wall, c->runs);
  c->device_ns = vc_bench_median(dev, c->runs);
  return 0;
}

static int run_point(bench *bn, point *pt, vc_error *err) {
  vc_strbuf text;
  vc_sb_init(&text);
  program_text(pt->barriers, pt->live / 4, &text);
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("crossover", vc_sb_str(&text), text.len, &d);
  int rc = p ? 0 : vc_fail(err, VC_ERR_INTERNAL, "the point's program does not parse: %s",
                           d.count ? d.items[0].msg : "");
  vc_diags_free(&d);
  vc_sb_free(&text);
  vc_split *sp = NULL;
  uint32_t *in[2] = {NULL, NULL};
  if (!rc) rc = vc_split_program(p, &sp, err);
  for (uint32_t i = 0; !rc && i < 2; i++) {
    in[i] = malloc(vc_buffer_bytes(&p->buffers[i]));
    if (!in[i])
      rc = vc_fail(err, VC_ERR_NOMEM, "no memory for buffer %s", p->buffers[i].name);
    else
      vc_inputs_fill(&p->buffers[i], in[i]);
  }
  if (!rc) {
    vc_exec x;
    vc_exec_init(&x, bn->be, bn->dev, p, sp);
    for (int k = 0; !rc && k < VC_MODE_COUNT; k++)
      rc = run_mode(bn, &x, sp, (const uint32_t *const *)in, pt, order[k], err);
    vc_exec_free(&x);
  }
  free(in[0]);
  free(in[1]);
  if (sp) vc_split_free(sp);
  if (p) vc_program_free(p);
  return rc;
}

/* The cheapest mode of a point that ran, or -1. */
static int winner(const point *pt) {
  int best = -1;
  for (int k = 0; k < VC_MODE_COUNT; k++) {
    vc_mode m = order[k];
    if (!pt->c[m].unsupported && (best < 0 || pt->c[m].wall_ns < pt->c[best].wall_ns)) best = m;
  }
  return best;
}

/* A point's row of the table: the printout's columns, or Markdown's. */
static void row_text(vc_strbuf *sb, const point *pt, int markdown) {
  char live[32];
  size_text(pt->live, live, sizeof live);
  vc_sb_printf(sb, markdown ? "| %u | %s |" : "%9u %9s", pt->barriers, live);
  for (int k = 0; k < VC_MODE_COUNT; k++) {
    const cell *c = &pt->c[order[k]];
    if (c->unsupported)
      vc_sb_printf(sb, markdown ? " %s |" : " %24s", "unsupported");
    else
      vc_sb_printf(sb, markdown ? " %.3f (%.3f) |" : " %11.3f (%10.3f)", c->wall_ns / 1e6,
                   c->device_ns / 1e6);
  }
  int w = winner(pt);
  vc_sb_printf(sb, markdown ? " %s |\n" : "  %s\n", w < 0 ? "-" : vc_mode_name((vc_mode)w));
}

static int write_file(const char *dir, const char *name, const vc_strbuf *sb) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f || fwrite(sb->data, 1, sb->len, f) != sb->len) {
    fprintf(stderr, "vc-crossover-bench: cannot write %s: %s\n", path, strerror(errno));
    if (f) fclose(f);
    return -1;
  }
  return fclose(f) == 0 ? 0 : -1;
}

/* The table as CSV and Markdown, and a chart of walls per live size. */
static int write_outputs(const char *dir, const char *title, const point *pts, uint32_t nb,
                         uint32_t nl) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "vc-crossover-bench: cannot make %s: %s\n", dir, strerror(errno));
    return -1;
  }
  vc_strbuf csv, md;
  vc_sb_init(&csv);
  vc_sb_init(&md);
  vc_sb_puts(&csv, "barriers,live_bytes,mode,runs,wall_ns,device_ns,winner\n");
  vc_sb_printf(&md, "%s\n\n| barriers | live | native ms (device) | resident-split ms (device) "
                    "| host-split ms (device) | wins |\n| --- | --- | --- | --- | --- | --- |\n",
               title);
  int rc = 0;
  for (uint32_t i = 0; i < nb * nl; i++) {
    const point *pt = &pts[i];
    int w = winner(pt);
    for (int k = 0; k < VC_MODE_COUNT; k++) {
      const cell *c = &pt->c[order[k]];
      vc_sb_printf(&csv, "%u,%llu,%s,%u,%.0f,%.0f,%d\n", pt->barriers,
                   (unsigned long long)pt->live, vc_mode_name(order[k]), c->runs,
                   c->unsupported ? -1.0 : c->wall_ns, c->unsupported ? -1.0 : c->device_ns,
                   w == (int)order[k]);
    }
    row_text(&md, pt, 1);
  }
  rc |= write_file(dir, "crossover.csv", &csv);
  rc |= write_file(dir, "crossover.md", &md);
  vc_sb_free(&csv);
  vc_sb_free(&md);
  static const char *const series[VC_MODE_COUNT] = {"native", "resident-split", "host-split"};
  for (uint32_t l = 0; l < nl; l++) {
    char labels[MAX_POINTS][32], live[32], name[64], ctitle[512];
    const char *lp[MAX_POINTS];
    uint64_t values[MAX_POINTS * VC_MODE_COUNT];
    for (uint32_t b = 0; b < nb; b++) {
      const point *pt = &pts[b * nl + l];
      snprintf(labels[b], sizeof labels[b], "%u barrier%s", pt->barriers,
               pt->barriers == 1 ? "" : "s");
      lp[b] = labels[b];
      for (int k = 0; k < VC_MODE_COUNT; k++) {
        const cell *c = &pt->c[order[k]];
        values[b * VC_MODE_COUNT + (uint32_t)k] = c->unsupported ? 0 : (uint64_t)c->wall_ns;
      }
    }
    size_text(pts[l].live, live, sizeof live);
    snprintf(ctitle, sizeof ctitle, "%s: wall per run, %s bytes live", title, live);
    vc_chart ch = {ctitle, VC_UNIT_NS, lp, nb, series, VC_MODE_COUNT, values};
    vc_strbuf svg;
    vc_sb_init(&svg);
    vc_sb_puts(&svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    vc_svg_bars(&svg, &ch);
    /* a file of its own is a document: the chart's svg element needs the namespace */
    const char *at = strstr(svg.data, "<svg ");
    vc_strbuf doc;
    vc_sb_init(&doc);
    vc_sb_printf(&doc, "%.*s<svg xmlns=\"http://www.w3.org/2000/svg\" %s",
                 (int)(at - svg.data), svg.data, at + 5);
    snprintf(name, sizeof name, "crossover-%s.svg", live);
    rc |= write_file(dir, name, &doc);
    vc_sb_free(&doc);
    vc_sb_free(&svg);
  }
  return rc;
}

/* ---- the results file ---- */

static char *command_line(int argc, char **argv) {
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_puts(&sb, "vc-crossover-bench");
  for (int i = 1; i < argc; i++) vc_sb_printf(&sb, " %s", argv[i]);
  return vc_sb_take(&sb);
}

static int begin_map(vc_db *db, const char *backend, const vc_device_info *info, const bench *bn,
                     int argc, char **argv, int64_t *id, vc_error *err) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  char *cmd = command_line(argc, argv);
  vc_crossover_map_info m = {VC_VERSION,
                             vc_build_id(),
                             cmd,
                             host,
                             backend,
                             info->device_name,
                             info->driver_version,
                             vc_unix_time_ns(),
                             0,
                             bn->runs,
                             (uint64_t)bn->budget_ns,
                             "running"};
  int rc = vc_db_begin_crossover(db, &m, id, err);
  free(cmd);
  return rc;
}

/* A point's modes, in the map's order. */
static int record_point(vc_db *db, int64_t id, const point *pt, vc_error *err) {
  vc_crossover_point rows[VC_MODE_COUNT];
  for (int k = 0; k < VC_MODE_COUNT; k++) {
    const cell *c = &pt->c[order[k]];
    rows[k] = (vc_crossover_point){pt->barriers,
                                   pt->live,
                                   vc_mode_name(order[k]),
                                   c->unsupported ? "unsupported" : "ran",
                                   c->unsupported ? c->unsupported : "",
                                   c->runs,
                                   c->unsupported ? 0 : (uint64_t)c->wall_ns,
                                   c->unsupported ? 0 : (uint64_t)c->device_ns};
  }
  return vc_db_record_crossover(db, id, rows, VC_MODE_COUNT, err);
}

static int usage(void) {
  fprintf(stderr, "usage: vc-crossover-bench --backend B [--device N] [--options S] "
                  "[--barriers 1,10,100,1000] [--live 4K,256K,16M,256M] [--runs 1..%u] "
                  "[--budget SECONDS] [--out DIR] [--db FILE]\n",
          MAX_RUNS);
  return VC_EXIT_USAGE;
}

int main(int argc, char **argv) {
  const char *backend = NULL, *options = "", *out = NULL, *dbpath = NULL;
  const char *barriers = "1,10,100,1000", *lives = "4K,256K,16M,256M";
  unsigned long device = 0, runs = 5;
  double budget = 2.0;
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return usage();
    if (strcmp(argv[i], "--backend") == 0)
      backend = v;
    else if (strcmp(argv[i], "--options") == 0)
      options = v;
    else if (strcmp(argv[i], "--device") == 0)
      device = strtoul(v, NULL, 10);
    else if (strcmp(argv[i], "--barriers") == 0)
      barriers = v;
    else if (strcmp(argv[i], "--live") == 0)
      lives = v;
    else if (strcmp(argv[i], "--runs") == 0)
      runs = strtoul(v, NULL, 10);
    else if (strcmp(argv[i], "--budget") == 0)
      budget = strtod(v, NULL);
    else if (strcmp(argv[i], "--out") == 0)
      out = v;
    else if (strcmp(argv[i], "--db") == 0)
      dbpath = v;
    else
      return usage();
    i++;
  }
  uint64_t bl[MAX_POINTS], ll[MAX_POINTS];
  uint32_t nb, nl;
  if (!backend || runs < 1 || runs > MAX_RUNS || !(budget > 0) ||
      parse_list(barriers, bl, &nb, 0) || parse_list(lives, ll, &nl, 1))
    return usage();
  for (uint32_t i = 0; i < nl; i++)
    if (ll[i] % (4 * WG) || ll[i] / 4 / WG > 65535ull * 512) {
      fprintf(stderr, "vc-crossover-bench: --live %llu: a multiple of %u bytes up to %llu\n",
              (unsigned long long)ll[i], 4 * WG, 65535ull * 512 * WG * 4);
      return VC_EXIT_USAGE;
    }
  vc_error e;
  vc_error_clear(&e);
  vc_plugin plugin = {0};
  bench bn = {NULL, NULL, (uint32_t)runs, budget * 1e9};
  if (vc_plugin_load(backend, &plugin, &e) ||
      plugin.ops->open((uint32_t)device, options, &bn.dev, &e)) {
    fprintf(stderr, "vc-crossover-bench: %s\n", e.msg);
    if (plugin.ops) vc_plugin_unload(&plugin);
    return e.code == VC_ERR_USAGE ? VC_EXIT_USAGE : VC_EXIT_NO_BACKEND;
  }
  bn.be = plugin.ops;
  vc_device_info info;
  memset(&info, 0, sizeof info);
  plugin.ops->describe(bn.dev, &info, &e);
  char title[512];
  snprintf(title, sizeof title, "%s on %s (%s %s)", backend, info.device_name, info.driver_name,
           info.driver_version);
  printf("crossover: %s; up to %lu timed runs a mode, %.1f s budget; ms: median wall "
         "(device)\n%9s %9s %24s %24s %24s  wins\n",
         title, runs, budget, "barriers", "live", "native", "resident-split", "host-split");
  vc_db *db = NULL;
  int64_t map = 0;
  uint64_t t0 = vc_now_ns();
  if (dbpath && (vc_db_open(dbpath, 60000, &db, &e) ||
                 begin_map(db, backend, &info, &bn, argc, argv, &map, &e))) {
    fprintf(stderr, "vc-crossover-bench: %s\n", e.msg);
    if (db) vc_db_close(db);
    plugin.ops->close(bn.dev);
    vc_plugin_unload(&plugin);
    return VC_EXIT_DB;
  }
  point *pts = calloc(nb * nl, sizeof *pts);
  int status = pts ? VC_EXIT_OK : VC_EXIT_FAIL;
  for (uint32_t b = 0; pts && status == VC_EXIT_OK && b < nb; b++)
    for (uint32_t l = 0; status == VC_EXIT_OK && l < nl; l++) {
      point *pt = &pts[b * nl + l];
      pt->barriers = (uint32_t)bl[b];
      pt->live = ll[l];
      if (run_point(&bn, pt, &e)) {
        fprintf(stderr, "vc-crossover-bench: %s\n", e.msg);
        status = VC_EXIT_FAIL;
      } else if (db && record_point(db, map, pt, &e)) {
        fprintf(stderr, "vc-crossover-bench: %s\n", e.msg);
        status = VC_EXIT_DB;
      } else {
        vc_strbuf row;
        vc_sb_init(&row);
        row_text(&row, pt, 0);
        fputs(vc_sb_str(&row), stdout);
        fflush(stdout);
        vc_sb_free(&row);
      }
    }
  if (status == VC_EXIT_OK && out && write_outputs(out, title, pts, nb, nl)) status = VC_EXIT_FAIL;
  if (db) {
    /* a map that stopped at a failure keeps its points, marked FAIL */
    if (vc_db_end_crossover(db, map, status == VC_EXIT_OK ? "pass" : "FAIL", vc_now_ns() - t0,
                            &e)) {
      fprintf(stderr, "vc-crossover-bench: %s\n", e.msg);
      status = VC_EXIT_DB;
    }
    vc_db_close(db);
  }
  free(pts);
  plugin.ops->close(bn.dev);
  vc_plugin_unload(&plugin);
  return status;
}
