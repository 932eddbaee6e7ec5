#include "png_colours.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

enum { MAX_COLOURS = 65536, SLOTS = 1 << 18 };

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

typedef struct png {
  uint32_t w, h, bpp; /* bytes per pixel: 3 or 4 */
  unsigned char *idat;
  size_t nidat;
} png;

static int fail(char why[256], const char *msg) {
  snprintf(why, 256, "%s", msg);
  return -1;
}

/* Reads the header and concatenates the IDAT chunks. */
static int read_chunks(const unsigned char *d, size_t n, png *p, char why[256]) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (n < 8 || memcmp(d, sig, 8)) return fail(why, "not a PNG file");
  for (size_t off = 8; off + 12 <= n;) {
    uint32_t len = be32(d + off);
    const unsigned char *type = d + off + 4, *data = d + off + 8;
    if (len > n - off - 12) return fail(why, "truncated chunk");
    if (!memcmp(type, "IHDR", 4)) {
      if (len < 13 || data[8] != 8 || (data[9] != 2 && data[9] != 6) || data[12] != 0)
        return fail(why, "only 8-bit, non-interlaced RGB or RGBA PNGs are read");
      p->w = be32(data);
      p->h = be32(data + 4);
      p->bpp = data[9] == 6 ? 4 : 3;
    } else if (!memcmp(type, "IDAT", 4)) {
      unsigned char *grown = realloc(p->idat, p->nidat + len);
      if (!grown) return fail(why, "out of memory");
      p->idat = grown;
      memcpy(p->idat + p->nidat, data, len);
      p->nidat += len;
    } else if (!memcmp(type, "IEND", 4)) {
      return p->w && p->nidat ? 0 : fail(why, "no image data");
    }
    off += 12 + (size_t)len;
  }
  return fail(why, "no IEND chunk");
}

static unsigned paeth(unsigned a, unsigned b, unsigned c) {
  int p = (int)a + (int)b - (int)c, pa = abs(p - (int)a), pb = abs(p - (int)b),
      pc = abs(p - (int)c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the per-row filters in place; rows are 1 filter byte + stride. */
static int unfilter(unsigned char *raw, const png *p, char why[256]) {
  size_t stride = (size_t)p->w * p->bpp;
  for (uint32_t y = 0; y < p->h; y++) {
    unsigned char *row = raw + y * (stride + 1), *cur = row + 1;
    const unsigned char *up = y ? row - stride : NULL;
    for (size_t i = 0; i < stride; i++) {
      unsigned a = i >= p->bpp ? cur[i - p->bpp] : 0, b = up ? up[i] : 0;
      unsigned c = up && i >= p->bpp ? up[i - p->bpp] : 0;
      switch (row[0]) {
      case 0: break;
      case 1: cur[i] = (unsigned char)(cur[i] + a); break;
      case 2: cur[i] = (unsigned char)(cur[i] + b); break;
      case 3: cur[i] = (unsigned char)(cur[i] + (a + b) / 2); break;
      case 4: cur[i] = (unsigned char)(cur[i] + paeth(a, b, c)); break;
      default: return fail(why, "unknown row filter");
      }
    }
  }
  return 0;
}

/* Distinct colours in an open-addressed set, and how often each occurs. */
static void count_colours(const unsigned char *raw, const png *p, png_stats *out) {
  uint32_t *keys = calloc(SLOTS, sizeof *keys), *hits = calloc(SLOTS, sizeof *hits);
  if (!keys || !hits) {
    free(keys);
    free(hits);
    return;
  }
  size_t stride = (size_t)p->w * p->bpp;
  uint32_t most = 0;
  for (uint32_t y = 0; y < p->h; y++)
    for (uint32_t x = 0; x < p->w; x++) {
      const unsigned char *px = raw + y * (stride + 1) + 1 + (size_t)x * p->bpp;
      uint32_t key = ((uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2]) + 1;
      uint32_t h = (key * 2654435761u) & (SLOTS - 1);
      while (keys[h] && keys[h] != key) h = (h + 1) & (SLOTS - 1);
      if (!keys[h]) {
        if (out->colours == MAX_COLOURS) continue;
        keys[h] = key;
        out->colours++;
      }
      if (++hits[h] > most) most = hits[h];
    }
  out->off_background = 1.0 - (double)most / ((double)p->w * p->h);
  free(keys);
  free(hits);
}

int png_colour_stats(const char *path, png_stats *out, char why[256]) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return fail(why, "cannot open the PNG");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *d = n > 0 ? malloc((size_t)n) : NULL;
  size_t got = d ? fread(d, 1, (size_t)n, f) : 0;
  fclose(f);
  png p = {0};
  int rc = got == (size_t)n && d ? read_chunks(d, got, &p, why) : fail(why, "cannot read the PNG");
  free(d);
  uLongf size = rc ? 0 : (uLongf)p.h * ((uLongf)p.w * p.bpp + 1);
  unsigned char *raw = rc ? NULL : malloc(size);
  if (!rc && !raw) rc = fail(why, "out of memory");
  if (!rc && (uncompress(raw, &size, p.idat, p.nidat) != Z_OK ||
              size != (uLongf)p.h * ((uLongf)p.w * p.bpp + 1)))
    rc = fail(why, "the image data does not inflate to the declared size");
  if (!rc) rc = unfilter(raw, &p, why);
  if (!rc) {
    out->width = p.w;
    out->height = p.h;
    count_colours(raw, &p, out);
  }
  free(raw);
  free(p.idat);
  return rc;
}
