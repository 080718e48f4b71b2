/* team_size.c — how many host threads a piece of work pays for (see team_size.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <limits.h>

#include "host_cpus.h"
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

int tilemm_team_size_here (int64_t pieces, double one_thread_s)
{
  /* Most such work is too small for a second thread: no system call for it. */
  if (tilemm_team_size (INT_MAX, pieces, one_thread_s) <= 1)
    return 1;
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  return tilemm_team_size (host.threads, pieces, one_thread_s);
}
