/* emulated_arena.h — what a run of the emulated scheme on the GPU (src/cuda/emulated_scheme.cu)
 * needs its caller to decide and to give: the int8 GEMM, and the device arena the run carves its
 * residues and statistics from (sizes only: host arithmetic, so the workspace in src/cuda/ sizes
 * the arena before the call and the tests size theirs alike).  Plain C.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_EMULATED_ARENA_H
#define TILEMM_EMULATED_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "emulated.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The int8 GEMM of the scheme's products (kernels_imma.cuh, kernels_imma_wgmma.cuh). */
typedef enum {
  TILEMM_EMU_GEMM_WGMMA = 0, /* Hopper's wgmma kernel for the modular GEMMs and for the
                                statistics' GEMM where one launch covers k, v2 for the rest
                                (tilemm_emu_stats_gemm); only where it runs
                                (tilemm_emu_cuda_wgmma_runs)                                   */
  TILEMM_EMU_GEMM_V2,        /* mma.sync, 128×128 tiles of four 64×64 warp tiles, 3 stages     */
  TILEMM_EMU_GEMM_BIG,       /* mma.sync, 128×256 tiles                                         */
  TILEMM_EMU_GEMM_SMALL      /* mma.sync, 128×128 tiles of 8 warps                              */
} tilemm_emu_gemm;

/* The GEMM an override names (TILEMM_EMU_IMMA's value, read once by the caller): "big",
 * "small", "v2"; NULL, "" or "wgmma" the default, wgmma; anything else v2.  wgmma_runs: whether
 * the device and build can run it (else v2 stands in). */
tilemm_emu_gemm tilemm_emu_gemm_named (const char *name, int wgmma_runs);

/* The int8 GEMM the statistics' GEMM runs where the modular GEMMs run `gemm`, for a product of
 * padded inner dimension kp summed in k-chunks of chunk_tiles 64-byte tiles: wgmma sums all of k
 * in one launch only, so where k needs several chunks the statistics run v2 (the chunks' partial
 * sums in S's slot); every other GEMM runs its own.  Both compute the same exact int32 sums.
 * Decided here from the shape alone; the launchers run the GEMM named and switch to none. */
tilemm_emu_gemm tilemm_emu_stats_gemm (tilemm_emu_gemm gemm, int64_t kp, int64_t chunk_tiles);
/* The same for a product of `type` with inner dimension k: the scheme's real problem sums 2k
 * terms for a complex product (its parts side by side), padded as the GEMM reads them, in
 * k-chunks of chunk_tiles 64-byte tiles (0: the real one, TILEMM_EMU_KCHUNK_TILES).  What the
 * call plan names (emu_stats_gemm) and what a caller with a shorter k-chunk (a test) hands the
 * scheme in its setup. */
tilemm_emu_gemm tilemm_emu_plan_stats_gemm (tilemm_emu_gemm gemm, tilemm_type type, int64_t k,
                                            int64_t chunk_tiles);

/* How many of a block's `moduli` modular GEMMs one launch takes, for a block of C of m rows and
 * `cols` columns on a device of `multiprocessors` (the call plan's emu_multiprocessors of the
 * worker; 0: the facts do not name the device): all of them on the wgmma GEMM (its persistent
 * grid walks the tiles of all its planes, one tail wave in all instead of one a modulus), or when
 * the block's 128×128 tiles are fewer than two waves of the device's multiprocessors (one
 * modulus alone would not fill it); else one a launch, so a stop is polled between them.  The
 * plan's reader for a shape: the product and calibration's timing of the GEMMs launch as it
 * says.  Each modulus's GEMM is independent: the count changes no bit of the result. */
int tilemm_emu_planes_per_launch (tilemm_emu_gemm gemm, int64_t m, int64_t cols, int moduli,
                                  int multiprocessors);

/* The wgmma GEMM's persistent grid on a device of `multiprocessors` (the call plan's
 * emu_multiprocessors of the worker, from the facts): at most this many blocks, one a
 * multiprocessor; 0 where the facts do not name the device, and a wgmma launch is then refused.
 * The plan holds the count once; this reader derives the grid from it, for the product
 * (cuda/backend_ops.cu) and calibration's int8 timing alike. */
int tilemm_emu_gemm_grid (int multiprocessors);

/* What a call runs (emulated_scheme.h): the whole scheme, the statistics only, or the product
 * under a plan made elsewhere. */
typedef enum {
  TILEMM_EMU_RUN_WHOLE = 0,
  TILEMM_EMU_RUN_STATS,
  TILEMM_EMU_RUN_GIVEN
} tilemm_emu_run_mode;

/* The int8 GEMM's k-chunk: whole 64-byte k tiles, at most TILEMM_EMU_KCHUNK − 1 terms. */
#define TILEMM_EMU_KCHUNK_TILES ((TILEMM_EMU_KCHUNK - 1) / 64)

/* The pieces of the statistics' slot (offsets in bytes, 256-aligned): A's first, at offsets
 * that depend on m and kp only (its rows' maxima and exponents, sums, lo matrix: what a caller
 * keeps between the panels of one A, emulated_scheme.h's tilemm_emu_cuda_keep), then B's
 * columns' maxima and exponents, the non-finite flag, the ratios, B's sums and lo matrix and S's
 * chunk sums. */
typedef struct {
  size_t amax, e, sa, qa, loa, amaxb, eb, flag, ratio, sb, qb, lob, s64, total;
} tilemm_emu_stats_layout;

/* The pieces of the product's slot: the residues of A and B and the residue planes of C. */
typedef struct {
  size_t ra, rb, r, total;
} tilemm_emu_product_layout;

/* For one real problem of m×n with k padded to kp: with_lo where the rule needs the ratios,
 * with_s64 where the statistics' GEMM runs in chunks of k. */
tilemm_emu_stats_layout tilemm_emu_layout_stats (int64_t m, int64_t n, int64_t kp, int with_lo,
                                                 int with_s64);
tilemm_emu_product_layout tilemm_emu_layout_product (int64_t m, int64_t n, int64_t kp,
                                                     int moduli);

/* k of a real problem padded for the int8 GEMM: whole 16-byte rows, at least one. */
int64_t tilemm_emu_padded_k (int64_t k);

/* The bytes each of the 4 slots of the arena must hold for a call (tilemm_emu_cuda_run and its
 * siblings) on A (m×k), B (k×n) of `type`: slot 0 the statistics (of the real part for complex
 * types), 1 the product's residues, 2 the statistics of a complex product's imaginary part, 3 a
 * complex product's real operands.  options NULL: the defaults for the type.  moduli: the most
 * the product stage may use (RUN_GIVEN: the given plan's; 0: the options', their explicit count,
 * else max_moduli).  chunk_tiles: the int8 GEMM's k-chunk in 64-byte tiles (0: the real one,
 * TILEMM_EMU_KCHUNK_TILES).  An empty product needs nothing. */
void tilemm_emu_cuda_arena_need (tilemm_type type, int64_t m, int64_t n, int64_t k,
                                 const tilemm_emu_options *options, int moduli,
                                 tilemm_emu_run_mode mode, int64_t chunk_tiles, size_t bytes[4]);

/* Slot 0's bytes raised (never lowered) to what the calls of one product need when they keep
 * A's work between its panels of at most n columns (tilemm_emu_cuda_keep): the lo matrices'
 * room whatever the options, so a call of any mode leaves A's pieces where the next finds them. */
void tilemm_emu_cuda_arena_keep_a (tilemm_type type, int64_t m, int64_t n, int64_t k,
                                   int64_t chunk_tiles, size_t bytes[4]);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_EMULATED_ARENA_H */
