/* emulated_scheme.h — the emulated precision (src/common/emulated.h) on the GPU at the level of
 * device pointers (emulated_scheme.cu, on the kernels of src/kernels/emulated_cuda.cu): what the
 * CUDA backend's executor (emulated_product.cu) runs on the data it staged, and what the
 * benchmark and the tests call directly; the host-view entry points the core calls are declared
 * in backend.h and multi.h.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_EMULATED_SCHEME_H
#define TILEMM_EMULATED_SCHEME_H

#include <stddef.h>
#include <stdint.h>

#include "emulated.h"
#include "emulated_arena.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the time of one call went (CUDA events on its stream; all zero in the host emulation). */
typedef struct {
  double scan_ms;    /* exponents and the non-finite check                        */
  double stats_ms;   /* quantization, sums, the statistics' int8 GEMM and ratios    */
  double convert_ms; /* scaled integers and their residues                          */
  double gemm_ms;    /* the N modular int8 GEMMs                                     */
  double crt_ms;     /* Garner's CRT and the one rounding                            */
} tilemm_emu_cuda_times;

/* The device memory a call works in, the caller's (the worker's workspace, src/cuda/; a test's
 * or the benchmark's own): 4 slots, each at least what tilemm_emu_cuda_arena_need
 * (emulated_arena.h) says for the call.  The call allocates nothing: a slot too small is
 * TILEMM_EINVAL, before any work. */
typedef struct {
  void *base[4];
  size_t bytes[4];
} tilemm_emu_cuda_arena;

/* What the caller decided for a call: the int8 GEMM (TILEMM_EMU_GEMM_WGMMA only where
 * tilemm_emu_cuda_wgmma_runs), the GEMM's k-chunk in 64-byte tiles (0: the real one,
 * TILEMM_EMU_KCHUNK_TILES; the tests shorten it to exercise the chunks on small k; the arena's
 * size depends on it), for tilemm_emu_cuda_run the call plan's branches (emulated.h) among
 * which the statistics select the moduli (tilemm_emu_select: no rule applied here), so the call
 * stays one pass on data uploaded once, the statistics' GEMM (the call plan's emu_stats_gemm:
 * tilemm_emu_plan_stats_gemm for this k and k-chunk; launched as named, an error where it cannot
 * run), the wgmma GEMM's persistent grid (tilemm_emu_gemm_grid of the call plan's
 * emu_multiprocessors: one block a multiprocessor of the device; below 1, a wgmma GEMM is
 * refused) and the device's
 * multiprocessors (the call plan's emu_multiprocessors: the moduli a modular GEMM launch takes
 * follow them and the block's shape, tilemm_emu_planes_per_launch; 0: one modulus a launch
 * where the GEMM is not wgmma).  The scheme reads no device
 * attribute and chooses no GEMM. */
typedef struct tilemm_emu_cuda_keep tilemm_emu_cuda_keep;
typedef struct {
  tilemm_emu_gemm gemm;
  int64_t chunk_tiles;
  const tilemm_emu_branches *branches;
  tilemm_emu_cuda_keep *keep; /* NULL: every call does A's part anew (see below) */
  tilemm_emu_gemm stats_gemm;
  int gemm_blocks;
  int multiprocessors;
} tilemm_emu_cuda_setup;

/* A's work kept between calls on the same real A (the panels of C's columns of one product,
 * emulated_pipeline.cu): its rows' exponents, sums and lo matrix in the arena's slot 0 and its
 * residues in slot 1, so a later call does only B's part, the GEMMs and the CRT.  Each entry of
 * what is kept depends on A (and, for the residues, the plan's bits and the modulus) only, so
 * the product is bitwise the one computed afresh.  The caller zeroes it before the first call,
 * passes it with every call on that A (another A, m, k or lda: the calls start afresh), keeps the
 * arena's slots 0 and 1 to these calls and their stream, and sizes slot 0 with
 * tilemm_emu_cuda_arena_keep_a.  A complex product keeps nothing. */
struct tilemm_emu_cuda_keep {
  const void *a;      /* the A the rest describes, with m, k and lda */
  int64_t m, k, lda;
  int exponents;      /* A finite, its rows' exponents in slot 0 */
  int sums;           /* A's rows' sums (Σ hi, Σ hi²) in slot 0 */
  int lo;             /* lo(A) in slot 0 */
  int residue_bits;   /* A's residues in slot 1 (planes m·kp apart from its start) at these bits, */
  int residue_moduli; /* for the first this many moduli (0: none) */
};

/* Whether the current device and this build can run the wgmma GEMM (compute capability 9.0 and
 * the kernel's sm_90a code): a fact the caller's choice reads. */
int tilemm_emu_cuda_wgmma_runs (void);

/* The device time of the N modular int8 GEMMs of an m×n product of inner dimension k (the
 * scheme's step 4 on residues of no particular value, in the arena's product slot, on `stream`;
 * as many moduli a launch as the product takes for a block of C of this shape on the setup's
 * multiprocessors, tilemm_emu_planes_per_launch), into *ms: the int8 rate that the machine's
 * facts keep (calibration's TILEMM_FACTS_INT8). */
tilemm_status tilemm_emu_cuda_time_gemm (const tilemm_emu_cuda_setup *setup, int64_t m, int64_t n,
                                         int64_t k, int moduli, void *stream,
                                         const tilemm_emu_cuda_arena *arena, double *ms,
                                         tilemm_error *err);

/* C in column blocks, for a caller that copies C out while the device computes the rest (the
 * executor): the modular GEMMs and the CRT run block by block of `cols` columns (the last one
 * narrower), and event done[j] (a cudaEvent_t, `count` of them) is recorded on the stream once
 * block j is in C; the call then returns without waiting for the device.  cols 0, or at least n:
 * one block.  done NULL: no events, and the call waits as without blocks.  The blocks change
 * only the order of the work: C is bitwise the same. */
typedef struct {
  int64_t cols;
  void *const *done;
  int count;
} tilemm_emu_cuda_blocks;

/* C = A·B in emulated precision for device operands of `type` (any tilemm_type; column-major,
 * complex interleaved: A m×k with leading dimension lda, B k×n with ldb, C m×n with ldc, in
 * elements), enqueued on
 * `stream` (a cudaStream_t; NULL: the default stream) and waited for.  Returns TILEMM_OK with
 * used->verdict saying whether C was written (TILEMM_EMU_OK) or left untouched (NONFINITE,
 * RANGE: the caller runs the native product).  The plan is the branch of setup->branches the
 * statistics select (setup: see above; required).  stats (may be NULL) receives the statistics the plan was
 * decided from, times (may be NULL) the stages' times, arena (required) see above, blocks (may
 * be NULL) see above.  stop (may be NULL) is polled between the stages and between the launches
 * of the moduli and of the blocks. */
tilemm_status tilemm_emu_cuda_run (const tilemm_emu_options *options,
                                   const tilemm_emu_cuda_setup *setup, tilemm_type type, int64_t m,
                                   int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                                   int64_t ldb, void *c, int64_t ldc, void *stream,
                                   const tilemm_stop *stop, tilemm_emu_plan *used,
                                   tilemm_emu_stats *stats, tilemm_emu_cuda_times *times,
                                   const tilemm_emu_cuda_arena *arena,
                                   const tilemm_emu_cuda_blocks *blocks, tilemm_error *err);

/* Steps 1–2 only, for one panel of a product whose plan is made from all panels' statistics
 * (emulated_panels.c): *stats as tilemm_emu_cuda_run's. */
tilemm_status tilemm_emu_cuda_stats (const tilemm_emu_options *options,
                                     const tilemm_emu_cuda_setup *setup, tilemm_type type, int64_t m,
                                     int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                                     int64_t ldb, void *stream, tilemm_emu_stats *stats,
                                     const tilemm_emu_cuda_arena *arena, tilemm_error *err);

/* The product under a plan made elsewhere (verdict OK): the exponents of A's rows and B's
 * columns, then steps 4–7, so a panel comes out bitwise as in the whole product.  *used: the
 * plan (verdict NONFINITE, C untouched, when the panel holds NaN or Inf after all). */
tilemm_status tilemm_emu_cuda_run_plan (const tilemm_emu_plan *plan,
                                        const tilemm_emu_cuda_setup *setup, tilemm_type type,
                                        int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                                        const void *b, int64_t ldb, void *c, int64_t ldc,
                                        void *stream, const tilemm_stop *stop,
                                        tilemm_emu_plan *used, tilemm_emu_cuda_times *times,
                                        const tilemm_emu_cuda_arena *arena,
                                        const tilemm_emu_cuda_blocks *blocks, tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_EMULATED_SCHEME_H */
