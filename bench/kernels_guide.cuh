/* kernels_guide.cuh — variant 1: the CUDA programming guide's shared-memory kernel
 * (BLOCK_SIZE 16, one output per thread), generalised to strided views and ragged edges.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * C' = X·Y row-major.  A block computes the 16×16 sub-matrix of C' at (blockIdx.y, blockIdx.x);
 * it walks k in 16-wide steps, each thread copying one element of X's and one of Y's tile into
 * shared memory.  Where a tile reaches past an edge the copy is a zero: past k both operands are
 * zero (so 0·0 adds nothing, and an Inf inside the matrix never meets a padding zero), past the
 * rows of X or the columns of Y only outputs that are never stored are affected.  The baseline
 * every later variant is measured against.
 */
#ifndef TILEMM_KERNELS_GUIDE_CUH
#define TILEMM_KERNELS_GUIDE_CUH

#include "kernels_types.cuh"

#define TILEMM_GUIDE_BLOCK 16

template <typename T>
__global__ void __launch_bounds__ (TILEMM_GUIDE_BLOCK * TILEMM_GUIDE_BLOCK)
guide_kernel (kmatrix<T> c, kmatrix<const T> x, kmatrix<const T> y)
{
  const int B = TILEMM_GUIDE_BLOCK;
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int64_t row = (int64_t) blockIdx.y * B + ty; /* row of C' and of X    */
  const int64_t col = (int64_t) blockIdx.x * B + tx; /* column of C' and of Y */
  const int64_t K = x.width;

  __shared__ T xs[TILEMM_GUIDE_BLOCK][TILEMM_GUIDE_BLOCK];
  __shared__ T ys[TILEMM_GUIDE_BLOCK][TILEMM_GUIDE_BLOCK];

  T acc = elem_zero<T> ();
  for (int64_t k0 = 0; k0 < K; k0 += B)
    {
      xs[ty][tx] = (row < x.height && k0 + tx < K) ? x.e[row * x.stride + k0 + tx] : elem_zero<T> ();
      ys[ty][tx] = (k0 + ty < K && col < y.width) ? y.e[(k0 + ty) * y.stride + col] : elem_zero<T> ();
      __syncthreads ();
#pragma unroll
      for (int e = 0; e < TILEMM_GUIDE_BLOCK; e++)
        elem_madd (acc, xs[ty][e], ys[e][tx]);
      __syncthreads ();
    }
  if (row < c.height && col < c.width)
    c.e[row * c.stride + col] = acc;
}

#endif /* TILEMM_KERNELS_GUIDE_CUH */
