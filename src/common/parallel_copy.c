/* parallel_copy.c — host copies spread over a team of threads (see parallel_copy.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "parallel_copy.h"
#include "team_size.h"

/* Below this many bytes a single thread is faster than waking a team; a piece of a copy is about
 * this large (a contiguous block's 1 MiB, or as many whole columns), so that a copy has more
 * pieces than members and a member the system does not schedule holds back one piece only. */
enum { PARALLEL_COPY_MIN_BYTES = 1 << 20, PARALLEL_COPY_PIECE = 1 << 20 };

/* One copy, cut into pieces: PARALLEL_COPY_PIECE bytes of a contiguous block, or `per_piece`
 * columns. */
typedef struct {
  char *dst;
  const char *src;
  size_t dst_pitch, src_pitch, row_bytes, cols, total, per_piece;
  int contiguous;
} copy_job;

static void copy_piece (void *arg, int64_t piece, int member)
{
  (void) member;
  const copy_job *j = (const copy_job *) arg;
  if (j->contiguous)
    {
      const size_t at = (size_t) piece * PARALLEL_COPY_PIECE;
      const size_t len = j->total - at < PARALLEL_COPY_PIECE ? j->total - at : PARALLEL_COPY_PIECE;
      memcpy (j->dst + at, j->src + at, len);
      return;
    }
  const size_t first = (size_t) piece * j->per_piece;
  const size_t last = j->cols - first < j->per_piece ? j->cols : first + j->per_piece;
  for (size_t c = first; c < last; c++)
    memcpy (j->dst + c * j->dst_pitch, j->src + c * j->src_pitch, j->row_bytes);
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
  j.contiguous = dst_pitch == row_bytes && src_pitch == row_bytes;
  j.per_piece = j.contiguous || row_bytes >= PARALLEL_COPY_PIECE ? 1 : PARALLEL_COPY_PIECE / row_bytes;
  const int64_t pieces
    = j.contiguous ? (int64_t) ((j.total + PARALLEL_COPY_PIECE - 1) / PARALLEL_COPY_PIECE)
                   : (int64_t) ((cols + j.per_piece - 1) / j.per_piece);
  if (threads < 1)
    threads = tilemm_host_team_size (team);
  const int members = j.total < PARALLEL_COPY_MIN_BYTES
                        ? 1
                        : tilemm_team_size (threads, pieces,
                                            (double) j.total / TILEMM_TEAM_THREAD_BYTES_PER_S);
  tilemm_host_team_each (team, members, pieces, copy_piece, &j);
}
