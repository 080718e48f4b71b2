/* kernels_async.cuh — what the pipelined variants (6 and up) share: asynchronous global-to-shared
 * copies with zero fill, the split of k among the blocks of a grid, the order blocks take their
 * tiles in, and the deterministic reduction of split-k partial sums.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * cp.async (sm_80 and later) copies 4, 8 or 16 bytes from global to shared memory without passing
 * through registers; the copy reads only `src_bytes` of them and fills the rest with zeros, which
 * is how ragged edges and the end of k are handled: nothing out of the matrix is ever read, and a
 * tile past k holds zeros in both operands.  Before sm_80 the same calls are synchronous loads and
 * stores (the fat binary's sm_75 code), so every pipelined kernel still runs there, unpipelined.
 */
#ifndef TILEMM_KERNELS_ASYNC_CUH
#define TILEMM_KERNELS_ASYNC_CUH

#include <stdint.h>

#include "kernels_types.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TILEMM_HAVE_CP_ASYNC 1
#else
#define TILEMM_HAVE_CP_ASYNC 0
#endif

/* The kernel's dynamic shared memory (the emulation in tests/emu gives it another spelling). */
#ifndef TILEMM_DYNAMIC_SMEM
#define TILEMM_DYNAMIC_SMEM(name) extern __shared__ __align__ (16) unsigned char name[]
#endif

/* The __launch_bounds__ occupancy a configuration asks for on the architecture being compiled. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define TILEMM_ASYNC_MIN_BLOCKS(Cfg) Cfg::MIN_BLOCKS_PRE_HOPPER
#else
#define TILEMM_ASYNC_MIN_BLOCKS(Cfg) Cfg::MIN_BLOCKS
#endif

/* Copies BYTES (4, 8 or 16) from gmem to smem with one zero-fill cp.async: src_bytes is 0 or
 * BYTES, nothing else (the emulation checks it).  With 0 nothing is read and the BYTES are zeros;
 * gmem must still be a valid address with BYTES bytes of the matrix behind it: callers pass the
 * matrix's base.  Both addresses are BYTES-aligned.
 *
 * Why never a partial copy: compute-sanitizer's memcheck counts the whole cp-size of a zero-fill
 * cp.async as read (bench/RESULTS.md, 2026-11-23), though the hardware reads only src-size
 * bytes, so a 16-byte copy of the last 4 bytes of a matrix was reported as a read past it.  The
 * launchers (src/kernels/kernels.cu: wide_whole) therefore take the 16-byte path only for matrices whose
 * rows are whole 16-byte chunks, so a chunk is either inside the matrix or past k (src 0, at the
 * base, which heads a whole row of at least 16 bytes); other matrices take element-sized copies.
 * (Splitting partial copies inside this function instead, with a branch on every copy, cost
 * variant 6 about 6% and the DMMA variants 4–7% in H100 runs of 2026-11-23.) */
template <int BYTES>
__device__ __forceinline__ void cp_async (void *smem, const void *gmem, int src_bytes)
{
  static_assert (BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
#if TILEMM_HAVE_CP_ASYNC
  const unsigned s = (unsigned) __cvta_generic_to_shared (smem);
  if constexpr (BYTES == 16)
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
                  "r"(src_bytes));
  else
    asm volatile ("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(gmem),
                  "n"(BYTES), "r"(src_bytes));
#else
#ifdef TILEMM_EMULATE
  if (src_bytes != 0 && src_bytes != BYTES)
    tilemm_emu_fail ("a partial cp.async (src-size neither 0 nor the copy's size)");
  tilemm_emu_check_align (smem, BYTES, "cp.async to shared memory");
  if (src_bytes > 0)
    tilemm_emu_check_align (gmem, BYTES, "cp.async from global memory");
#endif
  if (src_bytes == BYTES)
    {
      if constexpr (BYTES == 16)
        *(uint4 *) smem = *(const uint4 *) gmem;
      else if constexpr (BYTES == 8)
        *(uint2 *) smem = *(const uint2 *) gmem;
      else
        *(unsigned *) smem = *(const unsigned *) gmem;
    }
  else
    {
#pragma unroll
      for (int w = 0; w < BYTES / 4; w++)
        ((unsigned *) smem)[w] = 4 * w < src_bytes ? ((const unsigned *) gmem)[w] : 0u;
    }
#endif
}

/* Closes the group of copies issued since the last commit. */
__device__ __forceinline__ void cp_async_commit ()
{
#if TILEMM_HAVE_CP_ASYNC
  asm volatile ("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Waits until at most N committed groups are still in flight (this thread's copies only: a
 * barrier must follow before other threads read what they wrote). */
template <int N> __device__ __forceinline__ void cp_async_wait ()
{
#if TILEMM_HAVE_CP_ASYNC
  asm volatile ("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* ---------------------------------------------------------------- split k
 * A grid with gridDim.z = S > 1 splits k: block z computes the product over real k in
 * [z·kchunk, min(K, (z+1)·kchunk)) and writes it to the plane z of a workspace (c + z·plane);
 * splitk_reduce then adds the planes into C in a fixed order.  kchunk is a multiple of the
 * kernel's k step, so every split but the last is whole tiles. */
struct ksplit
{
  int64_t kchunk; /* real k per split                             */
  int64_t plane;  /* elements between the workspace's planes      */
};

/* Narrows x (its columns), y (its rows: KS real k per row of y) and c (to its plane) to this
 * block's split.  Returns the split's real k. */
template <int KS, typename R>
__device__ __forceinline__ int64_t split_views (kmatrix<R> &c, kmatrix<const R> &x,
                                                kmatrix<const R> &y, const ksplit &split)
{
  int64_t K = x.width;
  if (gridDim.z > 1)
    {
      const int64_t k0 = (int64_t) blockIdx.z * split.kchunk;
      K = K - k0 < split.kchunk ? K - k0 : split.kchunk;
      x.e += k0;
      y.e += (k0 / KS) * y.stride;
      c.e += (int64_t) blockIdx.z * split.plane;
    }
  return K;
}

/* The tile (row, column) of C' this block computes.  Blocks are numbered along rows of the grid;
 * consecutive blocks walk down a group of GROUP tile rows before moving right, so the blocks
 * resident together share their X rows and Y columns in L2 (fewer DRAM reads for big products). */
template <bool FRESH = false> __device__ __forceinline__ void block_tile (int &tile_row, int &tile_col)
{
  constexpr unsigned GROUP = 8;
  unsigned gx = gridDim.x, gy = gridDim.y, bx = blockIdx.x, by = blockIdx.y;
#if defined(__CUDA_ARCH__)
  if (FRESH)
    {
      /* Read again rather than kept in registers across the k-loop (the epilogue's use). */
      asm volatile ("mov.u32 %0, %%ctaid.x;" : "=r"(bx));
      asm volatile ("mov.u32 %0, %%ctaid.y;" : "=r"(by));
      asm volatile ("mov.u32 %0, %%nctaid.x;" : "=r"(gx));
      asm volatile ("mov.u32 %0, %%nctaid.y;" : "=r"(gy));
    }
#endif
  const unsigned lin = by * gx + bx;
  const unsigned group = lin / (GROUP * gx);
  const unsigned first = group * GROUP;
  const unsigned rows = gy - first < GROUP ? gy - first : GROUP;
  const unsigned in = lin - group * GROUP * gx;
  tile_row = (int) (first + in % rows);
  tile_col = (int) (in / rows);
}

/* C'(r, c) = Σ_z W_z(r, c), the planes of the workspace added in a fixed order: thread y of a
 * column sums planes y, y+8, y+16, … in turn, then the eight sums are added in order 0…7.  The
 * same inputs give the same bits, run after run.  Block (32, 8) covers 32 columns of one row. */
template <typename R>
__global__ void __launch_bounds__ (256)
splitk_reduce (kmatrix<R> c, const R *ws, int64_t ws_stride, int64_t plane, int splits)
{
  __shared__ R part[8][33];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t col = (int64_t) blockIdx.x * 32 + tx;
  for (int64_t row = blockIdx.y; row < c.height; row += gridDim.y)
    {
      R s = (R) 0;
      if (col < c.width)
        {
          const R *p = ws + row * ws_stride + col;
          for (int z = ty; z < splits; z += 8)
            s += p[z * plane];
        }
      part[ty][tx] = s;
      __syncthreads ();
      if (ty == 0 && col < c.width)
        {
          R t = part[0][tx];
#pragma unroll
          for (int i = 1; i < 8; i++)
            t += part[i][tx];
          c.e[row * c.stride + col] = t;
        }
      __syncthreads ();
    }
}

#endif /* TILEMM_KERNELS_ASYNC_CUH */
