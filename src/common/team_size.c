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

int64_t tilemm_pack_cols_per_piece (size_t element_bytes, int64_t rows, int64_t cols)
{
  const double col_bytes = (double) rows * (double) element_bytes;
  if (cols <= 0 || col_bytes >= (double) TILEMM_PARTS_PIECE_BYTES || col_bytes <= 0.0)
    return 1;
  return (int64_t) ((double) TILEMM_PARTS_PIECE_BYTES / col_bytes);
}

int tilemm_pack_team (int threads, size_t element_bytes, int64_t rows, int64_t cols)
{
  const int64_t per = tilemm_pack_cols_per_piece (element_bytes, rows, cols);
  const int64_t pieces = cols > 0 ? (cols + per - 1) / per : 0;
  /* read and written */
  const double bytes = 2.0 * (double) rows * (double) (cols > 0 ? cols : 0) * (double) element_bytes;
  return tilemm_team_size (threads, pieces, bytes / TILEMM_TEAM_THREAD_BYTES_PER_S);
}

/* A complex element: its two parts. */
static size_t complex_bytes (int single)
{
  return 2 * (single ? sizeof (float) : sizeof (double));
}

int64_t tilemm_parts_cols_per_piece (int single, int64_t rows, int64_t cols)
{
  return tilemm_pack_cols_per_piece (complex_bytes (single), rows, cols);
}

int tilemm_parts_team (int threads, int single, int64_t rows, int64_t cols)
{
  return tilemm_pack_team (threads, complex_bytes (single), rows, cols);
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
