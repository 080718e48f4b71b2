/* parallel_copy.c — host copies spread over threads (see parallel_copy.h): on the copy team
 * (copy_team.c), which stays awake through a product; on OpenMP's threads where the team is
 * busy with another caller.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "copy_team.h"
#include "parallel_copy.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this many bytes a single thread is faster than waking a team; a piece of work is about
 * this many bytes, so that every thread gets some whatever the shape. */
enum { PARALLEL_COPY_MIN_BYTES = 1 << 20, PARALLEL_COPY_PIECE = 1 << 20 };

typedef struct {
  char *d;
  const char *s;
  size_t dst_pitch, src_pitch, row_bytes, cols, total;
  size_t cols_per_piece;   /* 0: contiguous, pieces of PARALLEL_COPY_PIECE bytes */
} copy_job;

static void copy_piece (void *context, int64_t p)
{
  const copy_job *j = (const copy_job *) context;
  if (j->cols_per_piece == 0)
    {
      const size_t at = (size_t) p * PARALLEL_COPY_PIECE;
      const size_t len = j->total - at < PARALLEL_COPY_PIECE ? j->total - at : PARALLEL_COPY_PIECE;
      memcpy (j->d + at, j->s + at, len);
      return;
    }
  const size_t first = (size_t) p * j->cols_per_piece;
  const size_t last = first + j->cols_per_piece < j->cols ? first + j->cols_per_piece : j->cols;
  for (size_t c = first; c < last; c++)
    memcpy (j->d + c * j->dst_pitch, j->s + c * j->src_pitch, j->row_bytes);
}

void tilemm_parallel_copy_2d (void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                              size_t row_bytes, size_t cols, int threads)
{
  copy_job job = { (char *) dst, (const char *) src, dst_pitch, src_pitch, row_bytes, cols,
                   row_bytes * cols, 0 };
  if (job.total == 0)
    return;
  const int contiguous = dst_pitch == row_bytes && src_pitch == row_bytes;
  if (!contiguous)
    {
      job.cols_per_piece = PARALLEL_COPY_PIECE / (row_bytes > 0 ? row_bytes : 1);
      if (job.cols_per_piece == 0)
        job.cols_per_piece = 1;
    }
  const int64_t pieces
    = contiguous ? (int64_t) ((job.total + PARALLEL_COPY_PIECE - 1) / PARALLEL_COPY_PIECE)
                 : (int64_t) ((cols + job.cols_per_piece - 1) / job.cols_per_piece);
  if (job.total < PARALLEL_COPY_MIN_BYTES || threads == 1 || pieces < 2)
    {
      for (int64_t p = 0; p < pieces; p++)
        copy_piece (&job, p);
      return;
    }
  if (tilemm_copy_team_run (threads, pieces, copy_piece, &job))
    return;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads > 0 ? threads : omp_get_max_threads ())
#endif
  for (int64_t p = 0; p < pieces; p++)
    copy_piece (&job, p);
}
