/* cuda_variant_list.h — the one list of CUDA kernel variants: a row per variant and type.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Plain preprocessor data, read by both sides of the build: cuda_variants.h expands it into the
 * plan's table (plain C: plan.c knows nothing of CUDA), kernels.cu into its launch table, and
 * kernels.cu checks at compile time that every row's tile shape, padding, thread count and
 * element type are those of the template configuration it names.  A new variant is a row here
 * (and, for a new tuning, its configuration in kernels.cu); nothing else repeats its numbers.
 *
 * TILEMM_CUDA_VARIANT_LIST (X) calls
 *
 *   X (ID, TYPE, TILE, PAD, THREADS, USE, KIND, CFG, FALLBACK, NAME)
 *
 *   ID        the number plans and the benchmark use (one idea each, kept runnable so the
 *             benchmark replays the progression)
 *   TYPE      SINGLE, DOUBLE, COMPLEX_SINGLE or COMPLEX_DOUBLE (tilemm_type without TILEMM_)
 *   TILE      a named block tile TILE_<rows>x<cols>x<depth> of C' (rows × cols) and its k step,
 *             in elements of TYPE (for the real-product kinds, complex columns and k: half the
 *             reals the kernel's configuration counts)
 *   PAD       shared-memory row padding in elements
 *   THREADS   threads per block
 *   USE       what the plan does with it: PREFERRED (its choice for the type), SMALL (when the
 *             preferred tiles cannot fill the GPU), PREFERRED_SMALL (both), SPLIT (a small C' with
 *             a long k) or BENCH_ONLY (no plan chooses it: the benchmark's history and baselines,
 *             compiled only into the benchmark's build, TILEMM_BENCH_VARIANTS in kernels.cu)
 *   KIND      the launcher: GUIDE, REGTILE, SIMT, DMMA, SPLIT_SIMT or SPLIT_DMMA (kernels.cu);
 *             SIMT and DMMA kinds run a complex type as the real product on the same bytes
 *   CFG       the configuration in kernels.cu (GUIDE: the element type)
 *   FALLBACK  DMMA kinds: the configuration run before sm_80 (no FP64 tensor cores); else none
 *   NAME      one line: the idea
 *
 * The variants (bench/NOTES.md has each one's registers, shared memory and measured speed):
 *
 * 1  the CUDA guide's shared-memory kernel (BLOCK_SIZE 16) on strided views with ragged edges:
 *    the baseline every later variant is measured against.
 * 2  register tiles: each thread computes a TM×TN tile of C' (8×8 real, 4×4 complex); X's tile
 *    stored k-major in shared memory, rows padded where banks would conflict; 16-byte loads.
 * 3  variant 2 double-buffered: the next k-tile is loaded into registers while this one is used.
 * 4  variant 3 with k-tiles of 16: half the barriers per multiply-add.
 * 5  variant 3 with 64×64 blocks and 4×4 threads: more blocks per SM and for small products.
 * 6  single and complex single: variant 3's register tiles fed by a 3-stage cp.async pipeline
 *    (X transposed on the way by 4-byte copies), k-tiles of 16, two blocks per SM on sm_90.
 *    Complex single is the real product on the same bytes (src/kernels/kernels_simt.cuh): 128×128 reals.
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
 * The plan (plan.c) takes the last PREFERRED row of the type whose tiles number at least the
 * GPU's multiprocessors (the fewest of the call's GPUs, tilemm_limits.multiprocessors from the
 * devices' facts; without them TILEMM_CUDA_SMALL_BLOCKS, an H100's 132; larger tiles only where
 * packed rows are whole 16-byte chunks), the SMALL one where none does, and the SPLIT one where even the small tiles fill at most a quarter
 * of that and k is long.  So single and complex single take 13 for products that fill the GPU
 * with its tiles and 6 or 7 below; real double takes 10 at every size (it measured faster than 9
 * at every size on the H100), complex double 9 or 10.  The measurements behind each choice are
 * in bench/RESULTS.md and bench/NOTES.md.
 */
#ifndef TILEMM_CUDA_VARIANT_LIST_H
#define TILEMM_CUDA_VARIANT_LIST_H

/* The named block tiles: rows, cols, depth (expanded inside an initializer's braces). */
#define TILEMM_TILE_16x16x16 16, 16, 16
#define TILEMM_TILE_64x32x8 64, 32, 8
#define TILEMM_TILE_64x64x8 64, 64, 8
#define TILEMM_TILE_64x64x16 64, 64, 16
#define TILEMM_TILE_128x64x8 128, 64, 8
#define TILEMM_TILE_128x128x8 128, 128, 8
#define TILEMM_TILE_128x128x16 128, 128, 16
#define TILEMM_TILE_128x256x16 128, 256, 16

/* The USE column as the plan's flags: preferred, preferred_small, preferred_split, bench_only. */
#define TILEMM_USE_PREFERRED 1, 0, 0, 0
#define TILEMM_USE_SMALL 0, 1, 0, 0
#define TILEMM_USE_PREFERRED_SMALL 1, 1, 0, 0
#define TILEMM_USE_SPLIT 0, 0, 1, 0
#define TILEMM_USE_BENCH_ONLY 0, 0, 0, 1

/* Whether a KIND runs complex types as the real product on the same bytes. */
#define TILEMM_KIND_REAL_PRODUCT_GUIDE 0
#define TILEMM_KIND_REAL_PRODUCT_REGTILE 0
#define TILEMM_KIND_REAL_PRODUCT_SIMT 1
#define TILEMM_KIND_REAL_PRODUCT_DMMA 1
#define TILEMM_KIND_REAL_PRODUCT_SPLIT_SIMT 1
#define TILEMM_KIND_REAL_PRODUCT_SPLIT_DMMA 1

/* Whether a KIND has a register-tiled fallback for devices without FP64 tensor cores. */
#define TILEMM_KIND_FALLBACK_GUIDE 0
#define TILEMM_KIND_FALLBACK_REGTILE 0
#define TILEMM_KIND_FALLBACK_SIMT 0
#define TILEMM_KIND_FALLBACK_DMMA 1
#define TILEMM_KIND_FALLBACK_SPLIT_SIMT 0
#define TILEMM_KIND_FALLBACK_SPLIT_DMMA 1

/* Rows of one type keep ascending ids: the plan takes the last fitting PREFERRED row of a type. */
#define TILEMM_CUDA_VARIANT_LIST(X)                                                              \
  X (1, SINGLE, TILE_16x16x16, 0, 256, BENCH_ONLY, GUIDE, float, none,                          \
     "guide: 16x16 shared-memory tiles, one output per thread")                                 \
  X (1, DOUBLE, TILE_16x16x16, 0, 256, BENCH_ONLY, GUIDE, double, none,                         \
     "guide: 16x16 shared-memory tiles, one output per thread")                                 \
  X (1, COMPLEX_SINGLE, TILE_16x16x16, 0, 256, BENCH_ONLY, GUIDE, float2, none,                 \
     "guide: 16x16 shared-memory tiles, one output per thread")                                 \
  X (1, COMPLEX_DOUBLE, TILE_16x16x16, 0, 256, BENCH_ONLY, GUIDE, double2, none,                \
     "guide: 16x16 shared-memory tiles, one output per thread")                                 \
  X (2, SINGLE, TILE_128x128x8, 4, 256, BENCH_ONLY, REGTILE, v2_single, none,                   \
     "register tile 8x8, k-major padded shared X")                                              \
  X (2, DOUBLE, TILE_128x128x8, 0, 256, BENCH_ONLY, REGTILE, v2_double, none,                   \
     "register tile 8x8, k-major shared X")                                                     \
  X (2, COMPLEX_SINGLE, TILE_64x64x8, 0, 256, BENCH_ONLY, REGTILE, v2_csingle, none,            \
     "register tile 4x4 complex, k-major shared X")                                             \
  X (2, COMPLEX_DOUBLE, TILE_64x64x8, 0, 256, BENCH_ONLY, REGTILE, v2_cdouble, none,            \
     "register tile 4x4 complex, k-major shared X")                                             \
  X (3, SINGLE, TILE_128x128x8, 4, 256, BENCH_ONLY, REGTILE, v3_single, none,                   \
     "register tile 8x8, double-buffered")                                                      \
  X (3, DOUBLE, TILE_128x128x8, 0, 256, BENCH_ONLY, REGTILE, v3_double, none,                   \
     "register tile 8x8, double-buffered")                                                      \
  X (3, COMPLEX_SINGLE, TILE_64x64x8, 0, 256, BENCH_ONLY, REGTILE, v3_csingle, none,            \
     "register tile 4x4 complex, double-buffered")                                              \
  X (3, COMPLEX_DOUBLE, TILE_64x64x8, 0, 256, BENCH_ONLY, REGTILE, v3_cdouble, none,            \
     "register tile 4x4 complex, double-buffered")                                              \
  X (4, SINGLE, TILE_128x128x16, 4, 256, BENCH_ONLY, REGTILE, v4_single, none,                  \
     "register tile 8x8, double-buffered, k-tiles of 16")                                       \
  X (4, COMPLEX_SINGLE, TILE_64x64x16, 0, 256, BENCH_ONLY, REGTILE, v4_csingle, none,           \
     "register tile 4x4 complex, double-buffered, k-tiles of 16")                               \
  X (5, SINGLE, TILE_64x64x16, 4, 256, BENCH_ONLY, REGTILE, v5_single, none,                    \
     "register tile 4x4, 64x64 blocks, double-buffered")                                        \
  X (5, DOUBLE, TILE_64x64x8, 0, 256, BENCH_ONLY, REGTILE, v5_double, none,                     \
     "register tile 4x4, 64x64 blocks, double-buffered")                                        \
  X (6, SINGLE, TILE_128x128x16, 4, 256, PREFERRED, SIMT, v6_single, none,                      \
     "register tile 8x8, 3-stage cp.async pipeline, k-tiles of 16")                             \
  X (6, COMPLEX_SINGLE, TILE_128x64x8, 4, 256, PREFERRED, SIMT, v6_csingle, none,               \
     "register tile 8x8 of reals, 3-stage cp.async pipeline")                                   \
  X (7, SINGLE, TILE_64x64x16, 4, 128, SMALL, SIMT, v7_single, none,                            \
     "register tile 8x4, 64x64 blocks, 3-stage cp.async")                                       \
  X (7, COMPLEX_SINGLE, TILE_64x32x8, 4, 128, SMALL, SIMT, v7_csingle, none,                    \
     "register tile 8x4 of reals, 64x64 real blocks, 3-stage cp.async")                         \
  X (8, DOUBLE, TILE_128x128x16, 4, 256, BENCH_ONLY, DMMA, v8_double, v3_double,                \
     "FP64 tensor cores m8n8k4, warp tiles 64x32, 3-stage cp.async")                            \
  X (8, COMPLEX_DOUBLE, TILE_128x64x8, 4, 256, BENCH_ONLY, DMMA, v8_cdouble, v3_cdouble,        \
     "FP64 tensor cores m8n8k4 on the real product")                                            \
  X (9, DOUBLE, TILE_128x128x16, 4, 256, PREFERRED, DMMA, v9_double, v3_double,                 \
     "FP64 tensor cores m16n8k8 (sm_90), warp tiles 64x32")                                     \
  X (9, COMPLEX_DOUBLE, TILE_128x64x8, 4, 256, PREFERRED, DMMA, v9_cdouble, v3_cdouble,         \
     "FP64 tensor cores m16n8k8 (sm_90) on the real product")                                   \
  X (10, DOUBLE, TILE_64x64x16, 4, 128, PREFERRED_SMALL, DMMA, v10_double, v5_double,           \
     "FP64 tensor cores, 64x64 blocks, warp tiles 32x32")                                       \
  X (10, COMPLEX_DOUBLE, TILE_64x32x8, 4, 128, SMALL, DMMA, v10_cdouble, v3_cdouble,            \
     "FP64 tensor cores, 64x64 real blocks")                                                    \
  X (11, SINGLE, TILE_64x64x16, 4, 128, SPLIT, SPLIT_SIMT, v7_single, none,                     \
     "split k over variant 7, fixed-order reduction")                                           \
  X (11, COMPLEX_SINGLE, TILE_64x32x8, 4, 128, SPLIT, SPLIT_SIMT, v7_csingle, none,             \
     "split k over variant 7, fixed-order reduction")                                           \
  X (11, DOUBLE, TILE_64x64x16, 4, 128, SPLIT, SPLIT_DMMA, v10_double, v5_double,               \
     "split k over variant 10, fixed-order reduction")                                          \
  X (11, COMPLEX_DOUBLE, TILE_64x32x8, 4, 128, SPLIT, SPLIT_DMMA, v10_cdouble, v3_cdouble,      \
     "split k over variant 10, fixed-order reduction")                                          \
  X (12, SINGLE, TILE_128x128x16, 4, 256, BENCH_ONLY, SIMT, v12_single, none,                   \
     "variant 6, one block per SM, fragments double-buffered")                                  \
  X (13, SINGLE, TILE_128x256x16, 4, 256, PREFERRED, SIMT, v13_single, none,                    \
     "register tile 8x16, 128x256 blocks, one block per SM, 3-stage cp.async")                  \
  X (13, COMPLEX_SINGLE, TILE_128x128x8, 4, 256, PREFERRED, SIMT, v13_csingle, none,            \
     "register tile 8x16 of reals, 128x256 real blocks, 3-stage cp.async")

#endif /* TILEMM_CUDA_VARIANT_LIST_H */
