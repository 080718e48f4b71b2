/* kernels_dmma.cuh — variants 8 to 10 (double, complex double): the FP64 tensor cores.  Each warp
 * computes a WTM×WTN tile of C' with mma.sync f64 (DMMA in SASS), fed from padded shared-memory
 * tiles that a multi-stage cp.async pipeline fills.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The arithmetic is IEEE double: a DMMA is a sequence of fused multiply-adds, one rounding each, in
 * increasing k (its results are bitwise those of the FMA kernels on the tests and benchmark).  The
 * unit of work is a 16×8×8 product in the fragment layout of mma.m16n8k8.f64 (PTX ISA, sm_90):
 *   A (16×8, rows of X):  a[0] = A(g, t), a[1] = A(g+8, t), a[2] = A(g, t+4), a[3] = A(g+8, t+4)
 *   B (8×8, rows of Y):   b[0] = B(t, g), b[1] = B(t+4, g)
 *   C (16×8):             c[0..1] = C(g, 2t…2t+1), c[2..3] = C(g+8, 2t…2t+1)
 * with g = lane / 4 and t = lane % 4.  On sm_90 with MMA = 1688 it is one instruction; otherwise
 * (sm_80 … sm_89, and MMA = 884 everywhere) four m8n8k4 instructions, whose layouts are the same
 * pieces: rows g of A with columns t and t+4, rows g+8 likewise, B's rows t and t+4, in the order
 * k 0–3 then 4–7.  Before sm_80 there is no DMMA: the launcher runs a register-tiled variant there.
 *
 * Shared memory, per stage: X's tile row-major as it is in global memory (xs[BM][BK+4]), Y's tile
 * row-major (ys[BK][BN+4]).  The pads make every fragment load conflict-free: an 8-byte load is
 * served half a warp at a time, and the 16 lanes of a half read 4 rows × 4 consecutive doubles; a
 * row pitch of 32 bytes modulo 128 puts the 4 rows on 4 distinct groups of 8 banks.  The copies
 * are 16-byte cp.async (8-byte where the matrix is not 16-byte aligned), one row of a tile per
 * quarter warp, zero-filled past the edges and past k.
 *
 * Complex (CPLX): a real product on the same bytes, as in kernels_simt.cuh.  X read as reals has
 * real k = 2k' + {0, 1}; Y's complex rows stay as they are in shared memory (BK/2 of them), and the
 * real operand B(2k'+a, 2j+b) is re(Y(k', j)) when a = b, im(Y(k', j)) when a = 0, b = 1, and
 * −im(Y(k', j)) when a = 1, b = 0.  Each lane's (a, b) is fixed (a = t mod 2, b = g mod 2), so its
 * B values are plain loads with one sign flip; the accumulators then take, per k', re += xr·yr,
 * re += xi·(−yi), im += xr·yi, im += xi·yr: elem_madd's steps in elem_madd's order.
 */
#ifndef TILEMM_KERNELS_DMMA_CUH
#define TILEMM_KERNELS_DMMA_CUH

#include "kernels_async.cuh"
#include "kernels_types.cuh"

template <bool CPLX_, int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, int MMA_,
          int MIN_BLOCKS_>
struct dmma_config
{
  typedef double R;
  static constexpr bool CPLX = CPLX_;
  static constexpr int BM = BM_, BN = BN_, BK = BK_; /* block tile of C' in reals, real k step */
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
  static constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N; /* warp tile                  */
  static constexpr int MI = WTM / 16, NI = WTN / 8;             /* 16×8 pieces per warp tile */
  static constexpr int STAGES = STAGES_, MMA = MMA_, MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
  static constexpr int KS = CPLX ? 2 : 1; /* real k per row of Y */
  static constexpr int LDX = BK + 4, LDY = BN + 4;
  static constexpr int YROWS = BK / KS;
  static constexpr int STAGE_ELEMS = BM * LDX + YROWS * LDY;
  static constexpr int SMEM_BYTES = STAGES * STAGE_ELEMS * 8;
  static constexpr int TABLE_COLS = CPLX ? BN / 2 : BN;
  static constexpr int TABLE_DEPTH = CPLX ? BK / 2 : BK;
};

/* c += a·b for one 16×8×8 piece (layouts above). */
template <int MMA>
__device__ __forceinline__ void dmma_16x8x8 (double (&c)[4], const double (&a)[4],
                                             const double (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (MMA == 1688)
    {
      asm ("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
           "{%8,%9}, {%0,%1,%2,%3};\n"
           : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
           : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
      return;
    }
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
       : "+d"(c[0]), "+d"(c[1]) : "d"(a[0]), "d"(b[0]));
  asm ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
       : "+d"(c[0]), "+d"(c[1]) : "d"(a[2]), "d"(b[1]));
  asm ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
       : "+d"(c[2]), "+d"(c[3]) : "d"(a[1]), "d"(b[0]));
  asm ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
       : "+d"(c[2]), "+d"(c[3]) : "d"(a[3]), "d"(b[1]));
#elif defined(TILEMM_EMULATE)
  tilemm_emu_dmma_16x8x8 (c, a, b);
#else
  (void) c, (void) a, (void) b;
#endif
}

template <class Cfg, bool WIDE_X, bool WIDE_Y, bool SPLIT>
__global__ void __launch_bounds__ (Cfg::THREADS, Cfg::MIN_BLOCKS)
dmma_kernel (kmatrix<double> c, kmatrix<const double> x, kmatrix<const double> y, ksplit split)
{
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800) || defined(TILEMM_EMULATE)
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, MI = Cfg::MI, NI = Cfg::NI;
  constexpr int WTM = Cfg::WTM, WTN = Cfg::WTN, NT = Cfg::THREADS, STAGES = Cfg::STAGES;
  constexpr int KS = Cfg::KS, LDX = Cfg::LDX, LDY = Cfg::LDY, YROWS = Cfg::YROWS;
  constexpr int XCPR = BK / 2, XC = BM * XCPR / NT;    /* X: 16-byte chunks per row, per thread */
  constexpr int YCPR = BN / 2, YC = YROWS * YCPR / NT; /* Y likewise                            */
  constexpr int XROWSTEP = NT / XCPR, YROWSTEP = NT / YCPR;
  static_assert (BK % 8 == 0 && WTM % 16 == 0 && WTN % 8 == 0, "whole 16x8x8 pieces");
  static_assert (XC * NT == BM * XCPR && YC * NT == YROWS * YCPR, "copies divide among threads");
  static_assert (NT % XCPR == 0 && NT % YCPR == 0, "one column of chunks per thread");
  static_assert (LDX % 16 == 4 && LDY % 16 == 4, "pads for conflict-free fragment loads");
  static_assert (STAGES >= 2, "a pipeline has two stages or more");

  TILEMM_DYNAMIC_SMEM (smem_raw);
  double *const smem = reinterpret_cast<double *> (smem_raw);

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = warp % Cfg::WARPS_M, wn = warp / Cfg::WARPS_M;
  int tile_row, tile_col;
  block_tile (tile_row, tile_col);
  const int64_t row0 = (int64_t) tile_row * BM, col0 = (int64_t) tile_col * BN;
  const int64_t K = SPLIT ? split_views<KS> (c, x, y, split) : x.width;
  const int64_t KY = K / KS;

  /* Copies: X chunk q = tid + i·NT is row q / XCPR, k (q % XCPR)·2; Y chunk q is row q / YCPR,
   * reals (q % YCPR)·2. */
  const int xrow0 = tid / XCPR, xk0 = (tid % XCPR) * 2;
  const double *const xp = x.e + (row0 + xrow0) * x.stride + xk0;
  const int64_t xstep = (int64_t) XROWSTEP * x.stride;
  const int yrow0 = tid / YCPR, ycol0 = (tid % YCPR) * 2;
  const int64_t yleft = y.width - (col0 + ycol0);
  const int ycount = yleft <= 0 ? 0 : yleft >= 2 ? 2 : 1; /* reals of the chunk inside Y */
  const double *const yp = y.e + (int64_t) yrow0 * y.stride + col0 + ycol0;
  const int64_t ystep = (int64_t) YROWSTEP * y.stride;

  auto load_tile = [&] (int s, int tile) {
    double *xs = smem + s * Cfg::STAGE_ELEMS;
    double *ys = xs + BM * LDX;
    const int64_t kt = (int64_t) tile * BK;
    const int64_t kleft = K - (kt + xk0);
    const int xcount = kleft <= 0 ? 0 : kleft >= 2 ? 2 : 1;
#pragma unroll
    for (int i = 0; i < XC; i++)
      {
        const int n = row0 + xrow0 + i * XROWSTEP < x.height ? xcount : 0;
        const double *src = n ? xp + i * xstep + kt : x.e;
        double *dst = &xs[(xrow0 + i * XROWSTEP) * LDX + xk0];
        if (WIDE_X)
          cp_async<16> (dst, src, n * 8);
        else
          {
            cp_async<8> (dst, src, n >= 1 ? 8 : 0);
            cp_async<8> (dst + 1, n >= 2 ? src + 1 : x.e, n >= 2 ? 8 : 0);
          }
      }
    const int64_t ky = (int64_t) tile * YROWS;
#pragma unroll
    for (int i = 0; i < YC; i++)
      {
        const int n = ky + yrow0 + i * YROWSTEP < KY ? ycount : 0;
        const double *src = n ? yp + i * ystep + ky * y.stride : y.e;
        double *dst = &ys[(yrow0 + i * YROWSTEP) * LDY + ycol0];
        if (WIDE_Y)
          cp_async<16> (dst, src, n * 8);
        else
          {
            cp_async<8> (dst, src, n >= 1 ? 8 : 0);
            cp_async<8> (dst + 1, n >= 2 ? src + 1 : y.e, n >= 2 ? 8 : 0);
          }
      }
  };

  /* This lane's fragment addresses within a stage (in doubles), and its B sign (complex). */
  const int xfrag = (wm * WTM + g) * LDX + t;
  int yfrag;
  unsigned long long ysign = 0;
  if constexpr (Cfg::CPLX)
    {
      const int a = t & 1, b = g & 1;
      yfrag = (t >> 1) * LDY + wn * WTN + (g & ~1) + (a == b ? 0 : 1);
      ysign = (a == 1 && b == 0) ? 0x8000000000000000ull : 0ull;
    }
  else
    yfrag = t * LDY + wn * WTN + g;

  double acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int e = 0; e < 4; e++)
        acc[i][j][e] = 0.0;

  /* One k-tile: BK/8 steps of MI×NI pieces. */
  auto multiply = [&] (int s) {
    const double *xs = smem + s * Cfg::STAGE_ELEMS;
    const double *ys = xs + BM * LDX;
#pragma unroll
    for (int ks = 0; ks < BK / 8; ks++)
      {
        double a[MI][4], b[NI][2];
#pragma unroll
        for (int i = 0; i < MI; i++)
          {
            const double *p = xs + xfrag + i * 16 * LDX + ks * 8;
            a[i][0] = p[0];
            a[i][1] = p[8 * LDX];
            a[i][2] = p[4];
            a[i][3] = p[8 * LDX + 4];
          }
#pragma unroll
        for (int j = 0; j < NI; j++)
#pragma unroll
          for (int v = 0; v < 2; v++)
            {
              if constexpr (Cfg::CPLX)
                b[j][v] = __longlong_as_double (
                    __double_as_longlong (ys[yfrag + (ks * 4 + v * 2) * LDY + j * 8]) ^ ysign);
              else
                b[j][v] = ys[yfrag + (ks * 8 + v * 4) * LDY + j * 8];
            }
#pragma unroll
        for (int i = 0; i < MI; i++)
#pragma unroll
          for (int j = 0; j < NI; j++)
            dmma_16x8x8<Cfg::MMA> (acc[i][j], a[i], b[j]);
      }
  };

  const int ntiles = (int) ((K + BK - 1) / BK);
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++)
    {
      if (s < ntiles)
        load_tile (s, s);
      cp_async_commit ();
    }
  for (int tile = 0; tile < ntiles; tile++)
    {
      cp_async_wait<STAGES - 2> (); /* tile `tile` has landed (this thread's copies) */
      __syncthreads ();             /* everyone's; and everyone is done with tile-1's stage */
      const int tn = tile + STAGES - 1;
      if (tn < ntiles)
        load_tile (tn % STAGES, tn);
      cp_async_commit ();
      multiply (tile % STAGES);
    }
  cp_async_wait<0> ();

  /* Store: each lane holds pairs of adjacent columns; 16 bytes at once where C' allows it. */
  const bool wide_c = WIDE_Y;
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int h = 0; h < 2; h++)
      {
        const int64_t row = row0 + wm * WTM + i * 16 + h * 8 + g;
        if (row >= c.height)
          continue;
        double *crow = c.e + row * c.stride;
#pragma unroll
        for (int j = 0; j < NI; j++)
          {
            const int64_t col = col0 + wn * WTN + j * 8 + 2 * t;
            if (wide_c && col + 1 < c.width)
              {
                TILEMM_CHECK16 (crow + col);
                *reinterpret_cast<double2 *> (crow + col)
                    = make_double2 (acc[i][j][2 * h], acc[i][j][2 * h + 1]);
              }
            else
              {
                if (col < c.width)
                  crow[col] = acc[i][j][2 * h];
                if (col + 1 < c.width)
                  crow[col + 1] = acc[i][j][2 * h + 1];
              }
          }
      }
#else
  (void) c, (void) x, (void) y, (void) split; /* no DMMA before sm_80: never launched there */
#endif
}

#endif /* TILEMM_KERNELS_DMMA_CUH */
