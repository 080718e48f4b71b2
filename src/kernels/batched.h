/* batched.h — the batched product's kernels (batched.cu): many pages of one shape in one launch,
 * on device pointers only (the host side, src/cuda/batch_product.cu, moves the pages).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_BATCHED_H
#define TILEMM_BATCHED_H

#include <cuda_runtime_api.h>

#include "batch.h"   /* tilemm_batched_kernel: the plan names the kernel */
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TILEMM_BATCHED_MAX_DIMS 30   /* as TILEMM_BATCH_MAX_DIMS (batch.h) */

/* Which pages of X and Y page p of Z reads: p = first + local page, split over z_dims (the
 * dimensions past the second, first fastest); X's page is the sum of its indices times x_step,
 * less x_first (the first page of X on the device), likewise Y. */
typedef struct {
  int ndims;
  int64_t z_dims[TILEMM_BATCHED_MAX_DIMS];
  int64_t x_step[TILEMM_BATCHED_MAX_DIMS], y_step[TILEMM_BATCHED_MAX_DIMS];
  int64_t first, x_first, y_first;
} tilemm_batched_pages;

/* Z_p = op_a(X_p)·op_b(Y_p) for `pages` pages (column-major, as Octave stores them): X's
 * pages m×k as stored (k×m when op_a transposes) x_page elements apart, Y's k×n (n×k), Z's m×n
 * packed, by the kernel the batch plan names (`kernel`, batch.h): TILEMM_BATCHED_SMALL, several
 * pages to a block (a thread an element); TILEMM_BATCHED_TILED, a block per 32×32 tile of a
 * page, op(X) and op(Y) through shared memory, transposed and conjugated as they load.  Either
 * runs any page size; TILEMM_EINVAL for a kernel there is not (none is chosen here).  Each element is summed in its type from zero in increasing k (no
 * term skipped, so NaN and Inf come out as in the host's product).  TILEMM_ECUDA when the
 * launch fails (cudaGetLastError right after it). */
tilemm_status tilemm_batched_launch (tilemm_batched_kernel kernel, tilemm_type type,
                                     tilemm_op op_a, tilemm_op op_b, int64_t m,
                                     int64_t n, int64_t k, const void *x, int64_t x_page,
                                     const void *y, int64_t y_page, void *z, int64_t pages,
                                     const tilemm_batched_pages *map, cudaStream_t stream,
                                     tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_BATCHED_H */
