/* plan.c — how a product is cut into work: kernel variant, tiles, padding and panels.
 * Pure functions of the shape, the type and the limits, so they are unit-tested anywhere.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>
#include <stdint.h>

#include "cuda_variants.h"
#include "tilemm.h"

const char *tilemm_backend_name (tilemm_backend backend)
{
  switch (backend)
    {
    case TILEMM_BACKEND_CPU:
      return "cpu";
    case TILEMM_BACKEND_CUDA:
      return "gpu";
    default:
      return "unknown";
    }
}

/* CPU tiles: a tile of Bᵀ (tile_rows × tile_depth) and one of Aᵀ (tile_depth × tile_cols) sit
 * in each thread's stack buffers, the CPU's stand-in for shared memory; 64×64×64 doubles keep the
 * pair within 64 KiB, inside a core's L2.  Complex elements are twice as wide, so half the depth. */
static void plan_cpu_tiles (tilemm_plan *plan)
{
  plan->variant = 1;
  plan->tile_rows = 64;
  plan->tile_cols = 64;
  plan->tile_depth = tilemm_type_is_complex (plan->type) ? 32 : 64;
  plan->pad = 0;
}

static int64_t ceil_div (int64_t a, int64_t b)
{
  return b > 0 ? (a + b - 1) / b : 0;
}

/* The preferred CUDA variant for the type: the last preferred entry of the table wins, so a new
 * variant takes over by being appended with preferred = 1.  When its blocks cannot fill the GPU,
 * the variant marked preferred_small (smaller tiles, more blocks) is taken instead, if any. */
static int plan_cuda_tiles (tilemm_plan *plan)
{
  const tilemm_cuda_variant *chosen = NULL, *small = NULL;
  for (int i = 0; i < TILEMM_CUDA_NVARIANTS; i++)
    {
      const tilemm_cuda_variant *v = &tilemm_cuda_variants[i];
      if (!(v->types & TILEMM_TYPE_BIT (plan->type)))
        continue;
      if (v->preferred)
        chosen = v;
      if (v->preferred_small)
        small = v;
    }
  if (!chosen)
    return 0;
  if (small && ceil_div (plan->n, chosen->tile_rows) * ceil_div (plan->m, chosen->tile_cols)
                 < TILEMM_CUDA_SMALL_BLOCKS)
    chosen = small;
  plan->variant = chosen->id;
  plan->tile_rows = chosen->tile_rows;
  plan->tile_cols = chosen->tile_cols;
  plan->tile_depth = chosen->tile_depth;
  plan->pad = chosen->pad;
  return 1;
}

/* Panels: pieces of Cᵀ (panel_rows × panel_cols) whose operands and result fit in the limit:
 * a panel needs panel_rows×k of Bᵀ, k×panel_cols of Aᵀ and panel_rows×panel_cols of Cᵀ.
 * Square panels p×p minimise the bytes re-read: es·(2pk + p²) <= limit. */
static tilemm_status plan_panels (tilemm_plan *plan, const tilemm_limits *limits)
{
  plan->panel_rows = plan->n;
  plan->panel_cols = plan->m;
  if (!limits || limits->max_device_bytes == 0)
    return TILEMM_OK;
  const double es = (double) tilemm_type_size (plan->type);
  const double budget = (double) limits->max_device_bytes / es; /* in elements */
  const double k = (double) plan->k;
  const double whole = (double) plan->m * k + k * (double) plan->n + (double) plan->m * plan->n;
  if (whole <= budget)
    return TILEMM_OK;
  double p = floor (-k + sqrt (k * k + budget));
  if (p < 1)
    return TILEMM_EDEVMEM;
  /* Keep panels whole tiles where possible, so only the product's own edges are ragged. */
  const int64_t quantum = plan->tile_rows > plan->tile_cols ? plan->tile_rows : plan->tile_cols;
  int64_t side = (int64_t) p;
  if (quantum > 0 && side >= quantum)
    side -= side % quantum;
  /* A side longer than the product's own wastes nothing: give the rest to the other side. */
  int64_t rows = side < plan->n ? side : plan->n;
  int64_t cols = side < plan->m ? side : plan->m;
  if (rows == plan->n && cols < plan->m)
    {
      double c = floor ((budget - k * (double) rows) / (k + (double) rows));
      cols = c > (double) plan->m ? plan->m : (int64_t) c;
    }
  else if (cols == plan->m && rows < plan->n)
    {
      double r = floor ((budget - k * (double) cols) / (k + (double) cols));
      rows = r > (double) plan->n ? plan->n : (int64_t) r;
    }
  plan->panel_rows = rows > 0 ? rows : 1;
  plan->panel_cols = cols > 0 ? cols : 1;
  return TILEMM_OK;
}

tilemm_status tilemm_plan_make (tilemm_plan *plan, tilemm_backend backend, tilemm_type type,
                                int64_t m, int64_t n, int64_t k, const tilemm_limits *limits)
{
  if (!plan || (int) type < 0 || type >= TILEMM_NTYPES || m < 0 || n < 0 || k < 0)
    return TILEMM_EINVAL;
  tilemm_plan p = { 0 };
  p.backend = backend;
  p.type = type;
  p.m = m;
  p.n = n;
  p.k = k;
  switch (backend)
    {
    case TILEMM_BACKEND_CPU:
      plan_cpu_tiles (&p);
      break;
    case TILEMM_BACKEND_CUDA:
      if (!plan_cuda_tiles (&p))
        return TILEMM_EBACKEND;
      break;
    default:
      return TILEMM_EINVAL;
    }
  tilemm_status status = plan_panels (&p, limits);
  if (status != TILEMM_OK)
    return status;
  *plan = p;
  return TILEMM_OK;
}

int64_t tilemm_plan_panel_count (const tilemm_plan *plan)
{
  if (plan->m == 0 || plan->n == 0)
    return 0;
  return ceil_div (plan->n, plan->panel_rows) * ceil_div (plan->m, plan->panel_cols);
}

int tilemm_plan_panel (const tilemm_plan *plan, int64_t index, tilemm_panel *panel)
{
  const int64_t across = ceil_div (plan->m, plan->panel_cols);
  if (index < 0 || index >= tilemm_plan_panel_count (plan))
    return 0;
  const int64_t pr = index / across, pc = index % across;
  panel->row = pr * plan->panel_rows;
  panel->col = pc * plan->panel_cols;
  panel->rows = plan->n - panel->row < plan->panel_rows ? plan->n - panel->row : plan->panel_rows;
  panel->cols = plan->m - panel->col < plan->panel_cols ? plan->m - panel->col : plan->panel_cols;
  return 1;
}
