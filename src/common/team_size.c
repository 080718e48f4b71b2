/* team_size.c — how many host threads a piece of work pays for (see team_size.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <limits.h>

#include "copy_team.h"
#include "team_size.h"

int tilemm_team_size (int threads, int64_t pieces, double one_thread_s)
{
  int team = threads > 1 ? threads : 1;
  if (pieces < (int64_t) team)
    team = pieces > 1 ? (int) pieces : 1;
  /* (NaN compares false: no bound, as INFINITY.) */
  if (one_thread_s < (double) team * TILEMM_TEAM_MIN_SHARE_S)
    {
      const double paid = one_thread_s / TILEMM_TEAM_MIN_SHARE_S;
      team = paid > 1.0 ? (int) paid : 1;
    }
  return team;
}

int tilemm_team_threads_left (int threads)
{
  const int host = threads > 1 ? threads : 1;
  const int left = host - tilemm_copy_reserved_cpus (host);
  return left > 1 ? left : 1;
}

double tilemm_parts_bytes (int single, int64_t rows, int64_t cols)
{
  return 2.0 * (double) rows * (double) cols * (single ? sizeof (float) : sizeof (double));
}

int64_t tilemm_parts_cols_per_piece (int single, int64_t rows, int64_t cols)
{
  const double col_bytes = cols > 0 ? tilemm_parts_bytes (single, rows, cols) / (double) cols : 0.0;
  if (col_bytes >= (double) TILEMM_PARTS_PIECE_BYTES || col_bytes <= 0.0)
    return 1;
  return (int64_t) ((double) TILEMM_PARTS_PIECE_BYTES / col_bytes);
}

int tilemm_parts_team (int threads, int single, int64_t rows, int64_t cols)
{
  const int64_t per = tilemm_parts_cols_per_piece (single, rows, cols);
  const int64_t pieces = (cols + per - 1) / per;
  /* read and written */
  const double one_thread_s = 2.0 * tilemm_parts_bytes (single, rows, cols) / TILEMM_TEAM_THREAD_BYTES_PER_S;
  return tilemm_team_size (threads, pieces, one_thread_s);
}

int tilemm_update_team (int threads, size_t element_bytes, int64_t m, int64_t n)
{
  if (n <= 0)
    return 1;
  const int64_t pieces = (n + TILEMM_UPDATE_COLUMNS - 1) / TILEMM_UPDATE_COLUMNS;
  /* P read, C read and written. */
  const double bytes = 3.0 * (double) m * (double) n * (double) element_bytes;
  return tilemm_team_size (threads, pieces, bytes / TILEMM_TEAM_THREAD_BYTES_PER_S);
}
