/* kernels.h — the C-callable face of tilemm's CUDA kernels: launch a variant on device matrices.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The kernels compute the ROW-MAJOR product C' = X·Y on device memory, X (height n, width k),
 * Y (height k, width m), C' (height n, width m), each a tilemm_matrix with its own stride (the
 * CUDA guide's Matrix).  For C = A·B on column-major views this is Cᵀ = Bᵀ·Aᵀ: X is the reading
 * of B, Y the reading of A, C' the reading of C (tilemm_row_major_reading).  Any sizes, any
 * strides >= width; elements of C' between width and stride are never written.
 */
#ifndef TILEMM_KERNELS_H
#define TILEMM_KERNELS_H

#include <cuda_runtime_api.h>

#include "ksplit.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues variant `variant` (see src/common/cuda_variants.h) for `type` on `stream`: C' = X·Y, all three
 * in device memory, each pointer aligned to its element (16 bytes for complex double).  With
 * k = 0, C' is set to zeros.  `launch` (ksplit.h; NULL: no fallback, unsplit) is what the caller
 * decided: the register-tiled fallback on a device without DMMA, and for the split-k variant the
 * pieces of k and the scratch for their partial sums (tilemm_kernel_launch_plan gives both; the
 * launcher allocates nothing).  Returns TILEMM_EINVAL for an unknown variant, a misaligned pointer,
 * a bad stride, or a split of k that does not fit the kernel or its scratch, TILEMM_ESHAPE when
 * the sizes disagree, TILEMM_ECUDA when the launch fails (checked with cudaGetLastError right
 * after it; errors inside the kernel show at the next synchronisation). */
tilemm_status tilemm_cuda_launch (int variant, tilemm_type type, tilemm_matrix c, tilemm_matrix x,
                                  tilemm_matrix y, const tilemm_kernel_launch *launch,
                                  cudaStream_t stream, tilemm_error *err);

/* The shape variant `variant` is compiled with for `type`: block tile (rows × cols of C'), k step,
 * shared-memory padding and threads per block.  Returns 0 (and leaves the outputs alone) when no
 * such kernel exists.  Tests check it against the table in cuda_variants.h. */
int tilemm_cuda_kernel_shape (int variant, tilemm_type type, int *tile_rows, int *tile_cols,
                              int *tile_depth, int *pad, int *threads);

/* 1 where this build of the kernels holds the variants no plan chooses (the benchmark's build,
 * TILEMM_BENCH_VARIANTS), 0 in the package's. */
int tilemm_cuda_bench_variants_built (void);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_KERNELS_H */
