/* manifest.json (content.h): one object, keys in a fixed order, so that two
 * packages of the same runs differ only where the runs do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/package/content.h"
#include "results/report/escape.h"

static void key(vc_strbuf *sb, int ind, const char *k) {
  vc_sb_printf(sb, "%*s", ind, "");
  vc_esc_json(sb, k);
  vc_sb_puts(sb, ": ");
}

static void str(vc_strbuf *sb, int ind, const char *k, const char *v, bool more) {
  key(sb, ind, k);
  vc_esc_json(sb, v ? v : "");
  vc_sb_puts(sb, more ? ",\n" : "\n");
}

static void num(vc_strbuf *sb, int ind, const char *k, long long v, bool more) {
  key(sb, ind, k);
  vc_sb_printf(sb, "%lld%s", v, more ? ",\n" : "\n");
}

static void boolean(vc_strbuf *sb, int ind, const char *k, bool v, bool more) {
  key(sb, ind, k);
  vc_sb_printf(sb, "%s%s", v ? "true" : "false", more ? ",\n" : "\n");
}

/* A list "a<sep>b" as a JSON array of strings. */
static void list(vc_strbuf *sb, int ind, const char *k, const char *text, char sep, bool more) {
  key(sb, ind, k);
  vc_sb_puts(sb, "[");
  bool first = true;
  for (const char *p = text ? text : ""; *p;) {
    const char *e = strchr(p, sep);
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n) {
      char *item = strndup(p, n);
      if (!item) abort();
      vc_sb_puts(sb, first ? "" : ", ");
      vc_esc_json(sb, item);
      free(item);
      first = false;
    }
    p += n + (e != NULL);
  }
  vc_sb_puts(sb, more ? "],\n" : "]\n");
}

/* "NAME=value" lines as an object. */
static void environment(vc_strbuf *sb, int ind, const char *text, bool more) {
  key(sb, ind, "environment");
  vc_sb_puts(sb, "{");
  bool first = true;
  for (const char *p = text ? text : ""; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    char *line = strndup(p, n);
    if (!line) abort();
    char *eq = strchr(line, '=');
    if (eq) {
      *eq = '\0';
      vc_sb_printf(sb, "%s\n%*s", first ? "" : ",", ind + 2, "");
      vc_esc_json(sb, line);
      vc_sb_puts(sb, ": ");
      vc_esc_json(sb, eq + 1);
      first = false;
    }
    free(line);
    p += n + (nl != NULL);
  }
  if (!first) vc_sb_printf(sb, "\n%*s", ind, "");
  vc_sb_puts(sb, more ? "},\n" : "}\n");
}

static void run(vc_strbuf *sb, const vc_pkg_content *c, uint32_t i, bool more) {
  const vc_run_data *r = c->runs[i];
  const vc_run_info *x = &r->info;
  const vc_pkg_exps *e = &c->exps[i];
  uint32_t results, warm;
  vc_pkg_cache_counts(r, &results, &warm);
  vc_sb_puts(sb, "    {\n");
  num(sb, 6, "id", r->id, true);
  str(sb, 6, "backend", x->backend, true);
  str(sb, 6, "device", r->has_device ? r->device.device_name : "", true);
  str(sb, 6, "driver", r->has_device ? r->device.driver_version : "", true);
  str(sb, 6, "driver_name", r->has_device ? r->device.driver_name : "", true);
  str(sb, 6, "api_version", r->has_device ? r->device.api_version : "", true);
  str(sb, 6, "status", r->status, true);
  list(sb, 6, "modes", x->modes, ',', true);
  str(sb, 6, "options", x->options, true);
  str(sb, 6, "command_line", x->command_line, true);
  num(sb, 6, "started_ns", x->started_ns, true);
  num(sb, 6, "ended_ns", r->ended_ns, true);
  str(sb, 6, "harness_version", x->harness_version, true);
  str(sb, 6, "harness_commit", x->harness_commit, true);
  str(sb, 6, "build_id", x->build_id, true);
  str(sb, 6, "plugin_id", x->plugin_id, true);
  str(sb, 6, "selection_digest", x->selection_digest, true);
  num(sb, 6, "selection_programs", x->selection_programs, true);
  str(sb, 6, "corpus_digest", x->corpus_digest, true);
  key(sb, 6, "kernel_cache");
  vc_sb_printf(sb, "{\"state\": \"%s\", \"results\": %u, \"from_cache\": %u},\n",
               warm ? "warm" : "cold", results, warm);
  key(sb, 6, "expectations");
  if (e->file[0]) {
    vc_sb_puts(sb, "{\"recorded\": ");
    vc_esc_json(sb, e->recorded);
    vc_sb_puts(sb, ", \"file\": ");
    vc_esc_json(sb, e->file);
    vc_sb_printf(sb, ", \"sha256\": \"%s\"},\n", e->sha256);
  } else {
    vc_sb_puts(sb, "null,\n");
  }
  list(sb, 6, "hosts", x->host, ',', true);
  environment(sb, 6, x->environment, false);
  vc_sb_printf(sb, "    }%s\n", more ? "," : "");
}

void vc_pkg_manifest(const vc_pkg_content *c, vc_strbuf *sb) {
  const vc_package_build *b = &c->o->build;
  vc_sb_puts(sb, "{\n");
  str(sb, 2, "format", "vyre-conform package", true);
  num(sb, 2, "format_version", VC_PACKAGE_FORMAT_VERSION, true);
  boolean(sb, 2, "for_submission", c->clean, true);
  vc_sb_puts(sb, "  \"harness\": {\n");
  str(sb, 4, "version", b->version, true);
  str(sb, 4, "commit", b->commit, true);
  str(sb, 4, "build_id", b->build_id, true);
  str(sb, 4, "compiler", b->compiler, true);
  str(sb, 4, "build_type", b->build_type, true);
  str(sb, 4, "cmake_options", b->cmake_options, false);
  vc_sb_puts(sb, "  },\n  \"tree\": {\n");
  boolean(sb, 4, "clean", c->clean, true);
  str(sb, 4, "commit", c->commit, true);
  list(sb, 4, "changes", c->status_text, '\n', false);
  vc_sb_puts(sb, "  },\n  \"statement\": {\n");
  str(sb, 4, "product", c->o->product ? c->o->product : "FILL IN", true);
  str(sb, 4, "driver", c->o->driver ? c->o->driver : "FILL IN", true);
  str(sb, 4, "os", c->o->os ? c->o->os : "FILL IN", false);
  vc_sb_puts(sb, "  },\n");
  str(sb, 2, "database", "results.db", true);
  vc_sb_puts(sb, "  \"runs\": [\n");
  for (uint32_t i = 0; i < c->nruns; i++) run(sb, c, i, i + 1 < c->nruns);
  vc_sb_puts(sb, "  ],\n  \"corpus\": [\n");
  for (uint32_t i = 0; i < c->ncorpus; i++) {
    const vc_pkg_prog *p = &c->corpus[i];
    vc_sb_puts(sb, "    {\"name\": ");
    vc_esc_json(sb, p->name);
    vc_sb_puts(sb, ", \"path\": ");
    vc_esc_json(sb, p->path);
    vc_sb_printf(sb, ", \"sha256\": \"%s\"}%s\n", p->sha256, i + 1 < c->ncorpus ? "," : "");
  }
  vc_sb_puts(sb, "  ],\n  \"files\": [");
  for (uint32_t i = 0; i < c->nfiles; i++) {
    vc_sb_puts(sb, i ? ", " : "");
    vc_esc_json(sb, c->files[i]);
  }
  vc_sb_puts(sb, "]\n}\n");
}
