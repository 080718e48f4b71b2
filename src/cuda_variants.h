/* cuda_variants.h — the table of CUDA kernel variants, shared by the plan (plain C) and the CUDA
 * backend.  Plain C data only: it is included by plan.c, which knows nothing of CUDA.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Each variant is one kernel idea with a number, kept runnable so the benchmark can replay the
 * progression.  The plan picks, for a type and shape, the preferred variant; backend_cuda.cu
 * launches the variant the plan names and refuses one it does not know.
 */
#ifndef TILEMM_CUDA_VARIANTS_H
#define TILEMM_CUDA_VARIANTS_H

#include "tilemm.h"

typedef struct {
  int id;              /* the number plans and the benchmark use                      */
  const char *name;    /* one line: the idea                                          */
  unsigned types;      /* bit (1u << tilemm_type) for each type it computes           */
  int tile_rows;       /* block tile of Cᵀ (rows)                                     */
  int tile_cols;       /* block tile of Cᵀ (cols)                                     */
  int tile_depth;      /* k step                                                      */
  int pad;             /* shared-memory row padding in elements                       */
  int threads;         /* threads per block                                           */
  int preferred;       /* 1: the plan's choice for these types                        */
} tilemm_cuda_variant;

#define TILEMM_TYPE_BIT(t) (1u << (unsigned) (t))
#define TILEMM_ALL_TYPES                                                                     \
  (TILEMM_TYPE_BIT (TILEMM_SINGLE) | TILEMM_TYPE_BIT (TILEMM_DOUBLE)                          \
   | TILEMM_TYPE_BIT (TILEMM_COMPLEX_SINGLE) | TILEMM_TYPE_BIT (TILEMM_COMPLEX_DOUBLE))

/* Variant 1 is the CUDA guide's shared-memory kernel (BLOCK_SIZE 16) on strided views with ragged
 * edges: the baseline every later variant is measured against. */
static const tilemm_cuda_variant tilemm_cuda_variants[] = {
  { 1, "guide: 16x16 shared-memory tiles, one output per thread", TILEMM_ALL_TYPES,
    16, 16, 16, 0, 256, 1 },
};

#define TILEMM_CUDA_NVARIANTS ((int) (sizeof tilemm_cuda_variants / sizeof tilemm_cuda_variants[0]))

#endif /* TILEMM_CUDA_VARIANTS_H */
