/* kernels_imma.cuh — the INT8 tensor-core GEMM of the emulated precision (src/common/emulated.h, steps 2
 * and 6): C(i, j) = Σ_p A'(i, p)·B'(j, p) exactly in int32, for int8 operands both stored K-major
 * (the "TN" layout: row i of A' and row j of B' contiguous along k), with one of two epilogues:
 *   MOD   R(i, j) = C(i, j) mod m_z in [0, m_z) as a uint8, in plane z of a column-major stack
 *         (grid.z = the moduli of one launch, each with its own planes of A', B' and R);
 *   STATS the exact S(i, j) of the statistics (int64 across launches when k is longer than one
 *         chunk) and, on the last chunk, the maxima of Q·sb_j / S_ij and Q·sa_i / S_ij.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The unit of work is mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 (IMMA in SASS), with g =
 * lane / 4, t = lane % 4 (PTX ISA, "Matrix fragments for mma.m16n8k32"):
 *   A (16×32):  a[0] = A(g, 4t…4t+3), a[1] = A(g+8, 4t…), a[2] = A(g, 16+4t…), a[3] = A(g+8, 16+4t…)
 *   B (32×8):   b[0] = B(4t…4t+3, g), b[1] = B(16+4t…, g)   (B(p, j) = B'(j, p): row g of B')
 *   C (16×8):   c[0..1] = C(g, 2t…2t+1), c[2..3] = C(g+8, 2t…2t+1)
 * Each is what ldmatrix.x4 gives from 8×16-byte rows: for A the four 8×16 matrices (rows 0–7,
 * k 0–15), (rows 8–15, k 0–15), (rows 0–7, k 16–31), (rows 8–15, k 16–31); for B two n8 pieces
 * at once: (rows j 0–7, k 0–15), (j 0–7, k 16–31), (j 8–15, k 0–15), (j 8–15, k 16–31).
 *
 * Shared memory, per stage: A's tile BM rows × BK bytes and B's BN rows × BK bytes, each row
 * padded to LDS = BK + 16 bytes.  With BK = 64 a row pitch of 80 bytes puts the 8 row addresses
 * of one ldmatrix phase on 8 distinct 16-byte bank groups (80·r mod 128 = 0, 80, 32, 112, 64, 16,
 * 96, 48): conflict-free.  The copies are 16-byte cp.async of whole chunks inside the operand;
 * chunks outside (past row m or n, or past the k range) are plain zero stores, so no cp.async
 * ever zero-fills part of a chunk.  The operands' rows are kp bytes apart with kp a multiple of
 * 16 and the bytes past k zero (the conversion kernels write them), so every chunk that starts
 * inside a row is whole.
 *
 * Exactness: |a·b| ≤ 2^14, so an int32 sum of at most 131071 products is exact.  MOD reduces
 * its accumulators mod m_z (C's %, |r| < m_z) after every chunk_tiles k-tiles, with chunk_tiles·BK
 * ≤ 131071 − 1: the next chunk then adds at most 2^14·(chunk_tiles·BK) + 255 < 2^31.  STATS runs
 * one launch per chunk of k (the host splits), adding to an int64 S in between.
 */
#ifndef TILEMM_KERNELS_IMMA_CUH
#define TILEMM_KERNELS_IMMA_CUH

#include <stdint.h>

#include "emulated.h"
#include "kernels_async.cuh"

enum imma_epilogue { IMMA_MOD = 0, IMMA_STATS = 1 };

template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, int MIN_BLOCKS_>
struct imma_config
{
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
  static constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N; /* warp tile               */
  static constexpr int MI = WTM / 16, NI = WTN / 8;             /* 16×8 pieces of a warp   */
  static constexpr int STAGES = STAGES_, MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
  static constexpr int LDS = BK + 16; /* bytes per shared row */
  static constexpr int STAGE_BYTES = (BM + BN) * LDS;
  static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES;
  static constexpr bool FAST_COPY = false; /* see imma_v2 */
};

/* The default: 128×256×64, 8 warps of 64×64, 4 stages (120 KiB of shared memory, one block per
 * SM), and a 128×128 one with two blocks per SM for products with few tiles. */
typedef imma_config<128, 256, 64, 2, 4, 4, 1> imma_big;
typedef imma_config<128, 128, 64, 2, 4, 4, 2> imma_small;
/* Round 2 (TILEMM_EMU_IMMA=v2): 128×128 tiles of 4 warps of 64×64 (a third less ldmatrix traffic
 * per IMMA than 64×32), 128 bytes of k per stage (rows of 144 bytes: 9 chunks, conflict-free),
 * 3 stages (108 KiB), two blocks per SM.  Its chunk_tiles count 128-byte tiles. */
struct imma_v2 : imma_config<128, 128, 128, 2, 2, 3, 2>
{
  /* The copies' row bounds as a bit mask and their global addresses as one base pointer per
   * operand, set once: the k-loop keeps one k test and an add per copy (the generic path
   * re-derives every 64-bit address and re-reads m, n, kp from the constant bank per copy). */
  static constexpr bool FAST_COPY = true;
};

/* What one launch computes.  Sizes in elements (bytes for the int8 operands). */
struct imma_args
{
  const int8_t *a; /* m × kp, row i at a + i·kp; plane z at a + z·a_plane */
  const int8_t *b; /* n × kp likewise                                    */
  int64_t a_plane, b_plane;
  int64_t m, n, kp;
  int64_t k_begin, k_end; /* the bytes of k this launch sums: k_begin a multiple of BK, k_end of 16 */
  int chunk_tiles;        /* MOD: reduce every chunk_tiles k-tiles (≤ 131071 / BK − 1)           */
  int moduli[TILEMM_EMU_MAX_MODULI]; /* MOD: the modulus of plane z                              */
  /* MOD: R(i, j) of plane z at r[z·r_plane + i + j·ldr]. */
  uint8_t *r;
  int64_t r_plane, ldr;
  /* STATS: s64 (m × n, column-major, ld m) holds the sums of the earlier chunks (first: none)
   * and receives this one's (unless last); on the last chunk the ratios go to ratio_bits[0, 1]
   * (the bits of positive doubles, max by atomicMax). */
  int64_t *s64;
  int first, last;
  const int64_t *sa, *sb;
  const int *ea, *eb;
  unsigned long long *ratio_bits;
  /* The wgmma GEMM's persistent grid: at most this many blocks (the plan's, one a multiprocessor
   * of the device: the call plan's emu_multiprocessors through tilemm_emu_gemm_grid; below 1
   * its launch is refused).  The mma.sync kernels' grid is their tiles'. */
  int blocks;
};

__device__ __forceinline__ void imma_16x8x32 (int (&c)[4], const unsigned (&a)[4],
                                              const unsigned (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                "{%8,%9}, {%0,%1,%2,%3};\n"
                : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(TILEMM_EMULATE)
  tilemm_emu_imma_16x8x32 (c, a, b);
#else
  (void) c, (void) a, (void) b;
#endif
}

__device__ __forceinline__ void ldmatrix_x4 (unsigned (&r)[4], const void *row_address)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned) __cvta_generic_to_shared (row_address);
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                : "r"(s));
#elif defined(TILEMM_EMULATE)
  tilemm_emu_ldmatrix_x4 (r, row_address);
#else
  (void) r, (void) row_address;
#endif
}

/* The STATS epilogue's maxima, max over (i, j) of Q·sb_j / S_ij and of Q·sa_i / S_ij, without a
 * division per element.  Rounding to nearest is monotone, so the largest of the rounded quotients
 * is the rounded quotient of the largest exact fraction: each thread keeps its largest fraction
 * n/d as two integers, found by exact comparison, and divides once at the end, the same
 * (double) n / (double) d as one element's quotient (bitwise the same maximum).  For a fixed
 * numerator the largest fraction has the smallest S, so a row's (or a column's) candidates
 * reduce to its smallest S first.  S_ij ≥ 0 (a sum of products of lo values in [0, Q − 1]);
 * S_ij = 0 is +Inf, held as 1/0. */
constexpr unsigned long long IMMA_NONE = ~0ull; /* no pair: an S or a numerator left out */

/* a/b > c/d for b, d not both 0 (0 stands for +Inf with a = 1): a·d > c·b, exactly. */
__device__ __forceinline__ bool imma_fraction_greater (unsigned long long a, unsigned long long b,
                                                       unsigned long long c, unsigned long long d)
{
  if (((a | b | c | d) >> 32) == 0) /* the statistics' one-launch case: products < 2^64 */
    return a * d > c * b;
  const unsigned long long h1 = __umul64hi (a, d), h2 = __umul64hi (c, b);
  return h1 > h2 || (h1 == h2 && a * d > c * b);
}

struct imma_max_fraction
{
  unsigned long long n, d; /* the largest so far; 0/1 (0.0) before any */
  __device__ __forceinline__ void init ()
  {
    n = 0;
    d = 1;
  }
  /* num / s for a pair's numerator and its smallest S (IMMA_NONE: no pair, nothing offered) */
  __device__ __forceinline__ void offer (unsigned long long num, unsigned long long s)
  {
    const bool any = s != IMMA_NONE;
    const unsigned long long cn = !any ? 0ull : s == 0 ? 1ull : num, cd = any ? s : 1ull;
    if (imma_fraction_greater (cn, cd, n, d))
      {
        n = cn;
        d = cd;
      }
  }
  /* the correctly rounded quotient, as each element's was: numerator and S are below 2^53 */
  __device__ __forceinline__ double value () const
  {
    return d == 0 ? INFINITY : (double) (long long) n / (double) (long long) d;
  }
};

__device__ __forceinline__ unsigned long long imma_min_u64 (unsigned long long x, unsigned long long y)
{
  return x < y ? x : y;
}

/* *p = max(*p, v) for the bits of non-negative doubles (their order is the integers'). */
__device__ __forceinline__ void imma_ratio_max (unsigned long long *p, double v)
{
  atomicMax (p, (unsigned long long) __double_as_longlong (v));
}

template <class Cfg, int EPI>
__global__ void __launch_bounds__ (Cfg::THREADS, Cfg::MIN_BLOCKS) imma_kernel (imma_args args)
{
#if (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800) || defined(TILEMM_EMULATE)
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, MI = Cfg::MI, NI = Cfg::NI;
  constexpr int WTM = Cfg::WTM, WTN = Cfg::WTN, NT = Cfg::THREADS, STAGES = Cfg::STAGES;
  constexpr int LDS = Cfg::LDS, CPR = BK / 16; /* 16-byte chunks per tile row */
  constexpr int AC = BM * CPR / NT, BC = BN * CPR / NT;
  static_assert (BK % 32 == 0 && WTM % 16 == 0 && WTN % 16 == 0, "whole m16n8k32 pieces, B in pairs");
  static_assert (AC * NT == BM * CPR && BC * NT == BN * CPR, "copies divide among threads");
  static_assert (LDS % 128 == 80 || LDS % 128 == 16 || LDS % 128 == 48 || LDS % 128 == 112,
                 "an odd number of 16-byte chunks per row: conflict-free ldmatrix");
  static_assert (STAGES >= 2, "a pipeline has two stages or more");

  TILEMM_DYNAMIC_SMEM (smem);
  __shared__ unsigned long long block_ratio[2];

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = warp % Cfg::WARPS_M, wn = warp / Cfg::WARPS_M;
  int tile_row, tile_col;
  block_tile (tile_row, tile_col);
  const int64_t row0 = (int64_t) tile_row * BM, col0 = (int64_t) tile_col * BN;
  const int z = blockIdx.z;
  const int8_t *const a = args.a + z * args.a_plane;
  const int8_t *const b = args.b + z * args.b_plane;
  const int64_t kp = args.kp;

  auto load_tile = [&] (int s, int64_t kt) {
    unsigned char *as = smem + s * Cfg::STAGE_BYTES;
    unsigned char *bs = as + BM * LDS;
#pragma unroll
    for (int i = 0; i < AC; i++)
      {
        const int q = tid + i * NT, r = q / CPR, c = q % CPR;
        const int64_t row = row0 + r, kb = kt + 16 * c;
        unsigned char *dst = as + r * LDS + 16 * c;
        if (row < args.m && kb < args.k_end)
          cp_async<16> (dst, a + row * kp + kb, 16);
        else
          *reinterpret_cast<uint4 *> (dst) = uint4 {0u, 0u, 0u, 0u};
      }
#pragma unroll
    for (int i = 0; i < BC; i++)
      {
        const int q = tid + i * NT, r = q / CPR, c = q % CPR;
        const int64_t col = col0 + r, kb = kt + 16 * c;
        unsigned char *dst = bs + r * LDS + 16 * c;
        if (col < args.n && kb < args.k_end)
          cp_async<16> (dst, b + col * kp + kb, 16);
        else
          *reinterpret_cast<uint4 *> (dst) = uint4 {0u, 0u, 0u, 0u};
      }
  };

  /* FAST_COPY: this thread's chunks are rows r0 + i·RSTEP, all in column c0 (NT % CPR == 0). */
  constexpr int RSTEP = NT / CPR;
  const int r0 = tid / CPR, c0 = tid % CPR;
  const int8_t *a_src = a, *b_src = b;
  unsigned a_rows = 0, b_rows = 0;
  if constexpr (Cfg::FAST_COPY)
    {
      static_assert (NT % CPR == 0 && AC <= 32 && BC <= 32, "fixed column, row masks in 32 bits");
#pragma unroll
      for (int i = 0; i < AC; i++)
        a_rows |= (row0 + r0 + i * RSTEP < args.m ? 1u : 0u) << i;
#pragma unroll
      for (int i = 0; i < BC; i++)
        b_rows |= (col0 + r0 + i * RSTEP < args.n ? 1u : 0u) << i;
      a_src = a + (row0 + r0) * kp + 16 * c0;
      b_src = b + (col0 + r0) * kp + 16 * c0;
    }
  auto load_tile_fast = [&] (int s, int64_t kt) {
    unsigned char *as = smem + s * Cfg::STAGE_BYTES + r0 * LDS + 16 * c0;
    unsigned char *bs = as + BM * LDS;
    const bool k_in = kt + 16 * c0 < args.k_end;
    const unsigned am = k_in ? a_rows : 0u, bm = k_in ? b_rows : 0u;
    const int8_t *pa = a_src + kt, *pb = b_src + kt;
    const int64_t step = RSTEP * kp;
#pragma unroll
    for (int i = 0; i < AC; i++)
      {
        unsigned char *dst = as + i * RSTEP * LDS;
        if (am >> i & 1u)
          cp_async<16> (dst, pa + i * step, 16);
        else
          *reinterpret_cast<uint4 *> (dst) = uint4 {0u, 0u, 0u, 0u};
      }
#pragma unroll
    for (int i = 0; i < BC; i++)
      {
        unsigned char *dst = bs + i * RSTEP * LDS;
        if (bm >> i & 1u)
          cp_async<16> (dst, pb + i * step, 16);
        else
          *reinterpret_cast<uint4 *> (dst) = uint4 {0u, 0u, 0u, 0u};
      }
  };
  (void) load_tile_fast;

  /* This lane's ldmatrix row addresses within a stage (bytes). */
  const int a_frag = (wm * WTM + (lane % 8) + 8 * ((lane / 8) % 2)) * LDS + 16 * (lane / 16);
  const int b_frag = BM * LDS + (wn * WTN + (lane % 8) + 8 * (lane / 16)) * LDS + 16 * ((lane / 8) % 2);

  int acc[MI][NI][4];
#pragma unroll
  for (int i = 0; i < MI; i++)
#pragma unroll
    for (int j = 0; j < NI; j++)
#pragma unroll
      for (int e = 0; e < 4; e++)
        acc[i][j][e] = 0;

  auto multiply = [&] (int s) {
    const unsigned char *st = smem + s * Cfg::STAGE_BYTES;
#pragma unroll
    for (int ks = 0; ks < BK / 32; ks++)
      {
        unsigned af[MI][4], bf[NI][2];
#pragma unroll
        for (int i = 0; i < MI; i++)
          ldmatrix_x4 (af[i], st + a_frag + i * 16 * LDS + ks * 32);
#pragma unroll
        for (int j = 0; j < NI; j += 2)
          {
            unsigned r[4];
            ldmatrix_x4 (r, st + b_frag + j * 8 * LDS + ks * 32);
            bf[j][0] = r[0];
            bf[j][1] = r[1];
            bf[j + 1][0] = r[2];
            bf[j + 1][1] = r[3];
          }
#pragma unroll
        for (int i = 0; i < MI; i++)
#pragma unroll
          for (int j = 0; j < NI; j++)
            imma_16x8x32 (acc[i][j], af[i], bf[j]);
      }
  };

  const int mod = EPI == IMMA_MOD ? args.moduli[z] : 1;
  const int64_t kbeg = args.k_begin;
  const int ntiles = (int) ((args.k_end - kbeg + BK - 1) / BK);
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++)
    {
      if (s < ntiles)
        {
          if constexpr (Cfg::FAST_COPY)
            load_tile_fast (s, kbeg + (int64_t) s * BK);
          else
            load_tile (s, kbeg + (int64_t) s * BK);
        }
      cp_async_commit ();
    }
  int until_reduce = args.chunk_tiles;
  for (int tile = 0; tile < ntiles; tile++)
    {
      cp_async_wait<STAGES - 2> (); /* tile `tile` has landed (this thread's copies) */
      __syncthreads ();             /* everyone's; and everyone is done with tile-1's stage */
      const int tn = tile + STAGES - 1;
      if (tn < ntiles)
        {
          if constexpr (Cfg::FAST_COPY)
            load_tile_fast (tn % STAGES, kbeg + (int64_t) tn * BK);
          else
            load_tile (tn % STAGES, kbeg + (int64_t) tn * BK);
        }
      cp_async_commit ();
      multiply (tile % STAGES);
      if (EPI == IMMA_MOD && --until_reduce == 0)
        {
          /* the end of a chunk: keep the accumulators small (exact: a sum mod m) */
          until_reduce = args.chunk_tiles;
#pragma unroll
          for (int i = 0; i < MI; i++)
#pragma unroll
            for (int j = 0; j < NI; j++)
#pragma unroll
              for (int e = 0; e < 4; e++)
                acc[i][j][e] %= mod;
        }
    }
  cp_async_wait<0> ();

  if constexpr (EPI == IMMA_MOD)
    {
      uint8_t *const r = args.r + z * args.r_plane;
#pragma unroll
      for (int i = 0; i < MI; i++)
#pragma unroll
        for (int h = 0; h < 2; h++)
          {
            const int64_t row = row0 + wm * WTM + i * 16 + h * 8 + g;
            if (row >= args.m)
              continue;
#pragma unroll
            for (int j = 0; j < NI; j++)
#pragma unroll
              for (int v = 0; v < 2; v++)
                {
                  const int64_t col = col0 + wn * WTN + j * 8 + 2 * t + v;
                  if (col < args.n)
                    {
                      int x = acc[i][j][2 * h + v] % mod;
                      x += x < 0 ? mod : 0;
                      r[row + col * args.ldr] = (uint8_t) x;
                    }
                }
          }
    }
  else
    {
      if (tid < 2)
        block_ratio[tid] = 0ull;
      __syncthreads ();
      double ra = 0.0, rb = 0.0;
      if (!args.last)
        {
          /* an earlier chunk of k: the running sums only */
#pragma unroll
          for (int i = 0; i < MI; i++)
#pragma unroll
            for (int h = 0; h < 2; h++)
              {
                const int64_t row = row0 + wm * WTM + i * 16 + h * 8 + g;
                if (row >= args.m)
                  continue;
#pragma unroll
                for (int j = 0; j < NI; j++)
#pragma unroll
                  for (int v = 0; v < 2; v++)
                    {
                      const int64_t col = col0 + wn * WTN + j * 8 + 2 * t + v;
                      if (col >= args.n)
                        continue;
                      int64_t s = acc[i][j][2 * h + v];
                      int64_t *const sp = args.s64 + row + col * args.m;
                      if (!args.first)
                        s += *sp;
                      *sp = s;
                    }
              }
        }
      else
        {
          /* The rows' numerators Q·sa_i (IMMA_NONE: past m or a zero row) and their smallest S,
           * read before the loop so that no load waits inside it; then column by column the
           * column's numerator, its smallest S over this thread's rows (one candidate of ratio
           * a per column), and each row's smallest S (one candidate of ratio b per row). */
          unsigned long long rnum[MI][2], rmin[MI][2];
#pragma unroll
          for (int i = 0; i < MI; i++)
#pragma unroll
            for (int h = 0; h < 2; h++)
              {
                const int64_t row = row0 + wm * WTM + i * 16 + h * 8 + g;
                rnum[i][h] = row < args.m && args.ea[row] != TILEMM_EMU_ZERO_ROW
                                 ? (unsigned long long) (TILEMM_EMU_Q * args.sa[row])
                                 : IMMA_NONE;
                rmin[i][h] = IMMA_NONE;
              }
          imma_max_fraction best_a, best_b;
          best_a.init ();
          best_b.init ();
#pragma unroll
          for (int j = 0; j < NI; j++)
#pragma unroll
            for (int v = 0; v < 2; v++)
              {
                const int64_t col = col0 + wn * WTN + j * 8 + 2 * t + v;
                const unsigned long long cnum = col < args.n && args.eb[col] != TILEMM_EMU_ZERO_ROW
                                                    ? (unsigned long long) (TILEMM_EMU_Q * args.sb[col])
                                                    : IMMA_NONE;
                unsigned long long cmin = IMMA_NONE;
#pragma unroll
                for (int i = 0; i < MI; i++)
#pragma unroll
                  for (int h = 0; h < 2; h++)
                    if (rnum[i][h] != IMMA_NONE && cnum != IMMA_NONE)
                      {
                        int64_t s = acc[i][j][2 * h + v];
                        if (!args.first)
                          s += args.s64[row0 + wm * WTM + i * 16 + h * 8 + g + col * args.m];
                        rmin[i][h] = imma_min_u64 (rmin[i][h], (unsigned long long) s);
                        cmin = imma_min_u64 (cmin, (unsigned long long) s);
                      }
                best_a.offer (cnum, cmin);
              }
#pragma unroll
          for (int i = 0; i < MI; i++)
#pragma unroll
            for (int h = 0; h < 2; h++)
              best_b.offer (rnum[i][h], rmin[i][h]);
          ra = best_a.value ();
          rb = best_b.value ();
        }
      if (args.last)
        {
          imma_ratio_max (&block_ratio[0], ra);
          imma_ratio_max (&block_ratio[1], rb);
          __syncthreads ();
          if (tid < 2)
            atomicMax (&args.ratio_bits[tid], block_ratio[tid]);
        }
    }
#else
  (void) args; /* no IMMA before sm_80: never launched there */
#endif
}

#endif /* TILEMM_KERNELS_IMMA_CUH */
