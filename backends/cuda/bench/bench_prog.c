/* The programs the parts run: a chain of trivial segments written here, or
 * a file; parsed, split and given their inputs. */
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/bench/bench.h"
#include "harness/model/inputs.h"
#include "harness/lang/parse.h"
#include "harness/base/strbuf.h"

#define CHAIN_WORDS 1024u

static const char chain_work[] =
    "    (if (lt i 1024u) (store o i (add (load o i) 1u)))\n";

static int finish_prog(vc_program *p, vc_diags *d, const char *what, bench_prog *bp,
                       vc_error *err) {
  if (!p) {
    int rc = d->count ? vc_fail(err, VC_ERR_PARSE, "%s:%u:%u: %s", d->items[0].file,
                                d->items[0].loc.line, d->items[0].loc.col, d->items[0].msg)
                      : vc_fail(err, VC_ERR_PARSE, "%s does not parse", what);
    vc_diags_free(d);
    return rc;
  }
  vc_diags_free(d);
  bp->prog = p;
  int rc = vc_split_program(p, &bp->split, err);
  if (rc != 0) return vc_fail_wrap(err, "splitting %s", what);
  bp->inputs = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *bp->inputs);
  if (!bp->inputs) return vc_fail(err, VC_ERR_NOMEM, "no memory for the inputs of %s", what);
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    bp->inputs[i] = malloc(vc_buffer_bytes(&p->buffers[i]));
    if (!bp->inputs[i])
      return vc_fail(err, VC_ERR_NOMEM, "no memory for buffer %s of %s", p->buffers[i].name,
                     what);
    vc_inputs_fill(&p->buffers[i], bp->inputs[i]);
  }
  return 0;
}

int bench_chain_prog(uint32_t segments, uint32_t grid, bench_prog *bp, vc_error *err) {
  memset(bp, 0, sizeof *bp);
  vc_strbuf sb;
  vc_sb_init(&sb);
  vc_sb_printf(&sb,
               "(program bench_chain_%u (workgroup 256) (grid %u)\n"
               "  (buffer o u32 %u read_write (init zero))\n"
               "  (entry (let i (global_id x))\n%s",
               segments, grid, CHAIN_WORDS, chain_work);
  for (uint32_t s = 1; s < segments; s++) vc_sb_printf(&sb, "    (barrier grid)\n%s", chain_work);
  vc_sb_puts(&sb, "))\n");
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("bench_chain.vyre", vc_sb_str(&sb), sb.len, &d);
  vc_sb_free(&sb);
  return finish_prog(p, &d, "the chain program", bp, err);
}

int bench_file_prog(const char *path, bench_prog *bp, vc_error *err) {
  memset(bp, 0, sizeof *bp);
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse_file(path, &d);
  return finish_prog(p, &d, path, bp, err);
}

void bench_prog_exec(bench *b, bench_prog *bp) {
  vc_exec_init(&bp->exec, b->be, b->dev, bp->prog, bp->split);
}

void bench_prog_free(bench_prog *bp) {
  if (bp->exec.be) vc_exec_free(&bp->exec);
  for (uint32_t i = 0; bp->inputs && i < bp->prog->nbuffers; i++) free(bp->inputs[i]);
  free(bp->inputs);
  if (bp->split) vc_split_free(bp->split);
  vc_program_free(bp->prog);
  memset(bp, 0, sizeof *bp);
}

const char *bench_chain_check(const uint32_t *words, uint32_t runs) {
  if (!words) return "no output";
  for (uint32_t i = 0; i < CHAIN_WORDS; i++)
    if (words[i] != runs) return "a word of the chain's output is not the number of segments run";
  return NULL;
}
