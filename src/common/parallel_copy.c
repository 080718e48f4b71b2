/* parallel_copy.c — host copies spread over threads (see parallel_copy.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "parallel_copy.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many bytes a single thread is faster than waking a team. */
enum { PARALLEL_COPY_MIN_BYTES = 1 << 20, PARALLEL_COPY_PIECE = 1 << 20 };

int tilemm_team_size (int threads, int64_t items)
{
#ifdef _OPENMP
  if (threads <= 0)
    threads = omp_get_max_threads ();
#endif
  if (threads < 1)
    threads = 1;
  return items < (int64_t) threads ? (int) (items > 0 ? items : 1) : threads;
}

void tilemm_parallel_copy_2d (void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                              size_t row_bytes, size_t cols, int threads)
{
  char *d = (char *) dst;
  const char *s = (const char *) src;
  const size_t total = row_bytes * cols;
#ifndef _OPENMP
  (void) threads;
#endif
  if (total == 0)
    return;
  if (dst_pitch == row_bytes && src_pitch == row_bytes)
    {
      /* Contiguous: cut into 1 MiB pieces so every thread gets work whatever the shape. */
      const int64_t pieces = (int64_t) ((total + PARALLEL_COPY_PIECE - 1) / PARALLEL_COPY_PIECE);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(tilemm_team_size (threads, pieces)) if (total >= PARALLEL_COPY_MIN_BYTES && threads != 1)
#endif
      for (int64_t p = 0; p < pieces; p++)
        {
          const size_t at = (size_t) p * PARALLEL_COPY_PIECE;
          const size_t len = total - at < PARALLEL_COPY_PIECE ? total - at : PARALLEL_COPY_PIECE;
          memcpy (d + at, s + at, len);
        }
      return;
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(tilemm_team_size (threads, (int64_t) cols)) if (total >= PARALLEL_COPY_MIN_BYTES && threads != 1)
#endif
  for (int64_t j = 0; j < (int64_t) cols; j++)
    memcpy (d + (size_t) j * dst_pitch, s + (size_t) j * src_pitch, row_bytes);
}
