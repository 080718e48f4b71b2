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
  int preferred_split; /* 1: the choice for a small C' with a long k (the launcher splits k) */
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
 * 6  single and complex single: variant 3's register tiles fed by a 3-stage cp.async pipeline
 *    (X transposed on the way by 4-byte copies), k-tiles of 16, two blocks per SM on sm_90.
 *    Complex single is the real product on the same bytes (src/kernels_simt.cuh): 128×128 reals.
 * 7  variant 6 with 64×64 real tiles, 8×4 per thread, 128 threads: for small products.
 * 8  double and complex double on the FP64 tensor cores (mma.sync m8n8k4, DMMA): 128×128×16 real
 *    tiles, 8 warps of 64×32, 3-stage cp.async, padded conflict-free shared tiles.  Complex is
 *    the real product on the same bytes.  Before sm_80 the launcher runs variant 3 instead.
 * 9  variant 8 with the m16n8k8 DMMA of sm_90 (m8n8k4 pairs before it).
 * 10 variant 9 with 64×64 tiles, 4 warps of 32×32: for small products (variant 5 before sm_80).
 * 11 split k: variant 7 (single types) or 10 (double types) with k cut into up to 128 pieces
 *    (a function of the shape alone), partial products in a workspace, added in a fixed order.
 * 12 variant 6 (single) with one block per SM and k+1's fragments double-buffered in registers.
 * 13 variant 12 with 8×16 per-thread tiles and 128×256 real blocks: 6 shared loads of 16 bytes
 *    per 128 FFMAs (variant 6: 4 per 64), aimed at the issue-bound FFMA loop.  Complex single is
 *    the real product on the same bytes (128×128 complex).
 *
 * The plan takes the last preferred variant whose tiles number at least TILEMM_CUDA_SMALL_BLOCKS
 * (single and complex single: 13 where packed rows are whole 16-byte chunks, else 6); preferred_small where none does; preferred_split where
 * even the small tiles fill at most a quarter of that and k is long (plan.c).
 * Single and complex single prefer 13 where it fills the GPU: on the H100 (2026-11-23, one run)
 * 43.6 against variant 6's 39.2 TF/s at 4096, 44.1 against 39.7 at 8192, complex 46.6 against
 * 42.8 at 4096; at 1000 its 32 blocks give 8.4 TF/s, so smaller products keep 6 or 7.  Measured choices: bench/RESULTS.md, bench/NOTES.md.
 * For real double, variant 10 beat 9 at every size measured on the H100 (4096: 48.4 against 43.7
 * TF/s; 8192×8192×64: 31.7 against 25.3), so it is preferred at every size; complex double keeps 9.
 *
 * Variants 6 and up run complex types as the real product on the same bytes: their tile_cols
 * count reals, two per complex column (tilemm_cuda_tile_cols_are_reals). */
static inline int tilemm_cuda_tile_cols_are_reals (int variant_id)
{
  return variant_id >= 6;
}
static const tilemm_cuda_variant tilemm_cuda_variants[] = {
  { 1, "guide: 16x16 shared-memory tiles, one output per thread", TILEMM_ALL_TYPES,
    16, 16, 16, 0, 256, 0, 0, 0 },
  { 2, "register tile 8x8, k-major padded shared X", TILEMM_TYPE_ONLY (SINGLE),
    128, 128, 8, 4, 256, 0, 0, 0 },
  { 2, "register tile 8x8, k-major shared X", TILEMM_TYPE_ONLY (DOUBLE),
    128, 128, 8, 0, 256, 0, 0, 0 },
  { 2, "register tile 4x4 complex, k-major shared X", TILEMM_TYPE_ONLY (COMPLEX_SINGLE)
    | TILEMM_TYPE_ONLY (COMPLEX_DOUBLE), 64, 64, 8, 0, 256, 0, 0, 0 },
  { 3, "register tile 8x8, double-buffered", TILEMM_TYPE_ONLY (SINGLE),
    128, 128, 8, 4, 256, 0, 0, 0 },
  { 3, "register tile 8x8, double-buffered", TILEMM_TYPE_ONLY (DOUBLE),
    128, 128, 8, 0, 256, 0, 0, 0 },
  { 3, "register tile 4x4 complex, double-buffered", TILEMM_TYPE_ONLY (COMPLEX_SINGLE),
    64, 64, 8, 0, 256, 0, 0, 0 },
  { 3, "register tile 4x4 complex, double-buffered", TILEMM_TYPE_ONLY (COMPLEX_DOUBLE),
    64, 64, 8, 0, 256, 0, 0, 0 },
  { 4, "register tile 8x8, double-buffered, k-tiles of 16", TILEMM_TYPE_ONLY (SINGLE),
    128, 128, 16, 4, 256, 0, 0, 0 },
  { 4, "register tile 4x4 complex, double-buffered, k-tiles of 16",
    TILEMM_TYPE_ONLY (COMPLEX_SINGLE), 64, 64, 16, 0, 256, 0, 0, 0 },
  { 5, "register tile 4x4, 64x64 blocks, double-buffered", TILEMM_TYPE_ONLY (SINGLE),
    64, 64, 16, 4, 256, 0, 0, 0 },
  { 5, "register tile 4x4, 64x64 blocks, double-buffered", TILEMM_TYPE_ONLY (DOUBLE),
    64, 64, 8, 0, 256, 0, 0, 0 },
  { 6, "register tile 8x8, 3-stage cp.async pipeline, k-tiles of 16", TILEMM_TYPE_ONLY (SINGLE),
    128, 128, 16, 4, 256, 1, 0, 0 },
  { 6, "register tile 8x8 of reals, 3-stage cp.async pipeline", TILEMM_TYPE_ONLY (COMPLEX_SINGLE),
    128, 64, 8, 4, 256, 1, 0, 0 },
  { 7, "register tile 8x4, 64x64 blocks, 3-stage cp.async", TILEMM_TYPE_ONLY (SINGLE),
    64, 64, 16, 4, 128, 0, 1, 0 },
  { 7, "register tile 8x4 of reals, 64x64 real blocks, 3-stage cp.async",
    TILEMM_TYPE_ONLY (COMPLEX_SINGLE), 64, 32, 8, 4, 128, 0, 1, 0 },
  { 8, "FP64 tensor cores m8n8k4, warp tiles 64x32, 3-stage cp.async", TILEMM_TYPE_ONLY (DOUBLE),
    128, 128, 16, 4, 256, 0, 0, 0 },
  { 8, "FP64 tensor cores m8n8k4 on the real product", TILEMM_TYPE_ONLY (COMPLEX_DOUBLE),
    128, 64, 8, 4, 256, 0, 0, 0 },
  { 9, "FP64 tensor cores m16n8k8 (sm_90), warp tiles 64x32", TILEMM_TYPE_ONLY (DOUBLE),
    128, 128, 16, 4, 256, 1, 0, 0 },
  { 9, "FP64 tensor cores m16n8k8 (sm_90) on the real product", TILEMM_TYPE_ONLY (COMPLEX_DOUBLE),
    128, 64, 8, 4, 256, 1, 0, 0 },
  { 10, "FP64 tensor cores, 64x64 blocks, warp tiles 32x32", TILEMM_TYPE_ONLY (DOUBLE),
    64, 64, 16, 4, 128, 1, 1, 0 },
  { 10, "FP64 tensor cores, 64x64 real blocks", TILEMM_TYPE_ONLY (COMPLEX_DOUBLE),
    64, 32, 8, 4, 128, 0, 1, 0 },
  { 11, "split k over variant 7, fixed-order reduction", TILEMM_TYPE_ONLY (SINGLE),
    64, 64, 16, 4, 128, 0, 0, 1 },
  { 11, "split k over variant 7, fixed-order reduction", TILEMM_TYPE_ONLY (COMPLEX_SINGLE),
    64, 32, 8, 4, 128, 0, 0, 1 },
  { 11, "split k over variant 10, fixed-order reduction", TILEMM_TYPE_ONLY (DOUBLE),
    64, 64, 16, 4, 128, 0, 0, 1 },
  { 11, "split k over variant 10, fixed-order reduction", TILEMM_TYPE_ONLY (COMPLEX_DOUBLE),
    64, 32, 8, 4, 128, 0, 0, 1 },
  { 12, "variant 6, one block per SM, fragments double-buffered", TILEMM_TYPE_ONLY (SINGLE),
    128, 128, 16, 4, 256, 0, 0, 0 },
  { 13, "register tile 8x16, 128x256 blocks, one block per SM, 3-stage cp.async",
    TILEMM_TYPE_ONLY (SINGLE), 128, 256, 16, 4, 256, 1, 0, 0 },
  { 13, "register tile 8x16 of reals, 128x256 real blocks, 3-stage cp.async",
    TILEMM_TYPE_ONLY (COMPLEX_SINGLE), 128, 128, 8, 4, 256, 1, 0, 0 },
};

#define TILEMM_CUDA_NVARIANTS ((int) (sizeof tilemm_cuda_variants / sizeof tilemm_cuda_variants[0]))

#endif /* TILEMM_CUDA_VARIANTS_H */
