/* kernels_regtile.cuh — variants 2 and up: register-tiled kernels.  Each thread computes a TM×TN
 * tile of C' in registers; the block's BM×BN tile of C' steps along k BK at a time through
 * shared memory.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * C' = X·Y row-major: X is BM rows of C' by k (contiguous along k), Y is k by BN columns
 * (contiguous along the columns).  The ideas, each measured in bench/NOTES.md:
 *
 * - Register tile.  Per k a thread reads TM elements of X's tile and TN of Y's from shared memory
 *   and does TM·TN multiply-adds: 8×8 floats is 64 FMAs for 16 loads, against the guide's 1 for 2.
 * - X's tile is stored TRANSPOSED (k-major, xs[k][row]) so that a thread's TM values for one k are
 *   contiguous and come in 16-byte loads.  The copy assigns one warp 16 rows × 2 sixteen-byte
 *   chunks along k: in global memory each row's 32 bytes are one sector, and in shared memory the
 *   16 rows land on consecutive words; for float the two chunks' k rows are PAD words apart
 *   (PAD = 4: 4·132 ≡ 16 mod 32 banks), so the transposing store is conflict-free too.
 * - A thread's TN columns are TN/VW chunks of VW elements (16 bytes), chunk j at column
 *   j·TX·VW + tx·VW: the 8 threads of a quarter-warp read 128 contiguous bytes (no bank conflict)
 *   and later store 128 contiguous bytes of C (coalesced).  Rows likewise with ty.  A warp is 4 ty
 *   × 8 tx, so each X value it loads serves 8 threads and each Y value 4 (broadcasts).
 * - Wide loads: 16-byte global loads where the template says the matrix allows it (stride and
 *   base pointer aligned: chosen at launch) and the chunk is inside the matrix; element loads
 *   otherwise.  Ragged edges need no padded copies: rows of X and columns of Y past the edge are
 *   read clamped (they feed only outputs never stored), k past its end reads zeros, and a block
 *   on C's edge stores element by element.
 * - STAGES = 2: double buffering.  The next k-tile is loaded from global memory into registers
 *   while the current one is multiplied out of shared memory, then stored into the other buffer:
 *   one barrier per k-tile and the global latency hidden behind BK·TM·TN multiply-adds.
 *
 * Zeros fill the tile past k in both X and Y, so padding adds 0·0 and never meets an Inf of the
 * matrix; products accumulate in increasing k.  Index products are 64-bit.
 */
#ifndef TILEMM_KERNELS_REGTILE_CUH
#define TILEMM_KERNELS_REGTILE_CUH

#include "kernels_types.cuh"

/* One kernel configuration.  Its tile shape is named in src/common/cuda_variant_list.h (kernels.cu checks). */
template <typename T_, int BM_, int BN_, int BK_, int TM_, int TN_, int PAD_, int STAGES_,
          int MIN_BLOCKS_, int MIN_BLOCKS_PRE_HOPPER_ = MIN_BLOCKS_>
struct regtile_config
{
  typedef T_ T;
  static constexpr int BM = BM_, BN = BN_, BK = BK_; /* block tile of C', k step        */
  static constexpr int TM = TM_, TN = TN_;           /* thread tile of C'               */
  static constexpr int PAD = PAD_;                   /* elements added to xs rows      */
  static constexpr int STAGES = STAGES_;             /* 1: load, sync, compute; 2: double-buffered */
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;     /* __launch_bounds__ occupancy ask */
  /* Before sm_90 ptxas needs a few more registers for the same code: where 2 blocks per SM would
   * spill there, ask for 1 (spill-free on every target of the fat binary). */
  static constexpr int MIN_BLOCKS_PRE_HOPPER = MIN_BLOCKS_PRE_HOPPER_;
  static constexpr int TX = BN / TN, TY = BM / TM;   /* threads across, down           */
  static constexpr int THREADS = TX * TY;
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define TILEMM_MIN_BLOCKS(Cfg) Cfg::MIN_BLOCKS_PRE_HOPPER
#else
#define TILEMM_MIN_BLOCKS(Cfg) Cfg::MIN_BLOCKS
#endif

template <class Cfg, bool WIDE_X, bool WIDE_Y>
__global__ void __launch_bounds__ (Cfg::THREADS, TILEMM_MIN_BLOCKS (Cfg))
regtile_kernel (kmatrix<typename Cfg::T> c, kmatrix<const typename Cfg::T> x,
                kmatrix<const typename Cfg::T> y)
{
  typedef typename Cfg::T T;
  constexpr int VW = vec16<T>::n;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
  constexpr int TX = Cfg::TX, TY = Cfg::TY, NT = Cfg::THREADS, STAGES = Cfg::STAGES;
  constexpr int LDX = BM + Cfg::PAD; /* shared pitches, in elements */
  constexpr int LDY = BN;
  constexpr int XCPR = BK / VW;      /* 16-byte chunks per row of X's tile     */
  constexpr int XPT = BM * XCPR / NT; /* chunks of X's tile each thread copies */
  constexpr int YCPR = BN / VW;      /* chunks per row of Y's tile             */
  constexpr int YPT = BK * YCPR / NT;
  static_assert (TX * TY == NT && TX % 8 == 0 && TY % 4 == 0, "a warp is 4 ty by 8 tx");
  static_assert (TM % VW == 0 && TN % VW == 0, "thread tiles are whole 16-byte chunks");
  static_assert (BK % VW == 0 && XCPR % 2 == 0 && BM % 16 == 0, "copy: 16 rows x 2 chunks a warp");
  static_assert (XPT * NT == BM * XCPR && YPT * NT == BK * YCPR, "copies divide among threads");
  static_assert ((LDX * sizeof (T)) % 16 == 0 && (LDY * sizeof (T)) % 16 == 0, "16-byte rows");
  static_assert (STAGES == 1 || STAGES == 2, "one or two shared buffers");

  __shared__ __align__ (16) T xs[STAGES][BK][LDX];
  __shared__ __align__ (16) T ys[STAGES][BK][LDY];

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int tx = (warp % (TX / 8)) * 8 + lane % 8;
  const int ty = (warp / (TX / 8)) * 4 + lane / 8;
  const int64_t row0 = (int64_t) blockIdx.y * BM, col0 = (int64_t) blockIdx.x * BN;
  const int64_t K = x.width;

  /* This thread's share of the copies: fixed rows of X and columns of Y, walked along k.  Rows
   * of X past its height and columns of Y past its width are read CLAMPED to the last one: they
   * feed only outputs that are never stored, and the loads need no test.  Past k, both tiles get
   * zeros (a clamped value could be an Inf, and Inf·0 would reach a stored output). */
  int xrow[XPT], xk[XPT];
  const T *xq[XPT]; /* chunk of X at the k-tile to fetch next */
#pragma unroll
  for (int i = 0; i < XPT; i++)
    {
      const int q = tid + i * NT, g = q / 32, l = q % 32;
      xrow[i] = (g / (XCPR / 2)) * 16 + l % 16;
      xk[i] = ((g % (XCPR / 2)) * 2 + l / 16) * VW;
      const int64_t row = row0 + xrow[i] < x.height ? row0 + xrow[i] : x.height - 1;
      xq[i] = x.e + row * x.stride + xk[i];
    }
  int yk[YPT], ycol[YPT];
  int ylast[YPT];      /* the chunk's last element inside Y's width, 0 … VW-1 */
  bool ychunk_in[YPT]; /* the whole 16-byte chunk lies inside Y's width      */
  const T *yq[YPT];    /* chunk of Y (clamped) at the k-tile to fetch next   */
#pragma unroll
  for (int i = 0; i < YPT; i++)
    {
      const int q = tid + i * NT;
      yk[i] = q / YCPR;
      ycol[i] = (q % YCPR) * VW;
      const int64_t col = col0 + ycol[i] < y.width ? col0 + ycol[i] : y.width - 1;
      ylast[i] = y.width - 1 - col < VW - 1 ? (int) (y.width - 1 - col) : VW - 1;
      ychunk_in[i] = col0 + ycol[i] + VW <= y.width;
      yq[i] = y.e + yk[i] * y.stride + col;
    }
  const int64_t ystep = (int64_t) BK * y.stride;

  T xv[XPT][VW], yv[YPT][VW]; /* the k-tile in flight */

  /* Fetches the next k-tile into registers; krem < BK only for the last, partial one. */
  auto fetch = [&] (int krem) {
#pragma unroll
    for (int i = 0; i < XPT; i++)
      {
        if (WIDE_X && krem >= BK)
          vec16<T>::load (xv[i], xq[i]);
        else
#pragma unroll
          for (int e = 0; e < VW; e++)
            xv[i][e] = xk[i] + e < krem ? xq[i][e] : elem_zero<T> ();
        xq[i] += BK;
      }
#pragma unroll
    for (int i = 0; i < YPT; i++)
      {
        if (yk[i] >= krem)
          {
#pragma unroll
            for (int e = 0; e < VW; e++)
              yv[i][e] = elem_zero<T> ();
          }
        else if (WIDE_Y && ychunk_in[i])
          vec16<T>::load (yv[i], yq[i]);
        else
          {
#pragma unroll
            for (int e = 0; e < VW; e++)
              yv[i][e] = e <= ylast[i] ? yq[i][e] : elem_zero<T> ();
          }
        yq[i] += ystep;
      }
  };

  auto stash = [&] (int s) {
#pragma unroll
    for (int i = 0; i < XPT; i++)
#pragma unroll
      for (int e = 0; e < VW; e++)
        xs[s][xk[i] + e][xrow[i]] = xv[i][e];
#pragma unroll
    for (int i = 0; i < YPT; i++)
      vec16<T>::store (&ys[s][yk[i]][ycol[i]], yv[i]);
  };

  T acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++)
      acc[i][j] = elem_zero<T> ();

  auto multiply = [&] (int s) {
#pragma unroll
    for (int kk = 0; kk < BK; kk++)
      {
        T a[TM], b[TN];
#pragma unroll
        for (int j = 0; j < TM / VW; j++)
          vec16<T>::load (&a[j * VW], &xs[s][kk][j * TY * VW + ty * VW]);
#pragma unroll
        for (int j = 0; j < TN / VW; j++)
          vec16<T>::load (&b[j * VW], &ys[s][kk][j * TX * VW + tx * VW]);
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
          for (int j = 0; j < TN; j++)
            elem_madd (acc[i][j], a[i], b[j]);
      }
  };

  /* The launcher keeps the tile count an int.  Every k-tile is full but perhaps the last. */
  const int ntiles = (int) ((K + BK - 1) / BK);
  const int klast = (int) (K - (int64_t) (ntiles - 1) * BK);
  auto remaining = [&] (int t) { return t + 1 < ntiles ? BK : klast; };
  if constexpr (STAGES == 2)
    {
      if (ntiles > 0)
        {
          fetch (remaining (0));
          stash (0);
        }
      __syncthreads ();
      for (int t = 0; t < ntiles; t++)
        {
          const int s = t & 1;
          if (t + 1 < ntiles)
            fetch (remaining (t + 1)); /* in flight while this tile is multiplied */
          multiply (s);
          if (t + 1 < ntiles)
            stash (s ^ 1); /* the other buffer: last read before the previous barrier */
          __syncthreads ();
        }
    }
  else
    {
      for (int t = 0; t < ntiles; t++)
        {
          fetch (remaining (t));
          stash (0);
          __syncthreads ();
          multiply (0);
          __syncthreads ();
        }
    }

  /* Store the thread tile.  A block wholly inside C' stores 16 bytes at a time with no test; a
   * block on C's edge stores element by element, never past the edge. */
  const bool block_inside = row0 + BM <= c.height && col0 + BN <= c.width;
  if (WIDE_Y && block_inside)
    {
#pragma unroll
      for (int i = 0; i < TM; i++)
        {
          T *crow = c.e + (row0 + (i / VW) * TY * VW + ty * VW + i % VW) * c.stride + col0;
#pragma unroll
          for (int j = 0; j < TN / VW; j++)
            vec16<T>::store (crow + j * TX * VW + tx * VW, &acc[i][j * VW]);
        }
    }
  else
    store_tile_at_edge<TM, TN, VW, TX, TY> (c, acc, row0, col0, ty, tx);
}

#endif /* TILEMM_KERNELS_REGTILE_CUH */
