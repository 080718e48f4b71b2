/* parallel_copy.c — host copies spread over a team of threads (see parallel_copy.h).
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

/* One copy, cut into pieces: 1 MiB of a contiguous block, or a column. */
typedef struct {
  char *dst;
  const char *src;
  size_t dst_pitch, src_pitch, row_bytes, cols, total;
  int contiguous;
  int64_t pieces;
} copy_job;

/* Member `member` of `members` copies its share: consecutive pieces, as a static schedule. */
static void copy_share (void *arg, int member, int members)
{
  const copy_job *j = (const copy_job *) arg;
  const int64_t first = j->pieces * member / members, last = j->pieces * (member + 1) / members;
  for (int64_t p = first; p < last; p++)
    if (j->contiguous)
      {
        const size_t at = (size_t) p * PARALLEL_COPY_PIECE;
        const size_t len = j->total - at < PARALLEL_COPY_PIECE ? j->total - at : PARALLEL_COPY_PIECE;
        memcpy (j->dst + at, j->src + at, len);
      }
    else
      memcpy (j->dst + (size_t) p * j->dst_pitch, j->src + (size_t) p * j->src_pitch,
              j->row_bytes);
}

void tilemm_parallel_copy_2d (tilemm_host_team *team, int threads, void *dst, size_t dst_pitch,
                              const void *src, size_t src_pitch, size_t row_bytes, size_t cols)
{
  copy_job j;
  j.dst = (char *) dst;
  j.src = (const char *) src;
  j.dst_pitch = dst_pitch;
  j.src_pitch = src_pitch;
  j.row_bytes = row_bytes;
  j.cols = cols;
  j.total = row_bytes * cols;
  if (j.total == 0)
    return;
  /* Contiguous: cut into 1 MiB pieces so every member gets work whatever the shape. */
  j.contiguous = dst_pitch == row_bytes && src_pitch == row_bytes;
  j.pieces = j.contiguous ? (int64_t) ((j.total + PARALLEL_COPY_PIECE - 1) / PARALLEL_COPY_PIECE)
                          : (int64_t) cols;
  if (threads < 1)
    threads = tilemm_host_team_size (team);
  const int members = j.total < PARALLEL_COPY_MIN_BYTES ? 1 : tilemm_team_size (threads, j.pieces);
  tilemm_host_team_run (team, members, copy_share, &j);
}
