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
  int preferred_small; /* 1: the choice when the preferred tiles cannot fill the GPU      */
} tilemm_cuda_variant;

/* Below this many blocks of the preferred variant the GPU is not filled (the H100 has 132 SMs;
 * smaller parts are filled sooner, so they lose nothing by the smaller tiles either). */
#define TILEMM_CUDA_SMALL_BLOCKS 132

#define TILEMM_TYPE_BIT(t) (1u << (unsigned) (t))
#define TILEMM_ALL_TYPES                                                                     \
  (TILEMM_TYPE_BIT (TILEMM_SINGLE) | TILEMM_TYPE_BIT (TILEMM_DOUBLE)                          \
   | TILEMM_TYPE_BIT (TILEMM_COMPLEX_SINGLE) | TILEMM_TYPE_BIT (TILEMM_COMPLEX_DOUBLE))

#define TILEMM_TYPE_ONLY(t) TILEMM_TYPE_BIT (TILEMM_##t)

/* One row per variant and type family (a variant's tiles differ by element size).  The numbers
 * are those src/kernels.cu compiles (tests/test_cuda checks every row); bench/NOTES.md has each
 * variant's registers, shared memory and measured speed.
 *
 * 1  the CUDA guide's shared-memory kernel (BLOCK_SIZE 16) on strided views with ragged edges:
 *    the baseline every later variant is measured against.
 * 2  register tiles: each thread computes a TM×TN tile of C' (8×8 real, 4×4 complex); X's tile
 *    stored k-major in shared memory, rows padded where banks would conflict; 16-byte loads.
 * 3  variant 2 double-buffered: the next k-tile is loaded into registers while this one is used.
 * 4  variant 3 with k-tiles of 16: half the barriers per multiply-add.
 * 5  variant 3 with 64×64 blocks and 4×4 threads: more blocks per SM and for small products.
 *
 * Preferred (H100, bench/RESULTS.md): 3 for single, double and complex double, 4 for complex
 * single.  Variant 5 is faster than 3 for small products (n = 1000: single 22.8 against 15.5
 * TF/s, double 11.7 against 8.6) because 128×128 tiles leave most of the 132 SMs idle there: the
 * plan takes it (preferred_small) when the preferred tiles number fewer than
 * TILEMM_CUDA_SMALL_BLOCKS blocks. */
static const tilemm_cuda_variant tilemm_cuda_variants[] = {
  { 1, "guide: 16x16 shared-memory tiles, one output per thread", TILEMM_ALL_TYPES,
    16, 16, 16, 0, 256, 0, 0 },
  { 2, "register tile 8x8, k-major padded shared X", TILEMM_TYPE_ONLY (SINGLE),
    128, 128, 8, 4, 256, 0, 0 },
  { 2, "register tile 8x8, k-major shared X", TILEMM_TYPE_ONLY (DOUBLE),
    128, 128, 8, 0, 256, 0, 0 },
  { 2, "register tile 4x4 complex, k-major shared X", TILEMM_TYPE_ONLY (COMPLEX_SINGLE)
    | TILEMM_TYPE_ONLY (COMPLEX_DOUBLE), 64, 64, 8, 0, 256, 0, 0 },
  { 3, "register tile 8x8, double-buffered", TILEMM_TYPE_ONLY (SINGLE),
    128, 128, 8, 4, 256, 1, 0 },
  { 3, "register tile 8x8, double-buffered", TILEMM_TYPE_ONLY (DOUBLE),
    128, 128, 8, 0, 256, 1, 0 },
  { 3, "register tile 4x4 complex, double-buffered", TILEMM_TYPE_ONLY (COMPLEX_SINGLE),
    64, 64, 8, 0, 256, 0, 0 },
  { 3, "register tile 4x4 complex, double-buffered", TILEMM_TYPE_ONLY (COMPLEX_DOUBLE),
    64, 64, 8, 0, 256, 1, 0 },
  { 4, "register tile 8x8, double-buffered, k-tiles of 16", TILEMM_TYPE_ONLY (SINGLE),
    128, 128, 16, 4, 256, 0, 0 },
  { 4, "register tile 4x4 complex, double-buffered, k-tiles of 16",
    TILEMM_TYPE_ONLY (COMPLEX_SINGLE), 64, 64, 16, 0, 256, 1, 0 },
  { 5, "register tile 4x4, 64x64 blocks, double-buffered", TILEMM_TYPE_ONLY (SINGLE),
    64, 64, 16, 4, 256, 0, 1 },
  { 5, "register tile 4x4, 64x64 blocks, double-buffered", TILEMM_TYPE_ONLY (DOUBLE),
    64, 64, 8, 0, 256, 0, 1 },
};

#define TILEMM_CUDA_NVARIANTS ((int) (sizeof tilemm_cuda_variants / sizeof tilemm_cuda_variants[0]))

#endif /* TILEMM_CUDA_VARIANTS_H */
