/* parallel_copy.c — host copies spread over threads (see parallel_copy.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The copy is cut into pieces of about a mebibyte (whole columns where it has a pitch) and the
 * pieces go to the copy pool (copy_pool.h), where no thread slow to wake holds the copy up; where
 * the pool is taken (another thread's copy at the same time) they go to an OpenMP loop instead.
 */
#include <string.h>

#include "copy_pool.h"
#include "parallel_copy.h"

#ifdef _OPENMP
#include <omp.h>
#elif defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

/* Below this many bytes a single thread is faster than waking others; a piece is about this
 * much (a whole number of columns, at least one). */
enum { PARALLEL_COPY_MIN_BYTES = 1 << 20, PARALLEL_COPY_PIECE = 1 << 20 };

typedef struct {
  char *dst;
  const char *src;
  size_t dst_pitch, src_pitch, row_bytes, cols;
  size_t cols_per_piece;  /* 0: contiguous, pieces of PARALLEL_COPY_PIECE bytes */
  size_t total;
} copy_job;

static void copy_piece (void *arg, int64_t i)
{
  const copy_job *j = (const copy_job *) arg;
  if (j->cols_per_piece == 0)
    {
      const size_t at = (size_t) i * PARALLEL_COPY_PIECE;
      const size_t len = j->total - at < PARALLEL_COPY_PIECE ? j->total - at : PARALLEL_COPY_PIECE;
      memcpy (j->dst + at, j->src + at, len);
      return;
    }
  const size_t first = (size_t) i * j->cols_per_piece;
  const size_t last = first + j->cols_per_piece < j->cols ? first + j->cols_per_piece : j->cols;
  for (size_t c = first; c < last; c++)
    memcpy (j->dst + c * j->dst_pitch, j->src + c * j->src_pitch, j->row_bytes);
}

static int default_threads (void)
{
#ifdef _OPENMP
  return omp_get_max_threads ();
#elif defined(_SC_NPROCESSORS_ONLN)
  const long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int) n : 1;
#else
  return 1;
#endif
}

void tilemm_parallel_copy_2d (void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                              size_t row_bytes, size_t cols, int threads)
{
  const size_t total = row_bytes * cols;
  if (total == 0)
    return;
  copy_job job = { (char *) dst, (const char *) src, dst_pitch, src_pitch, row_bytes, cols, 0,
                   total };
  int64_t pieces;
  if (dst_pitch == row_bytes && src_pitch == row_bytes)
    pieces = (int64_t) ((total + PARALLEL_COPY_PIECE - 1) / PARALLEL_COPY_PIECE);
  else
    {
      job.cols_per_piece = row_bytes >= PARALLEL_COPY_PIECE ? 1 : PARALLEL_COPY_PIECE / row_bytes;
      if ((cols + job.cols_per_piece - 1) / job.cols_per_piece > TILEMM_COPY_POOL_MAX_PIECES)
        job.cols_per_piece = (cols + TILEMM_COPY_POOL_MAX_PIECES - 1) / TILEMM_COPY_POOL_MAX_PIECES;
      pieces = (int64_t) ((cols + job.cols_per_piece - 1) / job.cols_per_piece);
    }
  if (threads <= 0)
    threads = default_threads ();
  if (total < PARALLEL_COPY_MIN_BYTES || threads == 1 || pieces == 1)
    {
      for (int64_t i = 0; i < pieces; i++)
        copy_piece (&job, i);
      return;
    }
  if (tilemm_copy_pool_run (threads, pieces, copy_piece, &job))
    return;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads)
#endif
  for (int64_t i = 0; i < pieces; i++)
    copy_piece (&job, i);
}
