/* Enough of PNG to tell a rendered page from a blank one: decodes 8-bit
 * RGB and RGBA images (what Chromium's screenshots are) and counts colours. */
#ifndef VC_TESTS_PNG_COLOURS_H
#define VC_TESTS_PNG_COLOURS_H

#include <stdint.h>

typedef struct png_stats {
  uint32_t width, height;
  uint32_t colours;      /* distinct colours, counted up to 65536 */
  double off_background; /* fraction of pixels unlike the most common colour */
} png_stats;

/* 0, or -1 with why[256] filled. */
int png_colour_stats(const char *path, png_stats *out, char why[256]);

#endif
