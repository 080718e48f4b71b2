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

static int64_t ceil_div (int64_t a, int64_t b)
{
  return (a + b - 1) / b;
}

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
  return height * (ceil_div (width * reals_per_element (type), 4) * 4);
}

int tilemm_plan_ksplit (tilemm_type type, int tile_rows, int tile_cols, int tile_depth,
                        int64_t height, int64_t width, int64_t k, int64_t *kchunk)
{
  const int parts = reals_per_element (type);
  const int64_t bm = tile_rows, bn = (int64_t) tile_cols * parts, bk = (int64_t) tile_depth * parts;
  const int64_t wr = width * parts, kr = k * parts;
  const int64_t tiles = ceil_div (height, bm) * ceil_div (wr, bn);
  const int64_t ktiles = ceil_div (kr, bk);
  int64_t s = tiles > 0 ? ceil_div (256, tiles) : 1;
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
  *kchunk = ceil_div (ktiles, s) * bk;
  return (int) ceil_div (kr, *kchunk);
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
