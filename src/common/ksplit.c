/* ksplit.c — the split of k of the split-k kernel and the launch its caller decides (ksplit.h).
 * Pure host arithmetic on the variant table.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "ksplit.h"

#include "cuda_variants.h"

/* The grid's y limit: a taller product is not split (the launcher slices it instead). */
#define KSPLIT_MAX_GRID_Y 65535
/* The most bytes of partial sums one launch may ask for. */
#define KSPLIT_SCRATCH_MAX ((size_t) 32 << 20)

/* The split-k kernels run a complex type as the real product on the same bytes: two reals per
 * element, each of the real type's size. */
static int reals_per_element (tilemm_type type)
{
  return tilemm_type_is_complex (type) ? 2 : 1;
}

static size_t real_size (tilemm_type type)
{
  return tilemm_type_size (type) / (size_t) reals_per_element (type);
}

/* One plane of partial sums, in reals: C's rows, padded to whole 16-byte chunks of 4 reals. */
static int64_t plane_reals (tilemm_type type, int64_t height, int64_t width)
{
  return height * (tilemm_ceil_div (width * reals_per_element (type), 4) * 4);
}

int tilemm_plan_ksplit (tilemm_type type, int tile_rows, int tile_cols, int tile_depth,
                        int64_t height, int64_t width, int64_t k, int64_t *kchunk)
{
  const int parts = reals_per_element (type);
  const int64_t bm = tile_rows, bn = (int64_t) tile_cols * parts, bk = (int64_t) tile_depth * parts;
  const int64_t wr = width * parts, kr = k * parts;
  const int64_t tiles = tilemm_ceil_div (height, bm) * tilemm_ceil_div (wr, bn);
  const int64_t ktiles = tilemm_ceil_div (kr, bk);
  int64_t s = tiles > 0 ? tilemm_ceil_div (256, tiles) : 1;
  if (s > ktiles / 4)
    s = ktiles / 4;
  if (s > 128)
    s = 128;
  const double plane = (double) plane_reals (type, height, width);
  while (s > 1 && (double) s * plane * (double) real_size (type) > (double) KSPLIT_SCRATCH_MAX)
    s--;
  if (s <= 1 || height > KSPLIT_MAX_GRID_Y * bm)
    {
      *kchunk = kr;
      return 1;
    }
  *kchunk = tilemm_ceil_div (ktiles, s) * bk;
  return (int) tilemm_ceil_div (kr, *kchunk);
}

size_t tilemm_cuda_launch_scratch_bytes (tilemm_type type, int64_t height, int64_t width,
                                         int splits)
{
  if (splits <= 1 || height <= 0 || width <= 0)
    return 0;
  return (size_t) splits * (size_t) plane_reals (type, height, width) * real_size (type);
}

void tilemm_kernel_launch_plan (int variant, tilemm_type type, int64_t height, int64_t width,
                                int64_t k, int cc_major, tilemm_kernel_launch *launch)
{
  launch->dmma_fallback = cc_major < 8;
  launch->splits = 1;
  launch->kchunk = k * reals_per_element (type);
  launch->scratch = NULL;
  launch->scratch_bytes = 0;
  for (int i = 0; i < TILEMM_CUDA_NVARIANTS; i++)
    {
      const tilemm_cuda_variant *v = &tilemm_cuda_variants[i];
      /* The USE SPLIT rows are the split-k kind's (kernels.cu checks it when it compiles). */
      if (v->id != variant || !(v->types & TILEMM_TYPE_BIT (type)) || !v->preferred_split)
        continue;
      launch->splits = tilemm_plan_ksplit (type, v->tile_rows, v->tile_cols, v->tile_depth,
                                           height, width, k, &launch->kchunk);
      launch->scratch_bytes = tilemm_cuda_launch_scratch_bytes (type, height, width,
                                                                launch->splits);
      return;
    }
}

/* Whether the variant's DMMA kernel has a register-tiled fallback (its KIND: DMMA, SPLIT_DMMA). */
static int variant_falls_back (int variant, tilemm_type type)
{
  for (int i = 0; i < TILEMM_CUDA_NVARIANTS; i++)
    if (tilemm_cuda_variants[i].id == variant
        && (tilemm_cuda_variants[i].types & TILEMM_TYPE_BIT (type)))
      return tilemm_cuda_variants[i].fallback;
  return 0;
}

/* Adds v to the first *count entries of side (kept distinct); 0 when there is no room. */
static int add_side (int64_t *side, int *count, int64_t v)
{
  if (v < 1)
    return 1;
  for (int i = 0; i < *count; i++)
    if (side[i] == v)
      return 1;
  if (*count >= TILEMM_PLAN_LAUNCH_SIDES)
    return 0;
  side[(*count)++] = v;
  return 1;
}

/* The sizes of a side of `total` in panels of `panel` and steps of `step` (the pipeline's cut,
 * cuda/pipeline.cu), and the whole side (a panel launched whole, cuda/transposed_product.cu). */
static void launch_side (int64_t total, int64_t panel, int64_t step, int64_t *side, int *count)
{
  *count = 0;
  if (total < 1)
    return;
  const int64_t full = panel >= 1 && panel < total ? panel : total;
  const int64_t last = total - (tilemm_ceil_div (total, full) - 1) * full;
  const int64_t s = step >= 1 && step < full ? step : full;
  const int64_t panels[2] = { full, last };
  for (int i = 0; i < 2; i++)
    {
      add_side (side, count, panels[i] < s ? panels[i] : s);
      add_side (side, count, panels[i] > s ? panels[i] % s : 0);
    }
  add_side (side, count, total);
}

void tilemm_plan_launches (tilemm_plan *plan)
{
  launch_side (plan->n, plan->panel_rows, plan->step_rows, plan->launch_rows,
               &plan->launch_heights);
  launch_side (plan->m, plan->panel_cols, plan->step_cols, plan->launch_cols,
               &plan->launch_widths);
  const int fallback = plan->kernel_fallback && variant_falls_back (plan->variant, plan->type);
  for (int i = 0; i < TILEMM_PLAN_LAUNCH_SIDES; i++)
    for (int j = 0; j < TILEMM_PLAN_LAUNCH_SIDES; j++)
      {
        tilemm_kernel_launch lp;
        tilemm_kernel_launch_plan (plan->variant, plan->type,
                                   i < plan->launch_heights ? plan->launch_rows[i] : 0,
                                   j < plan->launch_widths ? plan->launch_cols[j] : 0, plan->k,
                                   8, &lp);
        if (fallback || i >= plan->launch_heights || j >= plan->launch_widths)
          {
            lp.splits = 1;
            lp.kchunk = plan->k * reals_per_element (plan->type);
          }
        plan->ksplit[i][j] = lp.splits;
        plan->kchunk[i][j] = lp.kchunk;
      }
}

int tilemm_plan_launch_of (const tilemm_plan *plan, int64_t height, int64_t width, int64_t k,
                           tilemm_kernel_launch *launch)
{
  if (k != plan->k)
    return 0;
  for (int i = 0; i < plan->launch_heights && i < TILEMM_PLAN_LAUNCH_SIDES; i++)
    for (int j = 0; j < plan->launch_widths && j < TILEMM_PLAN_LAUNCH_SIDES; j++)
      if (plan->launch_rows[i] == height && plan->launch_cols[j] == width)
        {
          launch->dmma_fallback = plan->kernel_fallback;
          launch->splits = plan->ksplit[i][j];
          launch->kchunk = plan->kchunk[i][j];
          launch->scratch = NULL;
          launch->scratch_bytes = tilemm_cuda_launch_scratch_bytes (plan->type, height, width,
                                                                    launch->splits);
          return 1;
        }
  return 0;
}
