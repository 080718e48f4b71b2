/* uniform_fill.c — uniform operands for timing (see uniform_fill.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "uniform_fill.h"

enum { DRAWN_REALS = 1 << 20 };

void tilemm_uniform_fill (void *data, size_t reals, int is_single, uint64_t seed)
{
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  const size_t drawn = reals < DRAWN_REALS ? reals : DRAWN_REALS;
  for (size_t i = 0; i < drawn; i++)
    {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      const double v = (double) (x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
      if (is_single)
        ((float *) data)[i] = (float) v;
      else
        ((double *) data)[i] = v;
    }
  const size_t es = is_single ? sizeof (float) : sizeof (double);
  unsigned char *bytes = data;
  for (size_t at = drawn; at < reals; at += drawn)
    memcpy (bytes + at * es, bytes, (reals - at < drawn ? reals - at : drawn) * es);
}
