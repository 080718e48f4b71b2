/* exchange_plan.c — the shared operand's transfer path, decided once (see exchange_plan.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "exchange_plan.h"

/* The index of device ordinal `device` in the facts (-1: not there). */
static int fact_index (const tilemm_device_facts *gpu, int device)
{
  for (int i = 0; i < gpu->count && i < TILEMM_MAX_WORKERS; i++)
    if (gpu->device[i] == device)
      return i;
  return -1;
}

/* Whether device `to` can read device `from`'s memory: a device itself always; another where
 * the facts say so (unknown: no). */
static int reaches (const tilemm_device_facts *gpu, int to, int from)
{
  if (to == from)
    return 1;
  const int i = fact_index (gpu, to), j = fact_index (gpu, from);
  return gpu->peers_known && i >= 0 && j >= 0 && gpu->peer[i][j];
}

void tilemm_exchange_plan_make (tilemm_exchange_plan *x, tilemm_keep keeps, int64_t step,
                                int64_t extent, const tilemm_workers *workers,
                                const tilemm_device_facts *gpu)
{
  memset (x, 0, sizeof *x);
  x->path = TILEMM_EXCHANGE_NONE;
  x->apart_from = x->apart_to = -1;
  const int n = workers->count;
  if (keeps == TILEMM_KEEP_NONE || n < 2 || n > TILEMM_MAX_WORKERS || step < 1 || extent < 1)
    return;
  x->which = keeps;
  x->step = step;
  x->extent = extent;
  /* Every worker reads every other's share: each ordered pair must reach. */
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++)
      if (!reaches (gpu, workers->device[a], workers->device[b]))
        {
          x->path = TILEMM_EXCHANGE_HOST;
          x->apart_from = workers->device[b];
          x->apart_to = workers->device[a];
          return;
        }
  x->path = TILEMM_EXCHANGE_PEER;
  x->shares = n;
  /* As even as they go: each host thread team reads 1/N of the operand, each bus carries it. */
  for (int w = 0; w <= n; w++)
    x->first[w] = extent * w / n;
}

void tilemm_exchange_shares_of (const tilemm_exchange_plan *x, int64_t begin, int64_t end,
                                int *first, int *last)
{
  *first = 0;
  *last = -1;
  if (!x || x->path != TILEMM_EXCHANGE_PEER || begin >= end)
    return;
  int f = -1, l = -1;
  for (int w = 0; w < x->shares; w++)
    if (x->first[w] < end && x->first[w + 1] > begin)
      {
        if (f < 0)
          f = w;
        l = w;
      }
  if (f >= 0)
    {
      *first = f;
      *last = l;
    }
}
