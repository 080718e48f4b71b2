/* transpose.cu — out-of-place (conjugate) transpose of a column-major matrix on the device.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The textbook shared-memory transpose: a block reads a 32×32 tile of src along its columns
 * (coalesced), and writes it to dst along dst's columns (coalesced too), through a tile padded
 * by one element so the column reads of shared memory hit 32 different banks.  O(rows·cols),
 * used for each step's piece of a transposed operand (src/cuda/pipeline.cu) and for an emulated
 * product's transposed operand (src/cuda/transposed_product.cu, operand_on_device).
 */
#include <cuda_runtime_api.h>

#include "transpose.h"

/* The launch spelling, which the host emulation of CUDA (tests/emu) replaces with its own. */
#include "cuda_try.h"

namespace {

constexpr int TILE = 32;
constexpr int ROWS_PER_PASS = 8;   /* a block is 32×8 threads, each moving 4 elements */

template <typename T> __device__ T conj_if (T x, bool) { return x; }
template <> __device__ float2 conj_if (float2 x, bool c) { if (c) x.y = -x.y; return x; }
template <> __device__ double2 conj_if (double2 x, bool c) { if (c) x.y = -x.y; return x; }

/* dst(j, i) = src(i, j); blockIdx.x walks src's rows in tiles, blockIdx.y its columns.  The grid's
 * y dimension is limited to 65535, so columns beyond it are walked by a loop. */
template <typename T>
__global__ void transpose_kernel (const T *__restrict__ src, int64_t rows, int64_t cols,
                                  int64_t ld_src, T *__restrict__ dst, int64_t ld_dst, bool conj)
{
  __shared__ T tile[TILE][TILE + 1];
  const int64_t i0 = (int64_t) blockIdx.x * TILE;
  for (int64_t j0 = (int64_t) blockIdx.y * TILE; j0 < cols; j0 += (int64_t) gridDim.y * TILE)
    {
      for (int dj = threadIdx.y; dj < TILE; dj += ROWS_PER_PASS)
        {
          const int64_t i = i0 + threadIdx.x, j = j0 + dj;
          if (i < rows && j < cols)
            tile[dj][threadIdx.x] = src[i + j * ld_src];
        }
      __syncthreads ();
      for (int di = threadIdx.y; di < TILE; di += ROWS_PER_PASS)
        {
          const int64_t j = j0 + threadIdx.x, i = i0 + di;
          if (i < rows && j < cols)
            dst[j + i * ld_dst] = conj_if (tile[threadIdx.x][di], conj);
        }
      __syncthreads ();   /* the tile is reused by the next pass of the loop */
    }
}

template <typename T>
tilemm_status launch (const void *src, int64_t rows, int64_t cols, int64_t ld_src, void *dst,
                      int64_t ld_dst, bool conj, cudaStream_t stream, tilemm_error *err)
{
  const int64_t bx = (rows + TILE - 1) / TILE, by = (cols + TILE - 1) / TILE;
  if (bx > 2147483647)
    return tilemm_error_set (err, TILEMM_EOVERFLOW, "transpose: %lld rows are too many",
                             (long long) rows);
  const dim3 grid ((unsigned) bx, (unsigned) (by < 65535 ? by : 65535));
  const dim3 block (TILE, ROWS_PER_PASS);
  TILEMM_LAUNCH (transpose_kernel<T>, grid, block, stream, (const T *) src, rows, cols, ld_src,
                 (T *) dst, ld_dst, conj);
  const cudaError_t e = cudaGetLastError ();
  if (e != cudaSuccess)
    return tilemm_error_set (err, TILEMM_ECUDA, "launching the transpose kernel: %s",
                             cudaGetErrorString (e));
  return TILEMM_OK;
}

} /* namespace */

extern "C" tilemm_status tilemm_cuda_transpose (tilemm_type type, int conjugate, const void *src,
                                                int64_t rows, int64_t cols, int64_t ld_src,
                                                void *dst, int64_t ld_dst, cudaStream_t stream,
                                                tilemm_error *err)
{
  if (ld_src < (rows > 1 ? rows : 1) || ld_dst < (cols > 1 ? cols : 1))
    return tilemm_error_set (err, TILEMM_EINVAL, "transpose: bad strides");
  if (rows == 0 || cols == 0)
    return TILEMM_OK;
  switch (type)
    {
    case TILEMM_SINGLE:
      return launch<float> (src, rows, cols, ld_src, dst, ld_dst, false, stream, err);
    case TILEMM_DOUBLE:
      return launch<double> (src, rows, cols, ld_src, dst, ld_dst, false, stream, err);
    case TILEMM_COMPLEX_SINGLE:
      return launch<float2> (src, rows, cols, ld_src, dst, ld_dst, conjugate != 0, stream, err);
    case TILEMM_COMPLEX_DOUBLE:
      return launch<double2> (src, rows, cols, ld_src, dst, ld_dst, conjugate != 0, stream, err);
    default:
      return tilemm_error_set (err, TILEMM_EINVAL, "transpose: unknown type %d", (int) type);
    }
}
