#include "harness/exec/fingerprint.h"

#include <stdio.h>
#include <string.h>

#include "harness/model/inputs.h"
#include "harness/exec/modes.h"
#include "harness/lang/parse.h"
#include "harness/base/sha256.h"
#include "harness/split/split.h"

/* Element 0: the NaN inf - inf produces. 1: a denormal input times one.
   2: a result below the normal range. 3: the smallest denormal plus zero. */
static const char probe[] =
    "(program fingerprint (workgroup 1) (grid 1)\n"
    "  (buffer in f32 4 read (init (values 0x7f800000f 0x00000001f 0x00800000f 0x80000001f)))\n"
    "  (buffer o u32 4 write)\n"
    "  (entry\n"
    "    (let inf (load in 0u))\n"
    "    (store o 0u (bitcast u32 (sub inf inf)))\n"
    "    (store o 1u (bitcast u32 (mul (load in 1u) 1.0f)))\n"
    "    (store o 2u (bitcast u32 (add (load in 2u) (load in 3u))))\n"
    "    (store o 3u (bitcast u32 (add (load in 1u) 0.0f)))))\n";

void vc_fingerprint(const vc_backend *be, vc_dev *dev, char *out, size_t n) {
  vc_diags d;
  vc_diags_init(&d);
  vc_program *p = vc_parse("fingerprint", probe, sizeof probe - 1, &d);
  vc_diags_free(&d);
  vc_split *s = NULL;
  vc_error e;
  vc_error_clear(&e);
  if (!p || vc_split_program(p, &s, &e)) {
    snprintf(out, n, "unavailable: the probe does not build");
    vc_program_free(p);
    return;
  }
  uint32_t input[4];
  vc_inputs_fill(&p->buffers[0], input);
  const uint32_t *inputs[2] = {input, NULL};
  uint32_t zero[4] = {0};
  inputs[1] = zero;
  vc_exec x;
  vc_exec_init(&x, be, dev, p, s);
  vc_mode_out mo;
  if (vc_exec_run(&x, VC_MODE_HOST_SPLIT, inputs, &mo, &e)) {
    snprintf(out, n, "unavailable: %s", e.msg);
  } else {
    const uint32_t *o = mo.outputs[1];
    uint8_t dg[32];
    char hex[65];
    vc_sha256 h;
    vc_sha256_init(&h);
    vc_sha256_update(&h, o, 16);
    vc_sha256_final(&h, dg);
    vc_sha256_hex(dg, hex);
    hex[16] = '\0';
    snprintf(out, n, "nan=0x%08x denorm-in=%s denorm-out=%s denorm-add=%s sha256=%s", o[0],
             o[1] == 1u ? "preserve" : "flush", o[2] == 0x007fffffu ? "preserve" : "flush",
             o[3] == 1u ? "preserve" : "flush", hex);
  }
  vc_mode_out_free(&mo);
  vc_exec_free(&x);
  vc_split_free(s);
  vc_program_free(p);
}

bool vc_fingerprint_flushes(const char *fp) {
  return fp && (strstr(fp, "denorm-in=flush") || strstr(fp, "denorm-out=flush") ||
                strstr(fp, "denorm-add=flush"));
}
