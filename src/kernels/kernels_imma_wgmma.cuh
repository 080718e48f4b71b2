/* kernels_imma_wgmma.cuh — the Hopper (sm_90a) int8 GEMM of the emulated precision: the MOD
 * epilogue of kernels_imma.cuh (R(i, j) = (Σ_p A'(i, p)·B'(j, p)) mod m_z in [0, m_z) as uint8,
 * plane z of a column-major stack), computed with the same arithmetic, on warpgroup MMA
 * (wgmma.mma_async, HGMMA/IGMMA in SASS) fed by the bulk tensor copy engine (TMA).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Work: tiles of BM × BN outputs of one plane, summed over k in BK-byte steps.  A persistent grid
 * (one block per SM) walks the tiles of all planes in a fixed order: plane, then groups of GROUP
 * tile-rows, column by column inside a group, so that the blocks running at one time share A's
 * rows and B's columns in L2.
 *
 * Roles (warp specialization): warpgroup 0 is the producer — one thread waits until a stage is
 * free (its `empty` mbarrier), announces the stage's bytes on its `full` mbarrier and issues the
 * two tensor copies (A's BM×BK box, B's BN×BK box) that complete on it.  Warpgroups 1 and 2 are
 * the consumers — each waits on `full`, issues BK/32 wgmma m64n256k32 on its 64 rows of A and all
 * of B, and frees the stage once those wgmma have completed (one wgmma group stays in flight, so
 * a stage is freed one step late).  The producer needs few registers and the consumers many
 * (128 accumulators each): setmaxnreg moves them.
 *
 * Shared memory layout: what the 128-byte swizzle of TMA writes is exactly the K-major layout
 * wgmma reads with the 128-byte swizzle mode: rows of 128 bytes (BK = 128 int8 values of k), the
 * 16-byte chunks of row r permuted by XOR with r mod 8, groups of 8 rows 1024 bytes apart (the
 * descriptor's stride byte offset).  A k32 step inside the row is the start address plus 32
 * bytes: the hardware applies the swizzle to the full address, so each stage starts on a 1024-byte
 * boundary.
 *
 * Ragged shapes: A and B are 3-D tensor maps (k, rows, planes) with their true bounds, so the copy
 * engine fills what lies outside (rows past m or n, bytes past kp) with zeros and never reads the
 * next plane; the bytes between k and kp are zeros in the operands already.  Stores are
 * predicated on row < m and col < n.
 *
 * The STATS epilogue (the statistics' S and ratios, kernels_imma.cuh) runs on the same core for a
 * launch that covers all of k (one plane); longer k goes to imma_kernel chunk by chunk.
 *
 * Exactness, as in kernels_imma.cuh: |a·b| ≤ 2^14; the accumulators are reduced mod m_z (C's %)
 * after every chunk_tiles k-steps, with chunk_tiles·BK ≤ 131071 − 1 terms, so no int32 sum ever
 * overflows and the result is the exact residue.
 */
#ifndef TILEMM_KERNELS_IMMA_WGMMA_CUH
#define TILEMM_KERNELS_IMMA_WGMMA_CUH

#include <stdint.h>

#include <cuda.h> /* CUtensorMap (a type only: no driver library is linked) */

#include "kernels_imma.cuh"

/* wgmma and setmaxnreg exist only in sm_90a code; in every other pass of the fat binary the
 * kernel is an empty shell that traps, and the host never launches it there
 * (imma_wgmma.cu: tilemm_emu_wgmma_usable). */
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TILEMM_HAVE_WGMMA 1
#else
#define TILEMM_HAVE_WGMMA 0
#endif

namespace tilemm_wgmma {

constexpr int BM = 128, BN = 256, BK = 128; /* BK bytes of k = one 128-byte swizzle row      */
constexpr int CONSUMERS = 2;                /* warpgroups of 64 rows each                     */
constexpr int THREADS = 128 * (1 + CONSUMERS);
constexpr int STAGES = 4;
constexpr int GROUP = 8; /* tile-rows per group of the tile order                        */
constexpr int A_BYTES = BM * BK, B_BYTES = BN * BK, STAGE_BYTES = A_BYTES + B_BYTES;
/* The epilogue's staging of R: per consumer, its 64 rows × BN columns of bytes, column-major. */
constexpr int STAGING_BYTES = 64 * BN;
/* + 1024: the dynamic shared memory is aligned to 1024 bytes by hand (the swizzle's period) */
constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + CONSUMERS * STAGING_BYTES + 1024;
static_assert (SMEM_BYTES <= 227 * 1024, "within a Hopper block's shared memory");
constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232; /* 128·40 + 256·232 ≤ 65536            */
static_assert (BM == 64 * CONSUMERS, "one m64 wgmma row block per consumer warpgroup");
static_assert (A_BYTES % 1024 == 0 && STAGE_BYTES % 1024 == 0, "stages on swizzle periods");

/* The order of the tiles: tile t → plane z, tile-row tm, tile-column tn. */
struct tile_order
{
  int tiles_m, tiles_n;
  long long per_plane, total;
};

__host__ __device__ inline tile_order make_order (int64_t m, int64_t n, int planes)
{
  tile_order o;
  o.tiles_m = (int) ((m + BM - 1) / BM);
  o.tiles_n = (int) ((n + BN - 1) / BN);
  o.per_plane = (long long) o.tiles_m * o.tiles_n;
  o.total = o.per_plane * planes;
  return o;
}

__device__ __forceinline__ void tile_of (const tile_order &o, long long t, int &z, int &tm, int &tn)
{
  z = (int) (t / o.per_plane);
  const long long r = t - (long long) z * o.per_plane;
  const long long group_tiles = (long long) GROUP * o.tiles_n;
  const int group = (int) (r / group_tiles);
  const int first = group * GROUP;
  const int rows = o.tiles_m - first < GROUP ? o.tiles_m - first : GROUP;
  const int in = (int) (r - (long long) group * group_tiles);
  tm = first + in % rows;
  tn = in / rows;
}

#if TILEMM_HAVE_WGMMA
__device__ __forceinline__ unsigned smem_addr (const void *p)
{
  return (unsigned) __cvta_generic_to_shared (p);
}

__device__ __forceinline__ void mbar_init (uint64_t *bar, unsigned count)
{
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr (bar)), "r"(count));
}

__device__ __forceinline__ void mbar_expect_tx (uint64_t *bar, unsigned bytes)
{
  asm volatile ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr (bar)),
                "r"(bytes)
                : "memory");
}

__device__ __forceinline__ void mbar_arrive (uint64_t *bar)
{
  asm volatile ("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr (bar)) : "memory");
}

/* Waits until the phase of parity `parity` of *bar has completed. */
__device__ __forceinline__ void mbar_wait (uint64_t *bar, unsigned parity)
{
  const unsigned a = smem_addr (bar);
  asm volatile ("{\n"
                ".reg .pred done;\n"
                "WAIT_%=:\n"
                "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                "@!done bra WAIT_%=;\n"
                "}\n" ::"r"(a),
                "r"(parity)
                : "memory");
}

/* One box of a 3-D tensor map into shared memory, completing on *bar. */
__device__ __forceinline__ void tma_load_3d (void *dst, const CUtensorMap *map, uint64_t *bar, int c0,
                                             int c1, int c2)
{
  asm volatile ("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(smem_addr (dst)),
                "l"((uint64_t) map), "r"(smem_addr (bar)), "r"(c0), "r"(c1), "r"(c2)
                : "memory");
}

/* A K-major operand in shared memory, 128-byte swizzle: rows of 128 bytes, 8-row groups 1024
 * bytes apart (stride byte offset); the leading byte offset is unused in this mode (1). */
__device__ __forceinline__ uint64_t smem_desc (const void *p)
{
  const uint64_t a = smem_addr (p);
  return ((a & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t) (1024 >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void wgmma_fence () { asm volatile ("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit () { asm volatile ("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait ()
{
  asm volatile ("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* x mod m in [0, m) for any int32 x and 2 ≤ m ≤ 256, in integer multiply-adds (C's % by a
 * run-time divisor costs a reciprocal and ~25 instructions per element).  x = hi·2^16 + lo, so
 * y = hi·(2^16 mod m) + lo ≡ x with |y| < 2^23.1; u = y + off (off a multiple of m ≥ 2^23) lies
 * in [0, 2^25); with magic = ⌊(2^32 − 1)/m⌋ + 1 = 2^32/m + ε, 0 ≤ ε ≤ 1, the quotient
 * ⌊u·magic / 2^32⌋ is ⌊u/m⌋ or one more (u·ε/2^32 < 2^-7 < 1), so one correction remains. */
struct fast_mod
{
  int m, c16;
  unsigned off, magic;
  __device__ __forceinline__ explicit fast_mod (int mod)
  {
    m = mod;
    c16 = 65536 % mod;
    off = (unsigned) mod * (unsigned) ((8421120 + mod - 1) / mod); /* ≥ 32768·255 + 65535 */
    magic = 0xFFFFFFFFu / (unsigned) mod + 1u;
  }
  __device__ __forceinline__ int operator() (int x) const
  {
    const unsigned u = (unsigned) ((x >> 16) * c16 + (x & 0xFFFF)) + off;
    const unsigned q = __umulhi (u, magic);
    const int r = (int) (u - q * (unsigned) m);
    return r < 0 ? r + m : r;
  }
};

/* bar.sync on a named barrier among `count` threads (the 128 of one consumer warpgroup). */
__device__ __forceinline__ void named_sync (int id, int count)
{
  asm volatile ("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

/* Pins the accumulators at this point of the program: the compiler sees the wgmma's registers as
 * written when the asm statement issues, not when wgmma.wait_group returns, so without this it
 * could read them before the wait, or move writes to them past wgmma.fence. */
__device__ __forceinline__ void fence_accumulators (int (&d)[128])
{
#pragma unroll
  for (int e = 0; e < 128; e++)
    asm volatile ("" : "+r"(d[e])::"memory");
}

/* d (64×256 s32, this thread's 128) += A (64×32 s8, K-major) · B (256×32 s8, K-major)ᵀ. */
__device__ __forceinline__ void wgmma_m64n256k32 (int (&d)[128], uint64_t da, uint64_t db)
{
  asm volatile ("{\n"
                ".reg .pred p;\n"
                "setp.ne.b32 p, 1, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {"
                "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
                "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
                "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
                "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
                "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
                "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
                "}, %128, %129, p;\n"
                "}\n"
                : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
                  "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
                  "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
                  "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
                  "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
                  "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
                  "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
                  "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]),
                  "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]),
                  "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]),
                  "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]),
                  "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]),
                  "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]),
                  "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]),
                  "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]),
                  "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
                : "l"(da), "l"(db));
}
#endif

/* The launch's arguments beside the tensor maps: imma_args and the tile order. */
struct wgmma_args
{
  imma_args ia;     /* MOD: moduli, r, r_plane, ldr; STATS: s64, first, last, sa, sb, ea, eb,
                       ratio_bits (one plane; k_begin = 0 and k_end = kp: one launch)        */
  int chunk_steps;  /* reduce every chunk_steps BK-byte steps (chunk_steps·BK ≤ 131071 − 1)   */
  tile_order order;
};

template <int EPI>
__global__ void __launch_bounds__ (THREADS, 1)
imma_wgmma_kernel (const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   const __grid_constant__ wgmma_args args)
{
#if TILEMM_HAVE_WGMMA
  extern __shared__ __align__ (16) unsigned char smem_raw[];
  __shared__ __align__ (8) uint64_t full[STAGES], empty[STAGES];
  unsigned char *const smem =
      (unsigned char *) (((uintptr_t) smem_raw + 1023) & ~(uintptr_t) 1023);

  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0)
    {
      for (int s = 0; s < STAGES; s++)
        {
          mbar_init (&full[s], 1);          /* the producer's arrive.expect_tx      */
          mbar_init (&empty[s], CONSUMERS); /* one arrival per consumer warpgroup    */
        }
      /* make the initialized barriers visible to the copy engine (the async proxy) */
      asm volatile ("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
  __syncthreads ();

  const int64_t k_begin = args.ia.k_begin;
  const int steps = (int) ((args.ia.k_end - k_begin + BK - 1) / BK);
  const long long total = args.order.total;

  if (wg == 0)
    {
      /* producer */
      asm volatile ("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
      if (threadIdx.x == 0)
        {
          asm volatile ("prefetch.tensormap [%0];\n" ::"l"((uint64_t) &map_a) : "memory");
          asm volatile ("prefetch.tensormap [%0];\n" ::"l"((uint64_t) &map_b) : "memory");
          unsigned it = 0;
          for (long long t = blockIdx.x; t < total; t += gridDim.x)
            {
              int z, tm, tn;
              tile_of (args.order, t, z, tm, tn);
              for (int kt = 0; kt < steps; kt++, it++)
                {
                  const int s = it % STAGES;
                  const unsigned phase = (it / STAGES) & 1u;
                  mbar_wait (&empty[s], phase ^ 1u); /* the consumers are done with it */
                  unsigned char *const st = smem + s * STAGE_BYTES;
                  mbar_expect_tx (&full[s], STAGE_BYTES);
                  const int kc = (int) (k_begin + (int64_t) kt * BK);
                  tma_load_3d (st, &map_a, &full[s], kc, tm * BM, z);
                  tma_load_3d (st + A_BYTES, &map_b, &full[s], kc, tn * BN, z);
                }
            }
        }
    }
  else
    {
      /* consumers */
      asm volatile ("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
      const int c = wg - 1;
      const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
      const int g = lane / 4, q = lane % 4;
      const bool leader = threadIdx.x % 128 == 0;
      unsigned it = 0;
      int d[128];
      /* STATS: this thread's largest fractions of the two ratios over its tiles (kernels_imma.cuh) */
      imma_max_fraction best_a, best_b;
      best_a.init ();
      best_b.init ();
      for (long long t = blockIdx.x; t < total; t += gridDim.x)
        {
          int z, tm, tn;
          tile_of (args.order, t, z, tm, tn);
          const fast_mod mod (EPI == IMMA_MOD ? args.ia.moduli[z] : 2); /* STATS: unused */
          /* STATS, last chunk: the numerators this tile's epilogue needs, read now so that the
           * loads complete under the k-loop — Q·sa of this thread's two rows, Q·sb of two of the
           * tile's columns for the warpgroup's table — IMMA_NONE past m or n and for zero rows
           * and columns (no pair there counts). */
          unsigned long long rnum0 = IMMA_NONE, rnum1 = IMMA_NONE, cnum0 = IMMA_NONE, cnum1 = IMMA_NONE;
          if (EPI == IMMA_STATS && args.ia.last)
            {
              const int64_t row = (int64_t) tm * BM + c * 64 + warp * 16 + g;
              const int64_t col = (int64_t) tn * BN + threadIdx.x % 128;
              if (row < args.ia.m && args.ia.ea[row] != TILEMM_EMU_ZERO_ROW)
                rnum0 = (unsigned long long) (TILEMM_EMU_Q * args.ia.sa[row]);
              if (row + 8 < args.ia.m && args.ia.ea[row + 8] != TILEMM_EMU_ZERO_ROW)
                rnum1 = (unsigned long long) (TILEMM_EMU_Q * args.ia.sa[row + 8]);
              if (col < args.ia.n && args.ia.eb[col] != TILEMM_EMU_ZERO_ROW)
                cnum0 = (unsigned long long) (TILEMM_EMU_Q * args.ia.sb[col]);
              if (col + 128 < args.ia.n && args.ia.eb[col + 128] != TILEMM_EMU_ZERO_ROW)
                cnum1 = (unsigned long long) (TILEMM_EMU_Q * args.ia.sb[col + 128]);
            }
#pragma unroll
          for (int e = 0; e < 128; e++)
            d[e] = 0;
          fence_accumulators (d);
          int pending = -1;
          int until_reduce = args.chunk_steps;
          for (int kt = 0; kt < steps; kt++, it++)
            {
              const int s = it % STAGES;
              const unsigned phase = (it / STAGES) & 1u;
              mbar_wait (&full[s], phase);
              const unsigned char *const st = smem + s * STAGE_BYTES;
              const uint64_t da = smem_desc (st + c * 64 * BK), db = smem_desc (st + A_BYTES);
              wgmma_fence ();
#pragma unroll
              for (int kk = 0; kk < BK / 32; kk++) /* +32 bytes = +2 in the descriptor's units */
                wgmma_m64n256k32 (d, da + 2 * kk, db + 2 * kk);
              wgmma_commit ();
              wgmma_wait<1> (); /* the previous step's wgmma are done: free its stage */
              if (pending >= 0 && leader)
                mbar_arrive (&empty[pending]);
              pending = s;
              if (EPI == IMMA_MOD && --until_reduce == 0)
                {
                  /* the end of a chunk: keep the accumulators small (exact: a sum mod m) */
                  until_reduce = args.chunk_steps;
                  wgmma_wait<0> ();
                  fence_accumulators (d);
#pragma unroll
                  for (int e = 0; e < 128; e++)
                    d[e] = mod (d[e]);
                  fence_accumulators (d);
                }
            }
          wgmma_wait<0> ();
          fence_accumulators (d);
          if (pending >= 0 && leader)
            mbar_arrive (&empty[pending]);

          if constexpr (EPI == IMMA_STATS)
            {
              /* imma_kernel's STATS epilogue (kernels_imma.cuh).  The accumulator d[e] is row
               * row_base + 8·((e/2) % 2), column col_base + 8·(e/4) + e % 2. */
              const int64_t m = args.ia.m, n = args.ia.n;
              const int64_t row_base = (int64_t) tm * BM + c * 64 + warp * 16 + g;
              const int64_t col_base = (int64_t) tn * BN + 2 * q;
              if (!args.ia.last)
                {
                  /* an earlier chunk of k: the running sums only */
#pragma unroll
                  for (int e = 0; e < 128; e++)
                    {
                      const int64_t row = row_base + 8 * ((e / 2) % 2);
                      const int64_t col = col_base + 8 * (e / 4) + e % 2;
                      if (row >= m || col >= n)
                        continue;
                      int64_t sum = d[e];
                      int64_t *const sp = args.ia.s64 + row + col * m;
                      if (!args.ia.first)
                        sum += *sp;
                      *sp = sum;
                    }
                  continue;
                }
              /* The tile's column numerators in this warpgroup's staging (unused by STATS), so
               * that the loop reads each pair of columns with one shared load. */
              unsigned long long *const ctab =
                  reinterpret_cast<unsigned long long *> (smem + STAGES * STAGE_BYTES + c * STAGING_BYTES);
              named_sync (1 + c, 128); /* this warpgroup's reads of the previous tile's table done */
              ctab[threadIdx.x % 128] = cnum0;
              ctab[threadIdx.x % 128 + 128] = cnum1;
              named_sync (1 + c, 128);
              unsigned long long rmin0 = IMMA_NONE, rmin1 = IMMA_NONE; /* the rows' smallest S */
#pragma unroll
              for (int jj = 0; jj < 32; jj++)
                {
                  const ulonglong2 cn = *reinterpret_cast<const ulonglong2 *> (ctab + 8 * jj + 2 * q);
#pragma unroll
                  for (int v = 0; v < 2; v++)
                    {
                      const unsigned long long cnum = v ? cn.y : cn.x;
                      int64_t s0 = d[4 * jj + v], s1 = d[4 * jj + 2 + v];
                      const bool in0 = cnum != IMMA_NONE && rnum0 != IMMA_NONE;
                      const bool in1 = cnum != IMMA_NONE && rnum1 != IMMA_NONE;
                      if (!args.ia.first)
                        {
                          const int64_t col = col_base + 8 * jj + v;
                          if (in0)
                            s0 += args.ia.s64[row_base + col * m];
                          if (in1)
                            s1 += args.ia.s64[row_base + 8 + col * m];
                        }
                      const unsigned long long x0 = in0 ? (unsigned long long) s0 : IMMA_NONE;
                      const unsigned long long x1 = in1 ? (unsigned long long) s1 : IMMA_NONE;
                      rmin0 = imma_min_u64 (rmin0, x0);
                      rmin1 = imma_min_u64 (rmin1, x1);
                      best_a.offer (cnum, imma_min_u64 (x0, x1));
                    }
                }
              best_b.offer (rnum0, rmin0);
              best_b.offer (rnum1, rmin1);
              continue;
            }

          /* Epilogue.  The accumulator d[e] is row 16·warp + g + 8·((e/2) % 2) of this warpgroup's
           * 64, column 8·(e/4) + 2q + e % 2 (the wgmma D fragment).  Its residues go to this
           * warpgroup's staging (column-major, 64 bytes a column, the column's four 16-byte
           * chunks permuted by XOR with (column/2) mod 4, so the 4 columns one store instruction
           * touches fall in distinct banks), then out as one 16-byte store per 16 rows of a column
           * instead of 128 byte stores per thread. */
          unsigned char *const staging = smem + STAGES * STAGE_BYTES + c * STAGING_BYTES;
          named_sync (1 + c, 128); /* this warpgroup's reads of the previous tile's staging done */
#pragma unroll
          for (int e = 0; e < 128; e++)
            {
              const int row = 8 * ((e / 2) % 2) + g; /* within this warp's 16 rows */
              const int col = 8 * (e / 4) + 2 * q + e % 2;
              staging[col * 64 + ((warp ^ ((col >> 1) & 3)) << 4) + row] = (unsigned char) mod (d[e]);
            }
          named_sync (1 + c, 128);
          uint8_t *const r = args.ia.r + z * args.ia.r_plane;
          const int64_t ldr = args.ia.ldr, m = args.ia.m, n = args.ia.n;
          const bool whole = (((uintptr_t) r | (uintptr_t) ldr) & 15) == 0; /* 16-byte stores */
          const int t128 = threadIdx.x % 128, j = t128 % 4;
          const int64_t row = (int64_t) tm * BM + c * 64 + 16 * j;
#pragma unroll
          for (int i = 0; i < BN / 32; i++)
            {
              const int col_l = t128 / 4 + 32 * i;
              const int64_t col = (int64_t) tn * BN + col_l;
              const uint4 v = *reinterpret_cast<const uint4 *> (staging + col_l * 64 + ((j ^ ((col_l >> 1) & 3)) << 4));
              if (col >= n)
                continue;
              uint8_t *const dst = r + row + col * ldr;
              if (whole && row + 16 <= m)
                *reinterpret_cast<uint4 *> (dst) = v;
              else
                {
                  /* the ragged edge or an unaligned R: bytes (no array: it would live in
                   * local memory) */
                  for (int b = 0; b < 16 && row + b < m; b++)
                    {
                      const unsigned word = b < 4 ? v.x : b < 8 ? v.y : b < 12 ? v.z : v.w;
                      dst[b] = (uint8_t) (word >> (8 * (b % 4)));
                    }
                }
            }
        }
      if (EPI == IMMA_STATS && args.ia.last)
        {
          /* the maxima as the bits of non-negative doubles (their order is the integers'), per
           * warp, then one atomicMax per warp */
          unsigned long long ba = (unsigned long long) __double_as_longlong (best_a.value ());
          unsigned long long bb = (unsigned long long) __double_as_longlong (best_b.value ());
#pragma unroll
          for (int o = 16; o > 0; o /= 2)
            {
              const unsigned long long oa = __shfl_xor_sync (0xFFFFFFFFu, ba, o);
              const unsigned long long ob = __shfl_xor_sync (0xFFFFFFFFu, bb, o);
              ba = oa > ba ? oa : ba;
              bb = ob > bb ? ob : bb;
            }
          if (lane == 0)
            {
              atomicMax (&args.ia.ratio_bits[0], ba);
              atomicMax (&args.ia.ratio_bits[1], bb);
            }
        }
    }
#else
  (void) map_a, (void) map_b, (void) args;
  __trap (); /* never launched without sm_90a code (tilemm_emu_wgmma_usable) */
#endif
}

} /* namespace tilemm_wgmma */

#endif /* TILEMM_KERNELS_IMMA_WGMMA_CUH */
