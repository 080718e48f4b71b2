/* transpose.h — the device transpose the GPU path uses for transposed operands (transpose.cu).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The tiled kernels read op(A) and op(B) as stored column-major matrices; they have no transposed
 * reading.  So a transposed operand is uploaded as stored and rearranged once on the device:
 * an O(rows·cols) pass (the product itself is O(m·n·k)), never on the host.
 */
#ifndef TILEMM_TRANSPOSE_H
#define TILEMM_TRANSPOSE_H

#include <cuda_runtime_api.h>

#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst (cols × rows, column-major, stride ld_dst ≥ cols) = src (rows × cols, column-major, stride
 * ld_src ≥ rows) transposed, with the imaginary parts negated when `conjugate` is set and the
 * type complex.  Both in device memory, not overlapping.  Enqueued on `stream`; TILEMM_ECUDA if
 * the launch fails (checked right after it), TILEMM_EINVAL for a bad type or stride. */
tilemm_status tilemm_cuda_transpose (tilemm_type type, int conjugate, const void *src,
                                     int64_t rows, int64_t cols, int64_t ld_src, void *dst,
                                     int64_t ld_dst, cudaStream_t stream, tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_TRANSPOSE_H */
