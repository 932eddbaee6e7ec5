/* A stand-in for vyre-conform in the ci/nightly test: compare, merge,
 * report and verdict are the real commands; a run records six synthetic programs
 * through the recorder, as the runner would, without a device.
 * FAKE_SCENARIO: pass (default), regress (p3 diverges natively),
 * slow (p1 takes ten times as long), nodevice (exit 3, nothing recorded),
 * interrupt (the run ends interrupted, exit 130). --expectations FILE is
 * recorded (expectations=FILE), not judged by. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "harness/cli/commands_results.h"
#include "harness/base/exitcodes.h"
#include "harness/model/digest.h"

typedef struct fake_args {
  const char *backend, *db, *shard, *expectations;
  uint32_t repeats, k, n;
} fake_args;

static int parse(int argc, char **argv, fake_args *a) {
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(argv[i], "--backend"))
      a->backend = v, i++;
    else if (!strcmp(argv[i], "--db"))
      a->db = v, i++;
    else if (!strcmp(argv[i], "--expectations"))
      a->expectations = v, i++;
    else if (!strcmp(argv[i], "--shard"))
      a->shard = v, i++;
    else if (!strcmp(argv[i], "--repeat"))
      a->repeats = v ? (uint32_t)atoi(v) : 0, i++;
    else if (!strcmp(argv[i], "--timeout") || !strcmp(argv[i], "--mode"))
      i++;
    else if (argv[i][0] == '-')
      return fprintf(stderr, "fake: unknown option %s\n", argv[i]), VC_EXIT_USAGE;
  }
  if (!a->backend || !a->db) return fprintf(stderr, "fake: --backend and --db\n"), VC_EXIT_USAGE;
  a->n = 1;
  if (a->shard && sscanf(a->shard, "%u/%u", &a->k, &a->n) != 2) return VC_EXIT_USAGE;
  return 0;
}

static int record(const fake_args *a, const char *scenario) {
  vc_error err = {0};
  vc_db *db;
  if (vc_db_open(a->db, 1000, &db, &err)) return fprintf(stderr, "fake: %s\n", err.msg), VC_EXIT_DB;
  /* the file the run was told to judge by is recorded, as the runner does */
  char options[1200];
  snprintf(options, sizeof options, "repeat=1 timeout=60%s%s", a->expectations ? " expectations=" : "",
           a->expectations ? a->expectations : "");
  /* the selection before --shard, as the runner records it */
  vc_named_digest sel[6];
  char names[6][8], list[256] = "", digest[65];
  for (uint32_t i = 0; i < 6; i++) {
    snprintf(names[i], sizeof names[i], "p%u", i);
    sel[i] = (vc_named_digest){names[i], "s"};
    snprintf(list + strlen(list), sizeof list - strlen(list), "s %s\n", names[i]);
  }
  vc_selection_digest(sel, 6, digest);
  fx_run spec = {.shard = a->shard,
                 .backend = a->backend,
                 .options = options,
                 .selection_digest = digest,
                 .selection_programs = 6,
                 .selection_list = list};
  vc_run_info info = fx_run_info(&spec);
  vc_device_info dev;
  fx_device(&dev, NULL);
  int64_t run;
  int rc = vc_db_begin_run(db, &info, &run, &err);
  if (!rc) rc = vc_db_record_device(db, run, &dev, "fp", &err);
  bool failed = false;
  vc_result res[3 * 8];
  for (uint32_t i = 0; i < 6 && !rc; i++) {
    if (i % a->n != a->k) continue;
    char name[8];
    snprintf(name, sizeof name, "p%u", i);
    bool regress = i == 3 && !strcmp(scenario, "regress");
    double wall = i == 1 && !strcmp(scenario, "slow") ? 100 : 10;
    fx_prog p = {name, regress ? "dpp" : "ppp", wall, 0.1};
    uint32_t n = fx_results(&p, a->repeats ? a->repeats : 1, res);
    vc_program_info pi = {.name = name, .path = name, .source_digest = "s"};
    rc = vc_db_record_program(db, run, &pi, res, n, &err);
    failed |= regress;
  }
  bool interrupt = !strcmp(scenario, "interrupt");
  if (!rc) rc = vc_db_end_run(db, run, interrupt ? "interrupted" : "complete", &err);
  vc_db_close(db);
  if (rc) return fprintf(stderr, "fake: %s\n", err.msg), VC_EXIT_DB;
  return interrupt ? VC_EXIT_INTERRUPTED : failed ? VC_EXIT_FAIL : VC_EXIT_OK;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "compare")) return vc_cmd_compare(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "merge")) return vc_cmd_merge(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "report")) return vc_cmd_report(argc - 1, argv + 1);
  if (argc > 1 && !strcmp(argv[1], "verdict")) return vc_cmd_verdict(argc - 1, argv + 1);
  const char *scenario = getenv("FAKE_SCENARIO");
  if (!scenario) scenario = "pass";
  if (!strcmp(scenario, "nodevice"))
    return fprintf(stderr, "fake: no device\n"), VC_EXIT_NO_BACKEND;
  fake_args a = {0};
  int rc = parse(argc, argv, &a);
  return rc ? rc : record(&a, scenario);
}
