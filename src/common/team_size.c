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
