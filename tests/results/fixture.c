#include "fixture.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "harness/base/sha256.h"
#include "harness/model/digest.h"

const char *const fx_modes[3] = {"native", "host-split", "resident-split"};

void fx_dir_make(fx_dir *d) {
  const char *tmp = getenv("TMPDIR");
  snprintf(d->path, sizeof d->path, "%s/vc-results-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  assert_non_null(mkdtemp(d->path));
}

/* Removes path and, for a directory, everything below it (links are not followed). */
static void remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    DIR *dir = opendir(path);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char *child = malloc(strlen(path) + strlen(e->d_name) + 2);
      assert_non_null(child);
      sprintf(child, "%s/%s", path, e->d_name);
      remove_tree(child);
      free(child);
    }
    if (dir) closedir(dir);
    rmdir(path);
  } else {
    unlink(path);
  }
}

void fx_dir_remove(fx_dir *d) { remove_tree(d->path); }

void fx_path(const fx_dir *d, const char *name, char out[512]) {
  snprintf(out, 512, "%s/%s", d->path, name);
}

fx_dir fx_tmp;

int fx_tmp_setup(void **state) {
  (void)state;
  fx_dir_make(&fx_tmp);
  return 0;
}

int fx_tmp_teardown(void **state) {
  (void)state;
  fx_dir_remove(&fx_tmp);
  return 0;
}

vc_run_info fx_run_info(const fx_run *spec) {
  return (vc_run_info){
      .harness_version = spec->harness_version ? spec->harness_version : "0.1.0",
      .harness_commit = "0123456789ab",
      .command_line = spec->command_line ? spec->command_line
                                         : "vyre-conform --backend vulkan corpus/",
      .host = "ci-runner-1",
      .corpus_path = "corpus/",
      .corpus_digest = spec->corpus_digest
                           ? spec->corpus_digest
                           : "5f1d3c9a0b7e44c2a8d6f0e1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5",
      .shard = spec->shard ? spec->shard : "",
      .backend = spec->backend ? spec->backend : "vulkan",
      .modes = "native,host-split,resident-split",
      .options = spec->options ? spec->options : "repeat=1 timeout=60",
      .started_ns = 1764445623000000000LL,
      .selection = "",
      .selection_digest = spec->selection_digest ? spec->selection_digest : "",
      .selection_programs = spec->selection_programs,
      .selection_list = spec->selection_list ? spec->selection_list : "",
      .build_id = spec->build_id ? spec->build_id : "b0b0b0b0b0b0-fixture-build",
      .plugin_id = spec->plugin_id ? spec->plugin_id : "p1p1p1p1p1p1-fixture-plugin",
  };
}

void fx_select(fx_run *spec, const fx_prog *progs, uint32_t n, fx_selection *sel) {
  vc_named_digest *items = calloc(n ? n : 1, sizeof *items);
  assert_non_null(items);
  for (uint32_t i = 0; i < n; i++) items[i] = (vc_named_digest){progs[i].name, "abcdef"};
  vc_selection_digest(items, n, sel->digest);
  size_t used = 0;
  sel->list[0] = '\0';
  for (uint32_t i = 0; i < n; i++)
    used += (size_t)snprintf(sel->list + used, sizeof sel->list - used, "%s %s\n",
                             items[i].digest, items[i].name);
  free(items);
  spec->selection_digest = sel->digest;
  spec->selection_programs = n;
  spec->selection_list = sel->list;
}

void fx_device(vc_device_info *d, const char *name) {
  memset(d, 0, sizeof *d);
  snprintf(d->api, sizeof d->api, "vulkan");
  snprintf(d->api_version, sizeof d->api_version, "1.3.230");
  snprintf(d->driver_name, sizeof d->driver_name, "llvmpipe");
  snprintf(d->driver_version, sizeof d->driver_version, "Mesa 22.3.6");
  d->vendor_id = 0x10005;
  d->device_id = 0;
  snprintf(d->device_name, sizeof d->device_name, "%s",
           name ? name : "llvmpipe (LLVM 15.0.6, 256 bits)");
  snprintf(d->uuid, sizeof d->uuid, "6d657361-3232-2e33-2e36-000000000000");
  d->compute_units = 2;
  d->max_workgroup_invocations = 1024;
  d->max_workgroup_size[0] = d->max_workgroup_size[1] = d->max_workgroup_size[2] = 1024;
  d->max_grid[0] = d->max_grid[1] = d->max_grid[2] = 65535;
  d->max_shared_bytes = 32768;
  d->max_buffer_bytes = (uint64_t)1 << 31;
  d->global_mem_bytes = (uint64_t)8 << 30;
  d->timestamps = true;
  d->cooperative = false;
  snprintf(d->float_env, sizeof d->float_env, "denorm32=preserve rounding32=rte");
  snprintf(d->extra, sizeof d->extra, "subgroup_size=8\nsubgroup_ops=basic,vote\n");
}

static vc_status status_of(char c) {
  switch (c) {
  case 'd':
  case 'z':
  case 'm': return VC_ST_DIVERGE;
  case 'w': return VC_ST_UNTRUSTWORTHY;
  case 'e': return VC_ST_ERROR;
  case 'c': return VC_ST_CRASH;
  case 't': return VC_ST_TIMEOUT;
  case 'u': return VC_ST_UNSUPPORTED;
  case 's': return VC_ST_SKIP;
  case 'i': return VC_ST_INVALID;
  case 'f': return VC_ST_FLAKE;
  default: return VC_ST_PASS;
  }
}

static vc_divergence fx_div = {.buffer = "out",
                               .type = "u32",
                               .first_index = 17,
                               .count = 3,
                               .context_start = 15,
                               .expected_hex = "0000000f 00000010 00000011 00000012 00000013",
                               .actual_hex = "0000000f 00000010 deadbeef 00000012 00000013",
                               .cls = VC_DIV_INTEGER};
/* What a flake's failed first attempt got (results of status f). */
static vc_divergence fx_attempt_div = {.buffer = "out",
                                       .type = "u32",
                                       .first_index = 17,
                                       .count = 1,
                                       .context_start = 15,
                                       .expected_hex = "0f000000 10000000 11000000 12000000 13000000",
                                       .actual_hex = "0f000000 10000000 8017f6a8 12000000 13000000",
                                       .cls = VC_DIV_INTEGER,
                                       .attempt = 1};

/* 'z': lavapipe's folded -0 + 0.0; 'm': that and a second fault in another
   buffer and class (an fmin for a min, say). */
static vc_divergence fx_zero_divs[2] = {{.buffer = "add_a_zero",
                                         .type = "f32",
                                         .first_index = 2,
                                         .count = 5,
                                         .context_start = 0,
                                         .expected_hex = "00000000 00000000 00000000",
                                         .actual_hex = "00000000 00000000 80000000",
                                         .cls = VC_DIV_F32_SIGNED_ZERO},
                                        {.buffer = "min_nan",
                                         .type = "f32",
                                         .first_index = 0,
                                         .count = 1,
                                         .context_start = 0,
                                         .expected_hex = "7fc00000",
                                         .actual_hex = "3f800000",
                                         .cls = VC_DIV_F32_NAN}};

static vc_segment_timing fx_segs[2] = {{.pass = 0,
                                        .segment = 0,
                                        .wall_ns = 400000,
                                        .device_ns = 300000,
                                        .bytes_up = 4096,
                                        .bytes_down = 4096,
                                        .launches = 1},
                                       {.pass = 0,
                                        .segment = 1,
                                        .wall_ns = 500000,
                                        .device_ns = 350000,
                                        .bytes_up = 4096,
                                        .bytes_down = 4096,
                                        .launches = 1}};

uint32_t fx_results(const fx_prog *p, uint32_t repeats, vc_result *out) {
  const char *st = p->statuses ? p->statuses : "ppp";
  double wall = p->wall_ms > 0 ? p->wall_ms : 10.0;
  uint32_t n = 0;
  for (int m = 0; m < 3; m++) {
    if (st[m] == '-') continue;
    for (uint32_t r = 0; r < repeats; r++) {
      vc_result *x = &out[n++];
      memset(x, 0, sizeof *x);
      x->mode = fx_modes[m];
      x->repeat = r;
      x->status = status_of(st[m]);
      double ms = wall + ((double)r - (double)(repeats - 1) / 2.0) * p->jitter_ms;
      x->wall_ns = (uint64_t)(ms * 1e6);
      x->device_ns = x->wall_ns / 2;
      x->compile_ns = 2000000;
      x->bytes_up = m == 1 ? 16384 : 8192;
      x->bytes_down = m == 1 ? 16384 : 4096;
      x->launches = m == 0 ? 1 : 2;
      x->passes = 1;
      snprintf(x->output_digest, sizeof x->output_digest, "%064x", (unsigned)(m + 1));
      if (x->status != VC_ST_PASS)
        snprintf(x->reason, sizeof x->reason, "%s in %s: planted by the test",
                 vc_status_name(x->status), x->mode);
      if (x->status == VC_ST_FLAKE) { /* as flake reruns leave it */
        x->attempts = 2;
        snprintf(x->attempt_log, sizeof x->attempt_log,
                 "1 diverge: out differs in %s; 2 pass", x->mode);
        x->attempt_divs = &fx_attempt_div;
        x->nattempt_divs = 1;
      }
      if (st[m] == 'd') {
        x->divs = &fx_div;
        x->ndivs = 1;
      } else if (st[m] == 'z' || st[m] == 'm') {
        x->divs = fx_zero_divs;
        x->ndivs = st[m] == 'm' ? 2 : 1;
      }
      if (m != 0) {
        x->segs = fx_segs;
        x->nsegs = 2;
      } else {
        x->participants = 2;
        x->virtual_per_participant = 8;
        x->device_barriers = 1;
      }
    }
  }
  return n;
}

static vc_db *begin(const char *path, const fx_run *spec, int64_t *run) {
  vc_error err = {0};
  vc_db *db = NULL;
  if (vc_db_open(path, 1000, &db, &err)) fail_msg("opening %s: %s", path, err.msg);
  vc_run_info info = fx_run_info(spec);
  if (vc_db_begin_run(db, &info, run, &err)) fail_msg("beginning a run in %s: %s", path, err.msg);
  return db;
}

vc_db *fx_begin(const char *path, int64_t *run) { return begin(path, &(fx_run){0}, run); }

int64_t fx_write_run(const char *path, const fx_run *spec) {
  vc_error err = {0};
  int64_t run = 0;
  vc_db *db = begin(path, spec, &run);
  vc_device_info dev;
  fx_device(&dev, spec->device_name);
  if (spec->driver_version)
    snprintf(dev.driver_version, sizeof dev.driver_version, "%s", spec->driver_version);
  assert_int_equal(vc_db_record_device(db, run, &dev, "probe-digest-1234", &err), 0);
  uint32_t repeats = spec->repeats ? spec->repeats : 1;
  vc_result *res = calloc(3 * repeats, sizeof *res);
  assert_non_null(res);
  for (uint32_t i = 0; i < spec->nprogs; i++) {
    const fx_prog *p = &spec->progs[i];
    uint32_t n = fx_results(p, repeats, res);
    for (uint32_t k = 0; k < n && spec->warm_cache; k++) /* native 1 kernel, a split mode 2 */
      res[k].cache_hits = strcmp(res[k].mode, "native") == 0 ? 1 : 2;
    const fx_extra *x = spec->extras ? &spec->extras[i] : &(fx_extra){0};
    for (uint32_t k = 0; k < n && x->err_text; k++)
      if (vc_status_is_failure(res[k].status))
        snprintf(res[k].captured_stderr, sizeof res[k].captured_stderr, "%s", x->err_text);
    vc_program_info pi = {.name = p->name,
                          .path = x->path ? x->path : "corpus/basic/x.vyre",
                          .source_digest = x->source_digest ? x->source_digest : "abcdef",
                          .segments = 2,
                          .barriers = 1,
                          .invocations = 1024,
                          .workgroups = 16,
                          .buffer_bytes = 8192,
                          .tags = "basic"};
    if (vc_db_record_program(db, run, &pi, res, n, &err))
      fail_msg("recording %s: %s", p->name, err.msg);
  }
  free(res);
  const char *end = spec->end_status ? spec->end_status : "complete";
  if (end[0]) assert_int_equal(vc_db_end_run(db, run, end, &err), 0);
  vc_db_close(db);
  return run;
}

void fx_file_digest(const char *path, char hex[65]) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  vc_sha256 s;
  vc_sha256_init(&s);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) vc_sha256_update(&s, buf, n);
  fclose(f);
  uint8_t d[32];
  vc_sha256_final(&s, d);
  vc_sha256_hex(d, hex);
}

int64_t fx_query_int(const char *path, const char *sql) {
  sqlite3 *db = NULL;
  assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) fail_msg("%s: %s", sql, sqlite3_errmsg(db));
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  int64_t v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

void fx_write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  assert_int_equal(fclose(f), 0);
}

char *fx_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail_msg("cannot read %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  assert_non_null(s);
  assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
  s[n] = '\0';
  fclose(f);
  return s;
}

int fx_capture(int (*fn)(int, char **), int argc, const char *const *argv, char **text) {
  char path[] = "/tmp/vc-capture-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stdout);
  int saved = dup(1);
  assert_true(saved >= 0);
  dup2(fd, 1);
  char **args = calloc((size_t)argc + 1, sizeof *args);
  assert_non_null(args);
  for (int i = 0; i < argc; i++) args[i] = strdup(argv[i]);
  int status = fn(argc, args);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  for (int i = 0; i < argc; i++) free(args[i]);
  free(args);
  *text = fx_read_file(path);
  unlink(path);
  return status;
}

int fx_capture_err(int (*fn)(int, char **), int argc, const char *const *argv, char **text,
                   char **errors) {
  char path[] = "/tmp/vc-capture-err-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  assert_true(saved >= 0);
  dup2(fd, 2);
  int status = fx_capture(fn, argc, argv, text);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  *errors = fx_read_file(path);
  unlink(path);
  return status;
}

int fx_report(fx_writer fn, const vc_run_data *const *runs, uint32_t nruns,
              const char *expectations, const vc_report_opts *o, vc_strbuf *out) {
  vc_report_opts opts = o ? *o : (vc_report_opts){0};
  opts.expectations = expectations ? expectations : "none";
  vc_qual q;
  vc_error err = {0};
  int rc = vc_qual_build(runs, nruns, &opts, &q, &err);
  if (rc) fail_msg("judging the runs: %s", err.msg);
  rc = fn(&q, out, &err);
  if (rc) fail_msg("writing the report: %s", err.msg);
  vc_qual_free(&q);
  return rc;
}

int fx_report1(fx_writer fn, const vc_run_data *r, vc_strbuf *out) {
  return fx_report(fn, &r, 1, NULL, NULL, out);
}
