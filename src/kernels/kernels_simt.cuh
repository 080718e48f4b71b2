/* kernels_simt.cuh — variants 6, 7, 12 and 13 (single, complex single): register-tiled FFMA
 * kernels fed by a multi-stage cp.async pipeline, with the next k's fragments loaded while this
 * k's are used.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * C' = X·Y row-major, as in kernels_regtile.cuh (variant 3), whose register tile and thread layout
 * this keeps: each thread a TM×TN tile of C' in chunks of 16 bytes, a warp 4 ty × 8 tx, X's tile
 * stored k-major in shared memory so a thread's TM values for one k are 16-byte loads.  What
 * changes, each aimed at a cost measured on variant 3 (bench/NOTES.md):
 *
 * - Global to shared by cp.async, STAGES tiles in flight: no registers hold the next tile, no
 *   shared stores in the inner loop, one barrier per k-tile, and the loads of tile t+STAGES-1 are
 *   issued while tile t is multiplied.  X's tile is transposed on the way: each element is its
 *   own 4-byte copy (a warp covers 4 rows × 8 k: 128 contiguous bytes of global memory per row
 *   sector pair, and 32 distinct banks in shared memory with rows LDX = BM + 4 apart).
 * - Fragment double buffering: the TM + TN values of k+1 are loaded while the TM·TN FMAs of k run,
 *   and across the barrier, those of the next tile's first k.
 * - Ragged edges by zero fill: copies past X's rows, Y's columns or k read nothing and leave
 *   zeros, so past k both operands are zero (0·0 never meets an Inf of the matrix), and only the
 *   stores test the edge.
 * - Split k (gridDim.z > 1, kernels_async.cuh) and a grouped block order.
 *
 * Complex (CPLX): the complex product is computed as a real one on the same bytes.  X's rows read
 * as reals are (xr0, xi0, xr1, xi1, …): real k = 2k' + {0, 1}.  Y's shared tile holds complex rows
 * as they are; real k 2k' uses (yr, yi) and real k 2k'+1 uses (−yi, yr), so the real accumulators
 * of a complex output (re, im) get, per k', re += xr·yr, re += xi·(−yi), im += xr·yi,
 * im += xi·yr: the same fused steps in the same order as elem_madd (kernels_types.cuh), with the
 * negation folded into the FFMA.  C' is written as reals (re, im interleaved): the launcher hands
 * the kernel the real readings of X and C' (twice as wide) and Y as it is.
 */
#ifndef TILEMM_KERNELS_SIMT_CUH
#define TILEMM_KERNELS_SIMT_CUH

#include "kernels_async.cuh"
#include "kernels_types.cuh"

template <typename R_, bool CPLX_, int BM_, int BN_, int BK_, int TM_, int TN_, int STAGES_,
          int MIN_BLOCKS_, int FRAG_BUFS_ = 2, int MIN_BLOCKS_PRE_HOPPER_ = MIN_BLOCKS_>
struct simt_config
{
  typedef R_ R;                                     /* the real type: float                 */
  static constexpr bool CPLX = CPLX_;
  static constexpr int BM = BM_, BN = BN_, BK = BK_; /* block tile of C' in reals, real k step */
  static constexpr int TM = TM_, TN = TN_;
  static constexpr int STAGES = STAGES_, MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr int FRAG_BUFS = FRAG_BUFS_; /* 2: k+1's fragments load while k's are used */
  /* before sm_90 ptxas needs a few more registers for the same code: where 2 blocks per SM would
   * spill there, ask for 1 (as variant 3 does) */
  static constexpr int MIN_BLOCKS_PRE_HOPPER = MIN_BLOCKS_PRE_HOPPER_;
  static constexpr int TX = BN / TN, TY = BM / TM, THREADS = TX * TY;
  static constexpr int VW = 16 / (int) sizeof (R);  /* reals per 16 bytes                    */
  static constexpr int KS = CPLX ? 2 : 1;           /* real k per row of Y                   */
  static constexpr int PAD = VW;                    /* xs rows: BM + PAD (see the header)    */
  static constexpr int LDX = BM + PAD, LDY = BN;
  static constexpr int YROWS = BK / KS;
  static constexpr int STAGE_ELEMS = BK * LDX + YROWS * LDY;
  static constexpr int SMEM_BYTES = STAGES * STAGE_ELEMS * (int) sizeof (R);
  /* tile numbers as the table of variants gives them: complex columns count complex elements */
  static constexpr int TABLE_COLS = CPLX ? BN / 2 : BN;
  static constexpr int TABLE_DEPTH = CPLX ? BK / 2 : BK;
  /* true (a configuration derived from this one says so): a block wholly inside X's rows and Y's
   * columns copies its whole k-tiles without the per-copy edge tests (fewer instructions in the
   * k-loop; kernels of configurations that leave it false are unchanged) */
  static constexpr bool FAST_INTERIOR = false;
};

template <class Cfg, bool WIDE_Y, bool SPLIT>
__global__ void __launch_bounds__ (Cfg::THREADS, TILEMM_ASYNC_MIN_BLOCKS (Cfg))
simt_kernel (kmatrix<typename Cfg::R> c, kmatrix<const typename Cfg::R> x,
             kmatrix<const typename Cfg::R> y, ksplit split)
{
  typedef typename Cfg::R R;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, TM = Cfg::TM, TN = Cfg::TN;
  constexpr int TX = Cfg::TX, TY = Cfg::TY, NT = Cfg::THREADS, STAGES = Cfg::STAGES;
  constexpr int VW = Cfg::VW, KS = Cfg::KS, LDX = Cfg::LDX, LDY = Cfg::LDY, YROWS = Cfg::YROWS;
  constexpr int XE = BM * BK / NT;            /* X elements each thread copies per tile */
  constexpr int YCPR = BN / VW;               /* 16-byte chunks per row of Y's tile      */
  constexpr int YC = YROWS * YCPR / NT;       /* chunks of Y each thread copies per tile */
  constexpr int NSTEP = BK / KS;              /* rows of Y's tile: one k-step each       */
  static_assert (TX * TY == NT && TX % 8 == 0 && TY % 4 == 0, "a warp is 4 ty by 8 tx");
  static_assert (TM % VW == 0 && TN % VW == 0, "thread tiles are whole 16-byte chunks");
  static_assert (BK % 8 == 0 && BM % 4 == 0 && XE * NT == BM * BK, "X copy: 4 rows x 8 k a warp");
  static_assert (YC * NT == YROWS * YCPR, "Y copy divides among threads");
  static_assert (STAGES >= 2, "a pipeline has two stages or more");
  static_assert (!Cfg::CPLX || TN % 2 == 0, "complex columns come in pairs");

  TILEMM_DYNAMIC_SMEM (smem_raw);
  R *const smem = reinterpret_cast<R *> (smem_raw);

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int tx = (warp % (TX / 8)) * 8 + lane % 8;
  const int ty = (warp / (TX / 8)) * 4 + lane / 8;
  int tile_row, tile_col;
  block_tile (tile_row, tile_col);
  int64_t row0 = (int64_t) tile_row * BM, col0 = (int64_t) tile_col * BN;
  const int64_t K = SPLIT ? split_views<KS> (c, x, y, split) : x.width; /* real k (of the split) */

  /* This thread's copies.  X: element q = tid + i·NT is (row, k), a warp covering 4 rows and 8
   * consecutive k, stored at xs[k][row]; since NT/32 is a multiple of BK/8, a thread's k is the same
   * for every i and its rows are XROWSTEP apart.  Y: chunk q is row q / YCPR, reals (q % YCPR)·VW;
   * since NT is a multiple of YCPR, a thread's column is the same for every i. */
  constexpr int KG = BK / 8, XROWSTEP = NT / 32 / KG * 4, YROWSTEP = NT / YCPR;
  static_assert ((NT / 32) % KG == 0 && NT % YCPR == 0, "copies keep one column per thread");
  static_assert (XE <= 32 && YC <= 32, "row masks fit a word");
  const int xk0 = (warp % KG) * 8 + lane % 8, xrow0 = (warp / KG) * 4 + lane / 8;
  unsigned xmask = 0; /* bit i: row xrow0 + i·XROWSTEP is inside X */
#pragma unroll
  for (int i = 0; i < XE; i++)
    xmask |= (row0 + xrow0 + i * XROWSTEP < x.height ? 1u : 0u) << i;
  const R *xp = x.e + (row0 + xrow0) * x.stride + xk0; /* advanced BK per tile issued */
  const int yrow0 = tid / YCPR, ycol0 = (tid % YCPR) * VW;
  const int64_t yleft = y.width - (col0 + ycol0);
  const int ycount = yleft <= 0 ? 0 : yleft >= VW ? VW : (int) yleft; /* reals of the chunk inside Y */
  const R *yp = y.e + (int64_t) yrow0 * y.stride + col0 + ycol0; /* advanced YROWS rows per tile */
  /* Every k-tile is whole but perhaps the last (the launcher keeps the tile count an int). */
  const int ntiles = (int) ((K + BK - 1) / BK);
  const int klast = (int) (K - (int64_t) (ntiles - 1) * BK); /* real k of the last tile */
  /* Every copy of a whole k-tile of such a block reads inside the matrices (FAST_INTERIOR). */
  const bool interior = Cfg::FAST_INTERIOR && row0 + BM <= x.height && col0 + BN <= y.width;

  /* Issues the copies of k-tile `tile` (the next one: xp and yp point at it) into stage s. */
  auto load_tile = [&] (int s, int tile) {
    R *xs = smem + s * Cfg::STAGE_ELEMS;
    R *ys = xs + BK * LDX;
    const bool last = tile + 1 == ntiles;
    if constexpr (Cfg::FAST_INTERIOR)
      if (interior && !last)
        {
#pragma unroll
          for (int i = 0; i < XE; i++)
            cp_async<sizeof (R)> (&xs[xk0 * LDX + xrow0 + i * XROWSTEP],
                                  xp + (int64_t) i * XROWSTEP * x.stride, (int) sizeof (R));
#pragma unroll
          for (int i = 0; i < YC; i++)
            {
              const R *src = yp + (int64_t) i * YROWSTEP * y.stride;
              R *dst = &ys[(yrow0 + i * YROWSTEP) * LDY + ycol0];
              if (WIDE_Y)
                cp_async<16> (dst, src, 16);
              else
#pragma unroll
                for (int e = 0; e < VW; e++)
                  cp_async<sizeof (R)> (dst + e, src + e, (int) sizeof (R));
            }
          xp += BK;
          yp += (int64_t) YROWS * y.stride;
          return;
        }
    const bool kin = !last || xk0 < klast;
#pragma unroll
    for (int i = 0; i < XE; i++)
      {
        const bool in = kin && (xmask >> i & 1u);
        cp_async<sizeof (R)> (&xs[xk0 * LDX + xrow0 + i * XROWSTEP],
                              in ? xp + (int64_t) i * XROWSTEP * x.stride : x.e,
                              in ? (int) sizeof (R) : 0);
      }
#pragma unroll
    for (int i = 0; i < YC; i++)
      {
        const bool in = ycount > 0 && (!last || yrow0 + i * YROWSTEP < klast / KS);
        const R *src = in ? yp + (int64_t) i * YROWSTEP * y.stride : y.e;
        R *dst = &ys[(yrow0 + i * YROWSTEP) * LDY + ycol0];
        if (WIDE_Y)
          cp_async<16> (dst, src, in ? ycount * (int) sizeof (R) : 0);
        else
#pragma unroll
          for (int e = 0; e < VW; e++)
            cp_async<sizeof (R)> (dst + e, in && e < ycount ? src + e : y.e,
                                  in && e < ycount ? (int) sizeof (R) : 0);
      }
    xp += BK;
    yp += (int64_t) YROWS * y.stride;
  };

  /* Fragments of one k-step: KS rows of X's tile (TM each), one row of Y's (TN). */
  constexpr int FB = Cfg::FRAG_BUFS;
  R fa[FB][KS][TM], fb[FB][TN];
  auto load_frag = [&] (int s, int step, int buf) {
    const R *xs = smem + s * Cfg::STAGE_ELEMS;
    const R *ys = xs + BK * LDX;
#pragma unroll
    for (int h = 0; h < KS; h++)
#pragma unroll
      for (int j = 0; j < TM / VW; j++)
        vec16<R>::load (&fa[buf][h][j * VW], &xs[(step * KS + h) * LDX + j * TY * VW + ty * VW]);
#pragma unroll
    for (int j = 0; j < TN / VW; j++)
      vec16<R>::load (&fb[buf][j * VW], &ys[step * LDY + j * TX * VW + tx * VW]);
  };

  R acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++)
      acc[i][j] = (R) 0;

  auto compute = [&] (int buf) {
    if constexpr (!Cfg::CPLX)
      {
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
          for (int j = 0; j < TN; j++)
            acc[i][j] = fma (fa[buf][0][i], fb[buf][j], acc[i][j]);
      }
    else
      {
#pragma unroll
        for (int h = 0; h < 2; h++) /* real k 2k' (h = 0), then 2k'+1 */
#pragma unroll
          for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TN; j += 2)
              {
                const R yr = fb[buf][j], yi = fb[buf][j + 1];
                acc[i][j] = fma (fa[buf][h][i], h == 0 ? yr : -yi, acc[i][j]);
                acc[i][j + 1] = fma (fa[buf][h][i], h == 0 ? yi : yr, acc[i][j + 1]);
              }
      }
  };

#pragma unroll
  for (int s = 0; s < STAGES - 1; s++)
    {
      if (s < ntiles)
        load_tile (s, s);
      cp_async_commit ();
    }
  if (ntiles > 0)
    {
      cp_async_wait<STAGES - 2> ();
      __syncthreads ();
      if (FB == 2)
        load_frag (0, 0, 0);
    }
  /* Stages in turn: tile t is multiplied out of stage cs = t mod STAGES while tile t+STAGES-1 is
   * copied into ls, the stage tile t-1 used (every thread passed the barrier after its last read
   * of it). */
  int cs = 0, ls = STAGES - 1;
  for (int t = 0; t < ntiles; t++)
    {
      if (t + STAGES - 1 < ntiles)
        load_tile (ls, t + STAGES - 1);
      cp_async_commit ();
      const int ns = cs + 1 == STAGES ? 0 : cs + 1;
#pragma unroll
      for (int step = 0; step < NSTEP; step++)
        {
          if constexpr (FB == 2)
            {
              if (step + 1 < NSTEP)
                load_frag (cs, step + 1, (step + 1) % 2);
              else if (t + 1 < ntiles)
                {
                  cp_async_wait<STAGES - 2> (); /* tile t+1 has landed (this thread's part) */
                  __syncthreads ();             /* … and everyone's                         */
                  load_frag (ns, 0, (step + 1) % 2);
                }
              compute (step % 2);
            }
          else
            {
              load_frag (cs, step, 0);
              compute (0);
            }
        }
      if (FB == 1 && t + 1 < ntiles)
        {
          cp_async_wait<STAGES - 2> ();
          __syncthreads ();
        }
      cs = ns;
      ls = ls + 1 == STAGES ? 0 : ls + 1;
    }
  cp_async_wait<0> (); /* no copy may outlive the block (empty groups only, but be plain) */

  /* Store the thread tile: 16 bytes at a time where the block is inside C' and C' allows it,
   * element by element on the edge.  The tile's place is worked out again, not kept live. */
  {
    int tr, tc;
    block_tile<true> (tr, tc);
    row0 = (int64_t) tr * BM;
    col0 = (int64_t) tc * BN;
  }
  const bool block_inside = row0 + BM <= c.height && col0 + BN <= c.width;
  if (WIDE_Y && block_inside)
    {
      /* One running pointer (64-bit addresses for all TM rows at once would cost registers). */
      R *crow = c.e + (row0 + ty * VW) * c.stride + col0 + tx * VW;
#pragma unroll
      for (int i = 0; i < TM; i++)
        {
#pragma unroll
          for (int j = 0; j < TN / VW; j++)
            vec16<R>::store (crow + j * TX * VW, &acc[i][j * VW]);
          crow += (i % VW == VW - 1 ? (TY - 1) * VW + 1 : 1) * c.stride;
        }
    }
  else
    store_tile_at_edge<TM, TN, VW, TX, TY> (c, acc, row0, col0, ty, tx);
}

#endif /* TILEMM_KERNELS_SIMT_CUH */
