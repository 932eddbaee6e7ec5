#include "tests/vulkan/vk_test_util.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness/model/inputs.h"
#include "harness/lang/parse.h"
#include "tests/native/native_util.h"

const char *const vkt_program_names[] = {
    "int_wrap",     "divrem",        "shifts",         "int_minmax",   "compare_logic",
    "f32_arith",    "f32_contract",  "f32_minmax",     "f32_signs",    "f32_compare",
    "casts",        "denormals",     "oob",            "atomics_buffer", "atomics_shared",
    "shared_barrier", "buffer_barrier", "return",      "loops",        "builtins",
    "f32_div",      "literals",      "eval_order",
};
const unsigned vkt_program_count = sizeof vkt_program_names / sizeof vkt_program_names[0];

/* lavapipe 22.3 keeps an allocation in a global and loses it when the
   loader unloads the driver at vkDestroyInstance; LeakSanitizer then blames
   an unknown module. Pinning the driver named by VK_DRIVER_FILES keeps the
   allocation reachable; leaks of the plugin itself are still reported. */
static void pin_driver(void) {
  const char *icd = getenv("VK_DRIVER_FILES");
  FILE *f = icd ? fopen(icd, "r") : NULL;
  if (!f) return;
  char json[4096];
  size_t n = fread(json, 1, sizeof json - 1, f);
  fclose(f);
  json[n] = '\0';
  const char *key = strstr(json, "\"library_path\"");
  const char *open = key ? strchr(key + 14, '"') : NULL;
  const char *close = open ? strchr(open + 1, '"') : NULL;
  if (!close) return;
  char path[1024];
  snprintf(path, sizeof path, "%.*s", (int)(close - open - 1), open + 1);
  dlopen(path, RTLD_NOW | RTLD_NODELETE);
}

int vkt_load(vc_plugin *plugin) {
  pin_driver();
  vc_error e;
  if (vc_plugin_load_file(VKT_PLUGIN, plugin, &e) != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return -1;
  }
  return 0;
}

static vc_program *parsed(vc_program *p, vc_diags *d) {
  if (!p) vc_diags_print(d, stderr);
  vc_diags_free(d);
  return p;
}

vc_program *vkt_parse(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.vyre", VKT_PROGRAMS, name);
  vc_diags d;
  vc_diags_init(&d);
  return parsed(vc_parse_file(path, &d), &d);
}

vc_program *vkt_parse_text(const char *name, const char *text) {
  vc_diags d;
  vc_diags_init(&d);
  return parsed(vc_parse(name, text, strlen(text), &d), &d);
}

int vkt_buffers_init(const vc_program *p, vkt_buffers *b) {
  b->n = p->nbuffers;
  b->data = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *b->data);
  if (!b->data) return VC_ERR_NOMEM;
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    b->data[i] = calloc(p->buffers[i].count, sizeof(uint32_t));
    if (!b->data[i]) return VC_ERR_NOMEM;
    vc_inputs_fill(&p->buffers[i], b->data[i]);
  }
  return 0;
}

void vkt_buffers_free(vkt_buffers *b) {
  for (uint32_t i = 0; b->data && i < b->n; i++) free(b->data[i]);
  free(b->data);
  b->data = NULL;
  b->n = 0;
}

/* Allocates and fills the device buffers: inputs uploaded, outputs zeroed. */
static int setup_buffers(const vc_backend *ops, vc_dev *dev, const vc_program *p,
                         const vkt_buffers *init, vc_buf **bufs, vc_error *err) {
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    uint64_t bytes = vc_buffer_bytes(&p->buffers[i]);
    int rc = ops->alloc(dev, bytes, &bufs[i], err);
    if (!rc && p->buffers[i].access == VC_WRITE)
      rc = ops->zero(dev, bufs[i], err);
    else if (!rc)
      rc = ops->upload(dev, bufs[i], init->data[i], bytes, err);
    if (rc) return rc;
  }
  return 0;
}

int vkt_run_device(const vc_backend *ops, vc_dev *dev, const vc_program *p, vkt_buffers *out,
                   vc_error *err) {
  int rc = vkt_buffers_init(p, out);
  if (rc) return vc_fail(err, VC_ERR_NOMEM, "out of memory");
  vc_kernel_desc k = {.kind = VC_KERNEL_SEGMENT, .prog = p, .label = p->name};
  vc_kern *kern = NULL;
  vc_compile_info info = {0};
  rc = ops->compile(dev, &k, &kern, &info, err);
  free(info.log);
  if (rc) return rc;
  vc_buf **bufs = calloc(p->nbuffers ? p->nbuffers : 1, sizeof *bufs);
  if (!bufs) rc = vc_fail(err, VC_ERR_NOMEM, "out of memory");
  if (!rc) rc = setup_buffers(ops, dev, p, out, bufs, err);
  if (!rc) rc = ops->launch(dev, kern, bufs, p->nbuffers, err);
  uint64_t ns[1];
  uint32_t count = 0;
  if (!rc) rc = ops->finish(dev, ns, 1, &count, err);
  for (uint32_t i = 0; !rc && i < p->nbuffers; i++)
    rc = ops->download(dev, bufs[i], out->data[i], vc_buffer_bytes(&p->buffers[i]), err);
  for (uint32_t i = 0; bufs && i < p->nbuffers; i++)
    if (bufs[i]) ops->free_buffer(dev, bufs[i]);
  free(bufs);
  ops->free_kernel(dev, kern);
  return rc;
}

void vkt_native_each(const char *dir, size_t min, void (*fn)(struct native_case *c, void *ctx),
                     void *ctx) {
  size_t n = 0;
  char **files = native_list(dir, &n);
  if (n < min) fail_msg("%s: %zu cases, at least %zu expected", dir, n, min);
  for (size_t i = 0; i < n; i++) {
    native_case c;
    native_case_load(&c, files[i]);
    fn(&c, ctx);
    native_case_free(&c);
  }
  native_list_free(files, n);
}

static bool is_nan(uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }

/* Distance in units in the last place between two f32 bit patterns. */
static uint64_t ulp_distance(uint32_t a, uint32_t b) {
  int64_t x = (a & 0x80000000u) ? -(int64_t)(a & 0x7fffffffu) : (int64_t)a;
  int64_t y = (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
  return (uint64_t)(x > y ? x - y : y - x);
}

static uint32_t allowed_ulp(const vc_program *p, uint32_t buffer) {
  for (uint32_t i = 0; i < p->nexpects; i++)
    if (p->expects[i].kind == VC_EXPECT_ULP && p->expects[i].ref == buffer) return p->expects[i].n;
  return 0;
}

static bool element_equal(vc_type t, uint32_t ulp, uint32_t want, uint32_t got) {
  if (want == got) return true;
  if (t != VC_F32) return false;
  if (is_nan(want) || is_nan(got)) return is_nan(want) && is_nan(got);
  return ulp_distance(want, got) <= ulp;
}

bool vkt_outputs_equal(const vc_program *p, const vkt_buffers *expected, const vkt_buffers *actual,
                       char *why, size_t n) {
  for (uint32_t i = 0; i < p->nbuffers; i++) {
    const vc_buffer *b = &p->buffers[i];
    if (b->access == VC_READ) continue;
    uint32_t ulp = allowed_ulp(p, i), bad = 0, first = 0;
    for (uint32_t j = 0; j < b->count; j++)
      if (!element_equal(b->type, ulp, expected->data[i][j], actual->data[i][j]) && bad++ == 0)
        first = j;
    if (bad) {
      snprintf(why, n, "%s: buffer %s (%s): %u of %u elements differ, first [%u]: expected "
                       "0x%08x, got 0x%08x",
               p->name, b->name, vc_type_name(b->type), bad, b->count, first,
               expected->data[i][first], actual->data[i][first]);
      return false;
    }
  }
  return true;
}
