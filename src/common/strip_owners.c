/* strip_owners.c — a product's strips given to its workers by their rates (see strip_owners.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>

#include "strip_owners.h"

int tilemm_strip_owners (tilemm_plan *queue, const tilemm_plan *plan, int workers,
                         const double *rate, int64_t first[TILEMM_MAX_WORKERS + 1])
{
  if (workers < 2 || workers > TILEMM_MAX_WORKERS || plan->m < 1 || plan->n < 1)
    return 0;
  double low = INFINITY, high = 0, total = 0;
  int known = 1;
  for (int w = 0; w < workers; w++)
    {
      const double r = rate ? rate[w] : 0;
      if (!(r > 0))
        known = 0;
      low = r < low ? r : low;
      high = r > high ? r : high;
      total += r > 0 ? r : 0;
    }
  const int weighted = known && high > TILEMM_STRIP_SAME_RATE * low;
  /* Along the longer side, as the queue's strips (plan.c). */
  const int along_n = plan->n >= plan->m;
  const int64_t side = along_n ? plan->n : plan->m;
  const int64_t tile = along_n ? (plan->tile_rows > 0 ? plan->tile_rows : 1)
                               : (plan->tile_cols > 0 ? plan->tile_cols : 1);
  const int64_t tiles = (side + tile - 1) / tile;
  const int64_t want = (int64_t) workers * (weighted ? TILEMM_STRIPS_PER_WORKER_WEIGHTED : 1);
  const int64_t strips_wanted = want < tiles ? want : tiles;
  const int64_t width = (tiles + strips_wanted - 1) / strips_wanted * tile;
  const int64_t strips = (side + width - 1) / width;
  if (strips < workers)
    return 0;
  /* Worker w's run ends where the rates before it and its own earn (one rate: a strip each). */
  first[0] = 0;
  double sum = 0;
  for (int w = 0; w < workers; w++)
    {
      sum += weighted ? rate[w] : 1.0;
      int64_t end = w + 1 == workers ? strips
                                     : (int64_t) llround ((double) strips * sum
                                                          / (weighted ? total : workers));
      const int64_t least = first[w] + 1, most = strips - (workers - 1 - w);
      end = end < least ? least : end > most ? most : end;
      first[w + 1] = end;
    }
  *queue = *plan;
  queue->panel_rows = along_n ? width : plan->n;
  queue->panel_cols = along_n ? plan->m : width;
  return 1;
}
