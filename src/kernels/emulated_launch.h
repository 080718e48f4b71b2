/* emulated_launch.h — the emulated precision's kernels (emulated_kernels.cuh, kernels_imma.cuh,
 * kernels_imma_wgmma.cuh) behind their launchers (emulated_cuda.cu): each one enqueues its
 * kernels on `stream` for device pointers it is given and checks the launch (the fault hook
 * included).  They allocate, copy and wait for nothing: the stages that do, and sequence them
 * (the arena's slots, the statistics brought to the host, the plan decided between the stages),
 * are the CUDA backend's (src/cuda/emulated_scheme.cu).  C++ only.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_EMULATED_LAUNCH_H
#define TILEMM_EMULATED_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "emulated.h"
#include "emulated_arena.h"
#include "tilemm.h"

namespace tilemm_emu_gpu {

/* The caller's int8 GEMM, its k-chunk in 64-byte tiles, the statistics' GEMM, the wgmma GEMM's
 * persistent grid and the device's multiprocessors, which the moduli a modular GEMM launch
 * takes follow (tilemm_emu_planes_per_launch) (tilemm_emu_cuda_setup: the call plan's). */
struct gemm_choice
{
  tilemm_emu_gemm gemm;
  int64_t chunk_tiles;
  tilemm_emu_gemm stats_gemm;
  int blocks;
  int multiprocessors;
};

/* Step 1: the largest magnitude of each row of A (m×k, lda) into amax_a[0 .. m) and of each
 * column of B (k×n, ldb) into amax_b[0 .. n) (zero on entry), then their exponents into ea and
 * eb and the non-finite flag (*flag zero on entry).  m = 0: A's rows not scanned (a caller that
 * keeps their exponents from an earlier call on the same A). */
template <typename T>
tilemm_status launch_scan (const T *a, int64_t m, int64_t k, int64_t lda, const T *b, int64_t n,
                           int64_t ldb, unsigned long long *amax_a, unsigned long long *amax_b,
                           int *ea, int *eb, int *flag, cudaStream_t stream, tilemm_error *err);

/* Step 2's quantization of A's rows (of_a) or B's columns: lo(x̂) K-major into lo (NULL: none),
 * Σ hi and Σ hi² of each into sum, sum2 (zero on entry).  rows: A's m or B's n; e: their
 * exponents. */
template <typename T>
tilemm_status launch_quantize (bool of_a, const T *x, int64_t rows, int64_t k, int64_t ld,
                               int64_t kp, const int *e, int8_t *lo, unsigned long long *sum,
                               unsigned long long *sum2, cudaStream_t stream, tilemm_error *err);

/* Step 2's int8 GEMM S = lo(A)·lo(B)ᵀ (m × n × kp) in chunks of k (gc), the ratios' maxima in its
 * epilogue into ratio[0, 1]; s64 (m×n) holds the chunks' partial sums where k needs several. */
tilemm_status launch_stats_gemm (const gemm_choice &gc, const int8_t *loa, const int8_t *lob,
                                 int64_t m, int64_t n, int64_t kp, int64_t *s64,
                                 const unsigned long long *sa, const unsigned long long *sb,
                                 const int *ea, const int *eb, unsigned long long *ratio,
                                 cudaStream_t stream, tilemm_error *err);

/* Step 3: the scaled integers of A's rows (of_a) or B's columns at `bits` bits, and their
 * residues for the first `moduli` moduli, K-major planes of rows·kp bytes into out. */
template <typename T>
tilemm_status launch_residues (bool of_a, const T *x, int64_t rows, int64_t k, int64_t ld,
                               int64_t kp, const int *e, int bits, int moduli, int8_t *out,
                               cudaStream_t stream, tilemm_error *err);

/* Step 4: the modular GEMMs of `planes` moduli from modulus `first` (one launch): residue planes
 * of A (m × kp, planes m·kp apart, from ra) and of the block's `cols` columns of B (from rb,
 * planes n·kp apart), R mod m_t as uint8 planes of m·n bytes (ld m) from r. */
tilemm_status launch_mod_gemms (const gemm_choice &gc, const int8_t *ra, const int8_t *rb,
                                int64_t m, int64_t cols, int64_t n, int64_t kp, int first,
                                int planes, uint8_t *r, cudaStream_t stream, tilemm_error *err);

/* Step 5: Garner's CRT of N residue planes r (m×n, planes r_plane apart) and the one rounding of
 * X·2^(e_a + e_b − shift) into C(i, j) at c[(i + j·ldc)·step]. */
template <typename OUT>
tilemm_status launch_crt (int N, const uint8_t *r, int64_t r_plane, int64_t m, int64_t n,
                          const int *ea, const int *eb, int shift, OUT *c, int64_t ldc, int step,
                          cudaStream_t stream, tilemm_error *err);

/* A complex product's real operands (emulated.h, the end): [Ar ∓Ai] (m×2k) into x1 (sign −1)
 * and x2 (+1) from complex A (m×k, lda complex elements), [Br; Bi] and [Bi; Br] (2k×n) into y1,
 * y2 from B (k×n, ldb). */
template <typename T>
tilemm_status launch_complex_split (const T *a, int64_t m, int64_t k, int64_t lda, const T *b,
                                    int64_t n, int64_t ldb, T *x1, T *x2, T *y1, T *y2,
                                    cudaStream_t stream, tilemm_error *err);

} // namespace tilemm_emu_gpu

#endif /* TILEMM_EMULATED_LAUNCH_H */
