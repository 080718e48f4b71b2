/* cuda_variants.h — the plan's table of CUDA kernel variants, expanded from the one list.
 * Plain C data only: it is included by plan.c, which knows nothing of CUDA.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The variants themselves, their tiles and what the plan does with each are rows of
 * cuda_variant_list.h; kernels.cu expands the same rows into its launch table and checks them
 * against its template configurations when it compiles.  The plan picks, for a type and shape,
 * a variant from this table; the executor (src/cuda/) launches the variant the plan names and refuses
 * one it does not know.
 */
#ifndef TILEMM_CUDA_VARIANTS_H
#define TILEMM_CUDA_VARIANTS_H

#include "cuda_variant_list.h"
#include "tilemm.h"

typedef struct {
  int id;              /* the number plans and the benchmark use                           */
  const char *name;    /* one line: the idea                                               */
  unsigned types;      /* TILEMM_TYPE_BIT of the one type it computes                      */
  int tile_rows;       /* block tile of Cᵀ (rows)                                          */
  int tile_cols;       /* block tile of Cᵀ (cols)                                          */
  int tile_depth;      /* k step                                                           */
  int pad;             /* shared-memory row padding in elements                            */
  int threads;         /* threads per block                                                */
  int preferred;       /* 1: the plan's choice for its type                                */
  int preferred_small; /* 1: the choice when the preferred tiles cannot fill the GPU       */
  int preferred_split; /* 1: the choice for a small C' with a long k (the launcher splits k) */
  int bench_only;      /* 1: no plan chooses it: the benchmark's history and baselines     */
  int real_product;    /* 1: a complex type runs as the real product on the same bytes    */
  int fallback;        /* 1: a DMMA kind, run as its register-tiled fallback before sm_80  */
} tilemm_cuda_variant;

/* Below this many blocks of the preferred variant the GPU is not filled: the fallback where the
 * plan's limits name no multiprocessors (tilemm_limits.multiprocessors, from the devices'
 * facts; 0 without them): an H100's 132 SMs. */
#define TILEMM_CUDA_SMALL_BLOCKS 132

#define TILEMM_TYPE_BIT(t) (1u << (unsigned) (t))

/* The plan's table: a row per variant and type, expanded from the one list
 * (cuda_variant_list.h), where each variant is described. */
#define TILEMM_CUDA_VARIANT_ROW(id, type, tile, pad, threads, use, kind, cfg, fallback, name)    \
  { id, name, TILEMM_TYPE_BIT (TILEMM_##type), TILEMM_##tile, pad, threads, TILEMM_USE_##use,   \
    TILEMM_KIND_REAL_PRODUCT_##kind, TILEMM_KIND_FALLBACK_##kind },
static const tilemm_cuda_variant tilemm_cuda_variants[] = {
  TILEMM_CUDA_VARIANT_LIST (TILEMM_CUDA_VARIANT_ROW)
};
#undef TILEMM_CUDA_VARIANT_ROW

#define TILEMM_CUDA_NVARIANTS ((int) (sizeof tilemm_cuda_variants / sizeof tilemm_cuda_variants[0]))

#endif /* TILEMM_CUDA_VARIANTS_H */
