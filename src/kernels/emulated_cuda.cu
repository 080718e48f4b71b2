/* emulated_cuda.cu — the emulated precision (Ozaki scheme II, src/common/emulated.h) on the GPU: products
 * of double (or single) accuracy from exact int8 products on the tensor cores: the stages on one
 * stream, their workspaces and the entry points (the passes' kernels: emulated_kernels.cuh).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * One call, on one stream (the steps of emulated.h):
 *   1. scan      the largest magnitude of each row of A and column of B (the bits of |x| as a
 *                double, max by atomicMax: NaN and Inf sort above every finite value, so the
 *                same pass finds them), then e_a, e_b and the non-finite flag;
 *   2. stats     quantize: lo(â) as int8 K-major, Σ hi and Σ hi² per row of A / column of B
 *                (integer atomics: exact, order-free); S = lo(A)·lo(B)ᵀ on the int8 tensor cores
 *                (kernels_imma.cuh, STATS) with the ratios' maxima in its epilogue; the few
 *                numbers go to the host, where the caller's function decides the plan;
 *   3. convert   a' = trunc(a·2^(pa − e_a[i])) (exact ldexp, __double2ll_rz) and its symmetric int8
 *                residues for the N moduli (two FP64 and two integer multiply-adds each, no
 *                division), K-major, rows padded with zeros to kp (a multiple of 16 bytes); A is
 *                read through shared memory so that both the column-major read and the K-major
 *                write are coalesced;
 *   4. gemm      per modulus R = (A'_l·B'_lᵀ) mod m_l as uint8 planes (kernels_imma.cuh, MOD);
 *   5. crt       per element the integer X = Σ r_t·e_t − k·M through the CRT basis e_t (exact
 *                multiply-adds in 32-bit limbs, M < 2^190; k from a floating estimate checked
 *                exactly where it could be off), symmetric, and one rounding of
 *                X·2^(e_a + e_b − pa − pb) to double (or single), subnormals and overflow included.
 * Everything the plan depends on is an exact integer or one correctly rounded division, so the
 * plan and the product equal the CPU's (src/common/emulated_plan.c, src/cpu/emulated_cpu.c) bitwise.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h> /* tests/emu has its own, for the host emulation */

#include "backend.h"
#include "cuda_try.h"
#include "emulated.h"
#include "emulated_arena.h"
#include "emulated_cuda.h"
#include "fault.h"
#include "emulated_kernels.cuh"
#include "kernels_imma.cuh"
#ifndef TILEMM_EMULATE
#include "imma_wgmma.h" /* the Hopper GEMM: real sm_90a code only, never in the host emulation */
#endif


namespace tilemm_emu_gpu {

/* ---------------------------------------------------------------- host side */


/* After a launch: the launch hook (fault.h) and the launch's own error. */
#define LAUNCHED(what)                                                                      \
  CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_LAUNCH, cudaErrorInvalidValue, cudaGetLastError ()), \
            "%s launch", what)

inline int64_t ceil_div (int64_t a, int64_t b) { return (a + b - 1) / b; }
inline size_t align256 (size_t x) { return (x + 255) & ~(size_t) 255; }

/* The piece of the caller's arena a stage works in: slot `slot`, which must hold `bytes`
 * (tilemm_emu_cuda_arena_need says how many; the call allocates nothing). */
tilemm_status reserve (char *&base, size_t bytes, const tilemm_emu_cuda_arena *arena, int slot,
                       tilemm_error *err)
{
  if (!arena)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: no arena (the caller gives "
                             "one, sized by tilemm_emu_cuda_arena_need)");
  if (arena->bytes[slot] < bytes || (bytes > 0 && !arena->base[slot]))
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: arena slot %d holds %zu "
                             "bytes, the call needs %zu (tilemm_emu_cuda_arena_need)", slot,
                             arena->bytes[slot], bytes);
  base = (char *) arena->base[slot];
  return TILEMM_OK;
}

/* Stage timing: events on the stream (none in the host emulation). */
struct timer
{
#ifndef TILEMM_EMULATE
  cudaEvent_t ev[6] = {};
#endif
  int used = 0;
  bool on = false;
  ~timer ()
  {
#ifndef TILEMM_EMULATE
    for (int i = 0; i < 6; i++)
      if (ev[i])
        cudaEventDestroy (ev[i]);
#endif
  }
  void start (bool want)
  {
#ifndef TILEMM_EMULATE
    on = want;
    for (int i = 0; on && i < 6; i++)
      if (cudaEventCreate (&ev[i]) != cudaSuccess)
        on = false;
#else
    (void) want;
#endif
  }
  void mark (int i, cudaStream_t s)
  {
#ifndef TILEMM_EMULATE
    if (on && cudaEventRecord (ev[i], s) == cudaSuccess)
      used = i + 1;
#else
    (void) i, (void) s;
#endif
  }
  void report (tilemm_emu_cuda_times *t)
  {
    if (!t)
      return;
    memset (t, 0, sizeof *t);
#ifndef TILEMM_EMULATE
    float ms[5] = {};
    for (int i = 0; i + 1 < used && i < 5; i++)
      if (cudaEventElapsedTime (&ms[i], ev[i], ev[i + 1]) != cudaSuccess)
        ms[i] = 0.0f;
    t->scan_ms = ms[0];
    t->stats_ms = ms[1];
    t->convert_ms = ms[2];
    t->gemm_ms = ms[3];
    t->crt_ms = ms[4];
#endif
  }
};

/* What the caller chose for the call's int8 GEMMs and their k-chunk (tilemm_emu_cuda_setup). */
struct gemm_choice
{
  tilemm_emu_gemm gemm;
  int64_t chunk_tiles; /* 64-byte tiles per chunk of k */
};

template <class Cfg, int EPI>
tilemm_status launch_imma (const imma_args &args, int planes, cudaStream_t stream, tilemm_error *err)
{
  /* Set at every launch, not cached: the attribute belongs to the current device's context, and a
   * later call may run on another device (src/kernels/kernels.cu learned this the hard way). */
  CUDA_TRY (cudaFuncSetAttribute ((const void *) imma_kernel<Cfg, EPI>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES),
            "cudaFuncSetAttribute(imma_kernel)");
  const dim3 grid ((unsigned) ceil_div (args.n, Cfg::BN), (unsigned) ceil_div (args.m, Cfg::BM), planes);
  if constexpr (Cfg::BK != 64)
    {
      /* args.chunk_tiles counts 64-byte tiles: the same chunk or a shorter one in Cfg::BK-byte
       * tiles (at least one), so chunk_tiles·BK stays ≤ 131071 − 1 terms */
      static_assert (Cfg::BK % 64 == 0, "whole 64-byte tiles per k-tile");
      imma_args a2 = args;
      const int c = args.chunk_tiles / (Cfg::BK / 64);
      a2.chunk_tiles = c > 0 ? c : 1;
      TILEMM_LAUNCH_SMEM ((imma_kernel<Cfg, EPI>), grid, dim3 (Cfg::THREADS), Cfg::SMEM_BYTES, stream, a2);
    }
  else
    TILEMM_LAUNCH_SMEM ((imma_kernel<Cfg, EPI>), grid, dim3 (Cfg::THREADS), Cfg::SMEM_BYTES, stream, args);
  LAUNCHED ("imma_kernel");
  return TILEMM_OK;
}

/* The int8 GEMM the caller chose (the v2 shape, the fastest of the mma.sync ones at every size
 * measured on the H100, bench/RESULTS.md, unless it names another).  wgmma runs the modular GEMMs
 * (MOD) always and the statistics' GEMM (STATS) when one launch covers all of k; longer k is
 * summed chunk by chunk on the mma.sync v2 kernel. */
template <int EPI>
tilemm_status launch_imma_auto (const gemm_choice &gc, const imma_args &args, int planes,
                                cudaStream_t stream, tilemm_error *err)
{
#ifndef TILEMM_EMULATE
  if (gc.gemm == TILEMM_EMU_GEMM_WGMMA && EPI == IMMA_MOD)
    return tilemm_emu_wgmma_launch (args, planes, stream, err);
  if (gc.gemm == TILEMM_EMU_GEMM_WGMMA && EPI == IMMA_STATS && planes == 1 && args.k_begin == 0
      && args.k_end == args.kp)
    return tilemm_emu_wgmma_launch_stats (args, stream, err);
#endif
  switch (gc.gemm)
    {
    case TILEMM_EMU_GEMM_BIG:
      return launch_imma<imma_big, EPI> (args, planes, stream, err);
    case TILEMM_EMU_GEMM_SMALL:
      return launch_imma<imma_small, EPI> (args, planes, stream, err);
    default:
      return launch_imma<imma_v2, EPI> (args, planes, stream, err);
    }
}

struct tables
{
  int moduli[TILEMM_EMU_MAX_MODULI], garner[TILEMM_EMU_MAX_MODULI];
  unsigned pow32[TILEMM_EMU_MAX_MODULI];
  unsigned long long M[TILEMM_EMU_MAX_MODULI + 1][3];
  tables ()
  {
    unsigned long long x[3] = { 1, 0, 0 };
    for (int t = 0; t < TILEMM_EMU_MAX_MODULI; t++)
      {
        moduli[t] = tilemm_emu_moduli[t];
        garner[t] = tilemm_emu_garner[t];
        pow32[t] = (unsigned) ((1ull << 32) % (unsigned long long) moduli[t]);
        memcpy (M[t], x, sizeof x);
        unsigned __int128 carry = 0;
        for (int w = 0; w < 3; w++)
          {
            const unsigned __int128 p = (unsigned __int128) x[w] * (unsigned) moduli[t] + carry;
            x[w] = (unsigned long long) p;
            carry = p >> 64;
          }
      }
    memcpy (M[TILEMM_EMU_MAX_MODULI], x, sizeof x);
  }
};

const tables &the_tables ()
{
  static const tables t;
  return t;
}

/* The CRT's tables for the first N moduli (host arithmetic on 32-bit limbs): the basis e_t, M,
 * and the estimate's scale.  False when M does not fill exactly crt_limbs (N) limbs. */
bool crt_tables (int N, crt_args &a)
{
  constexpr int W = CRT_LIMBS + 1;
  const int L = crt_limbs (N);
  unsigned M[W] = { 1 };
  auto mul = [] (unsigned (&x)[W], unsigned s) {
    unsigned long long c = 0;
    for (int l = 0; l < W; l++)
      {
        c += (unsigned long long) x[l] * s;
        x[l] = (unsigned) c;
        c >>= 32;
      }
  };
  auto div = [] (unsigned (&x)[W], unsigned s) { /* x /= s, returns the remainder */
    unsigned long long r = 0;
    for (int l = W - 1; l >= 0; l--)
      {
        r = (r << 32) | x[l];
        x[l] = (unsigned) (r / s);
        r %= s;
      }
    return (unsigned) r;
  };
  for (int t = 0; t < N; t++)
    mul (M, (unsigned) tilemm_emu_moduli[t]);
  for (int l = L; l < W; l++)
    if (M[l])
      return false;
  if (M[L - 1] == 0)
    return false;
  for (int t = 0; t < N; t++)
    {
      const unsigned mt = (unsigned) tilemm_emu_moduli[t];
      unsigned Mt[W];
      memcpy (Mt, M, sizeof Mt);
      div (Mt, mt);
      unsigned q[W];
      memcpy (q, Mt, sizeof q);
      const unsigned rem = div (q, mt); /* M_t mod m_t */
      unsigned inv = 0;
      for (unsigned x = 1; x < mt && !inv; x++)
        if (rem * x % mt == 1)
          inv = x;
      if (!inv && mt > 1)
        return false;
      mul (Mt, inv ? inv : 1);
      for (int l = 0; l < CRT_LIMBS; l++)
        {
          a.e[t][l] = Mt[l];
          a.ed[t][l] = (double) Mt[l];
        }
    }
  double Md = 0;
  for (int l = L - 1; l >= 0; l--)
    Md = Md * 0x1p32 + (double) M[l];
  for (int l = 0; l < CRT_LIMBS; l++)
    a.M[l] = M[l];
  a.scale = ldexp (1.0, 32 * (L > 3 ? L - 3 : 0)) / Md;
  return true;
}

/* Launches crt_kernel<N, OUT> for the run-time N. */
template <typename OUT, int NN = 1>
void launch_crt_n (int N, dim3 grid, cudaStream_t stream, const crt_args &a)
{
  if (N == NN)
    TILEMM_LAUNCH ((crt_kernel<NN, OUT>), grid, dim3 (256), stream, a);
  else if constexpr (NN < TILEMM_EMU_MAX_MODULI)
    launch_crt_n<OUT, NN + 1> (N, grid, stream, a);
}

/* crt_kernel's arguments and grid for C(i, j) at c[(i + j·ldc)·step] from N residue planes r
 * (m×n, plane after plane). */
tilemm_status crt_setup (int N, const uint8_t *r, int64_t r_plane, int64_t m, int64_t n, const int *ea,
                         const int *eb, int shift, void *c, int64_t ldc, int step, crt_args &a, dim3 &grid,
                         tilemm_error *err)
{
  memset (&a, 0, sizeof a);
  if (N < 1 || N > TILEMM_EMU_MAX_MODULI || !crt_tables (N, a))
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated CRT: no tables for %d moduli", N);
  a.r = r; a.r_plane = r_plane; a.m = m; a.n = n;
  a.ea = ea; a.eb = eb; a.shift = shift;
  a.c = c; a.ldc = ldc; a.step = step;
  grid = dim3 ((unsigned) ceil_div (m, 4 * 256), (unsigned) (n < 65535 ? n : 65535));
  return TILEMM_OK;
}

/* Step 5 (crt_setup's arguments). */
template <typename OUT>
tilemm_status launch_crt (int N, const uint8_t *r, int64_t r_plane, int64_t m, int64_t n, const int *ea,
                          const int *eb, int shift, OUT *c, int64_t ldc, int step, cudaStream_t stream,
                          tilemm_error *err)
{
  crt_args a;
  dim3 grid;
  const tilemm_status st = crt_setup (N, r, r_plane, m, n, ea, eb, shift, c, ldc, step, a, grid, err);
  if (st != TILEMM_OK)
    return st;
  launch_crt_n<OUT> (N, grid, stream, a);
  LAUNCHED ("crt_kernel");
  return TILEMM_OK;
}

/* The width of C's column blocks a call was given (tilemm_emu_cuda_blocks): n, one block, when
 * none or no narrower width was asked for. */
inline int64_t block_width (const tilemm_emu_cuda_blocks *blocks, int64_t n)
{
  return blocks && blocks->cols > 0 && blocks->cols < n ? blocks->cols : n;
}

/* One real problem C = A·B (m×k times k×n, column-major), through its stages. */
template <typename T> struct problem
{
  int64_t m, n, k, lda, ldb, kp;
  const T *a, *b;
  tilemm_emu_stats_layout l1;
  char *w1;       /* exponents, sums, lo matrices: kept until the product is done */
  int *ea, *eb;
  tilemm_emu_stats stats;
};

/* Steps 1 and 2 for one problem: p.stats (p.stats.nonfinite set and nothing more done when A or B
 * has NaN or Inf).  Marks the timer at the end of the scan (mark_scan) and of the statistics. */
template <typename T>
tilemm_status stage_stats (const tilemm_emu_options *opt, const gemm_choice &gc, problem<T> &pr,
                           cudaStream_t stream, const tilemm_emu_cuda_arena *arena, int slot,
                           timer &tm, int mark_scan, bool exponents_only, tilemm_error *err)
{
  const int64_t m = pr.m, n = pr.n, k = pr.k, lda = pr.lda, ldb = pr.ldb;
  const T *const a = pr.a, *const b = pr.b;
  tilemm_emu_stats &stats = pr.stats;
  memset (&stats, 0, sizeof stats);
  stats.inner = k;
  /* S and lo: the certified rule's; a given plan needs the exponents only */
  const bool automatic = tilemm_emu_needs_ratios (opt) != 0 && !exponents_only;
  const int64_t kp = pr.kp = tilemm_emu_padded_k (k);
  const int64_t ktiles = ceil_div (kp, 64);
  const bool chunked = ktiles > gc.chunk_tiles;
  const tilemm_emu_stats_layout l1 = pr.l1
    = tilemm_emu_layout_stats (m, n, kp, automatic, automatic && chunked);
  tilemm_status st = reserve (pr.w1, l1.total, arena, slot, err);
  if (st != TILEMM_OK)
    return st;
  char *const base1 = pr.w1;
  unsigned long long *const amax = (unsigned long long *) (base1 + l1.amax), *const bmax = amax + m;
  int *const ea = pr.ea = (int *) (base1 + l1.e), *const eb = pr.eb = ea + m;
  int *const flag = (int *) (base1 + l1.flag);
  unsigned long long *const ratio = (unsigned long long *) (base1 + l1.ratio);

  /* 1. scan */
  CUDA_TRY (cudaMemsetAsync (base1, 0, l1.sa, stream), "cudaMemsetAsync(scan)");
  CUDA_TRY (cudaMemsetAsync (base1 + l1.sa, 0, l1.loa - l1.sa, stream), "cudaMemsetAsync(sums)");
  if (k > 0)
    {
      const int64_t pchunk = 256;
      TILEMM_LAUNCH (scan_rows_kernel<T>, dim3 ((unsigned) ceil_div (m, 256), (unsigned) ceil_div (k, pchunk)),
                     dim3 (256), stream, a, m, k, lda, pchunk, amax);
      LAUNCHED ("scan_rows_kernel");
      const int64_t pchunk_b = 8192;
      TILEMM_LAUNCH (scan_cols_kernel<T>, dim3 ((unsigned) n, (unsigned) ceil_div (k, pchunk_b)), dim3 (256),
                     stream, b, k, ldb, pchunk_b, bmax);
      LAUNCHED ("scan_cols_kernel");
    }
  TILEMM_LAUNCH (exponents_kernel, dim3 ((unsigned) ceil_div (m + n, 256)), dim3 (256), stream,
                 (const unsigned long long *) amax, m + n, ea, flag);
  LAUNCHED ("exponents_kernel");
  /* The statistics come back to the host here, inside the stage, because the plan that the next
   * stage runs is decided on the host between the two (the caller's decide function): a few
   * numbers of the scheme's own, not the staging of operands or results (src/cuda/ does that).
   * tests/check-layers.sh allows these copies by the marker at their ends. */
  int nonfinite = 0;
  CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_MEMCPY, cudaErrorInvalidValue,
                             cudaMemcpyAsync (&nonfinite, flag, sizeof nonfinite, cudaMemcpyDeviceToHost, stream)), /* layers: statistics */
            "cudaMemcpyAsync(non-finite flag)");
  CUDA_TRY (cudaStreamSynchronize (stream), "cudaStreamSynchronize(scan)");
  if (mark_scan >= 0)
    tm.mark (mark_scan, stream);
  if (nonfinite)
    {
      stats.nonfinite = 1;
      return TILEMM_OK;
    }
  if (exponents_only) /* a given plan needs the exponents only */
    return TILEMM_OK;

  /* 2. statistics */
  unsigned long long *const sa = (unsigned long long *) (base1 + l1.sa);
  unsigned long long *const qa = (unsigned long long *) (base1 + l1.qa);
  unsigned long long *const sb = (unsigned long long *) (base1 + l1.sb);
  unsigned long long *const qb = (unsigned long long *) (base1 + l1.qb);
  int8_t *const loa = automatic ? (int8_t *) (base1 + l1.loa) : nullptr;
  int8_t *const lob = automatic ? (int8_t *) (base1 + l1.lob) : nullptr;
  {
    convert_args ca;
    memset (&ca, 0, sizeof ca);
    ca.src = a; ca.rows = m; ca.k = k; ca.ld = lda; ca.kp = kp; ca.e = ea;
    ca.lo = loa; ca.sum = sa; ca.sum2 = qa;
    /* QUANT_TILES tiles of k per block: a row's sums take one atomic addition per block */
    const unsigned qx = quant_blocks_k (kp);
    TILEMM_LAUNCH ((convert_kernel<T, true, CONVERT_QUANT>), dim3 (qx, (unsigned) ceil_div (m, CT)),
                   dim3 (256), stream, ca);
    LAUNCHED ("convert_kernel(quantize A)");
    ca.src = b; ca.rows = n; ca.ld = ldb; ca.e = eb; ca.lo = lob; ca.sum = sb; ca.sum2 = qb;
    TILEMM_LAUNCH ((convert_kernel<T, false, CONVERT_QUANT>), dim3 (qx, (unsigned) ceil_div (n, CT)),
                   dim3 (256), stream, ca);
    LAUNCHED ("convert_kernel(quantize B)");
  }
  if (automatic)
    {
      imma_args ia;
      memset (&ia, 0, sizeof ia);
      ia.a = loa; ia.b = lob; ia.m = m; ia.n = n; ia.kp = kp;
      ia.chunk_tiles = 1 << 30;
      ia.s64 = (int64_t *) (base1 + l1.s64);
      ia.sa = (const int64_t *) sa; ia.sb = (const int64_t *) sb; ia.ea = ea; ia.eb = eb;
      ia.ratio_bits = ratio;
      const int64_t chunk = gc.chunk_tiles * 64;
      for (int64_t k0 = 0; k0 < kp; k0 += chunk)
        {
          ia.k_begin = k0;
          ia.k_end = k0 + chunk < kp ? k0 + chunk : kp;
          ia.first = k0 == 0;
          ia.last = ia.k_end == kp;
          st = launch_imma_auto<IMMA_STATS> (gc, ia, 1, stream, err);
          if (st != TILEMM_OK)
            return st;
        }
    }
  /* the few numbers the plan needs (their maxima over the rows' and columns' sums on the host) */
  {
    unsigned long long *hq = (unsigned long long *) malloc (8 * (size_t) (m + n)); /* host */
    if (!hq)
      return tilemm_error_set (err, TILEMM_ENOMEM, "malloc(%zu bytes)", 8 * (size_t) (m + n));
    unsigned long long hr[2] = { 0, 0 };
    cudaError_t e = TILEMM_FAULT_OR (TILEMM_FAULT_MEMCPY, cudaErrorInvalidValue,
                                     cudaMemcpyAsync (hq, qa, 8 * (size_t) m, cudaMemcpyDeviceToHost, stream)); /* layers: statistics */
    if (e == cudaSuccess)
      e = cudaMemcpyAsync (hq + m, qb, 8 * (size_t) n, cudaMemcpyDeviceToHost, stream); /* layers: statistics */
    if (e == cudaSuccess)
      e = cudaMemcpyAsync (hr, ratio, sizeof hr, cudaMemcpyDeviceToHost, stream); /* layers: statistics */
    if (e == cudaSuccess)
      e = cudaStreamSynchronize (stream);
    if (e != cudaSuccess)
      {
        free (hq);
        return tilemm_cuda_failure (err, e, "cudaMemcpyAsync(statistics)");
      }
    for (int64_t i = 0; i < m; i++)
      stats.max_qa = (int64_t) hq[i] > stats.max_qa ? (int64_t) hq[i] : stats.max_qa;
    for (int64_t j = 0; j < n; j++)
      stats.max_qb = (int64_t) hq[m + j] > stats.max_qb ? (int64_t) hq[m + j] : stats.max_qb;
    free (hq);
    if (automatic)
      {
        memcpy (&stats.ratio_a, &hr[0], 8);
        memcpy (&stats.ratio_b, &hr[1], 8);
      }
  }
  return TILEMM_OK;
}

/* Steps 3 to 5 for one problem under `plan`: C(i, j) at c[(i + j·ldc)·step]. */
template <typename T>
tilemm_status stage_product (const tilemm_emu_plan &plan, const gemm_choice &gc, problem<T> &pr, T *c,
                             int64_t ldc, int step, cudaStream_t stream, const tilemm_stop *stop,
                             const tilemm_emu_cuda_arena *arena, int slot, timer &tm, bool marks,
                             const tilemm_emu_cuda_blocks *blocks, tilemm_error *err)
{
  const tables &tab = the_tables ();
  const int64_t m = pr.m, n = pr.n, k = pr.k, lda = pr.lda, ldb = pr.ldb, kp = pr.kp;
  const T *const a = pr.a, *const b = pr.b;
  int *const ea = pr.ea, *const eb = pr.eb;
  tilemm_status st;
  /* 3. scaled integers and residues */
  const int N = plan.moduli;
  if (N < 1 || N > TILEMM_EMU_MAX_MODULI)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated plan with %d moduli", N);
  const tilemm_emu_product_layout l2 = tilemm_emu_layout_product (m, n, kp, N);
  char *base2 = nullptr;
  st = reserve (base2, l2.total, arena, slot, err);
  if (st != TILEMM_OK)
    return st;
  int8_t *const ra = (int8_t *) (base2 + l2.ra), *const rb = (int8_t *) (base2 + l2.rb);
  uint8_t *const rr = (uint8_t *) (base2 + l2.r);
  {
    convert_args ca;
    memset (&ca, 0, sizeof ca);
    ca.src = a; ca.rows = m; ca.k = k; ca.ld = lda; ca.kp = kp; ca.e = ea;
    ca.bits = plan.pa; ca.out = ra; ca.out_plane = m * kp; ca.nmod = N;
    for (int t = 0; t < N; t++)
      {
        ca.moduli[t] = (unsigned) tab.moduli[t];
        ca.pow32[t] = tab.pow32[t];
      }
    TILEMM_LAUNCH ((convert_kernel<T, true, CONVERT_RESIDUES>), dim3 ((unsigned) ceil_div (kp, CT), (unsigned) ceil_div (m, CT)),
                   dim3 (256), stream, ca);
    LAUNCHED ("convert_kernel(residues of A)");
    ca.src = b; ca.rows = n; ca.ld = ldb; ca.e = eb; ca.bits = plan.pb; ca.out = rb; ca.out_plane = n * kp;
    TILEMM_LAUNCH ((convert_kernel<T, false, CONVERT_RESIDUES>), dim3 ((unsigned) ceil_div (kp, CT), (unsigned) ceil_div (n, CT)),
                   dim3 (256), stream, ca);
    LAUNCHED ("convert_kernel(residues of B)");
  }
  if (marks)
    tm.mark (3, stream);

  /* 4–5 for each block of C's columns (tilemm_emu_cuda_blocks): the modular GEMMs of all moduli
   * on the block's columns of B's residues, then the CRT of its entries into C; so a caller can
   * copy a block out while the device works on the next ones.  The residues are the whole
   * product's (planes of n·kp and m·n bytes): a block is an offset into them. */
  const int64_t bc = block_width (blocks, n);
  const bool one_block = bc == n;
  int block = 0;
  for (int64_t j0 = 0; j0 < n; j0 += bc, block++)
    {
      const int64_t cols = n - j0 < bc ? n - j0 : bc;
      /* 4. the modular GEMMs: all moduli in one launch on the wgmma kernel, or when one modulus
       * does not fill the GPU; else one launch each (the stop is polled in between) */
      {
        imma_args ia;
        memset (&ia, 0, sizeof ia);
        ia.m = m; ia.n = cols; ia.kp = kp; ia.k_begin = 0; ia.k_end = kp;
        ia.a_plane = m * kp; ia.b_plane = n * kp;
        ia.chunk_tiles = (int) gc.chunk_tiles;
        ia.r_plane = m * n; ia.ldr = m;
        const int64_t tiles = ceil_div (m, 128) * ceil_div (cols, 128);
        /* The wgmma kernel's persistent grid walks the tiles of all its planes: one launch for
         * all the moduli leaves one tail wave in all instead of one per modulus. */
        const int per_launch = gc.gemm == TILEMM_EMU_GEMM_WGMMA || tiles < 264 ? N : 1;
        for (int z0 = 0; z0 < N; z0 += per_launch)
          {
            if ((z0 > 0 || j0 > 0) && tilemm_stop_requested (stop))
              {
                cudaStreamSynchronize (stream);
                return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
              }
            const int planes = N - z0 < per_launch ? N - z0 : per_launch;
            ia.a = ra + z0 * ia.a_plane;
            ia.b = rb + z0 * ia.b_plane + j0 * kp;
            ia.r = rr + z0 * ia.r_plane + j0 * m;
            for (int z = 0; z < planes; z++)
              ia.moduli[z] = tab.moduli[z0 + z];
            st = launch_imma_auto<IMMA_MOD> (gc, ia, planes, stream, err);
            if (st != TILEMM_OK)
              return st;
          }
      }
      if (marks && one_block)
        tm.mark (4, stream);

      /* 5. CRT into C: the block's columns of every residue plane (planes of m·n bytes) */
      st = launch_crt<T> (N, rr + j0 * m, m * n, m, cols, ea, eb + j0, plan.pa + plan.pb,
                          c + j0 * ldc * step, ldc, step, stream, err);
      if (st != TILEMM_OK)
        return st;
      if (blocks && blocks->done)
        CUDA_TRY (cudaEventRecord ((cudaEvent_t) blocks->done[block], stream),
                  "cudaEventRecord(block %d of C)", block);
    }
  if (marks)
    tm.mark (5, stream);
  return TILEMM_OK;
}

/* What one call runs: the whole scheme (statistics, the plan, the product), the statistics only
 * (a panel's share of a product whose plan is made from all panels), or the product under a plan
 * made elsewhere (the exponents, which depend on a row of A or a column of B only, and steps 3–5:
 * so a panel of a product comes out bitwise as in the whole product). */
enum run_mode { RUN_WHOLE = TILEMM_EMU_RUN_WHOLE, RUN_STATS = TILEMM_EMU_RUN_STATS,
                RUN_GIVEN = TILEMM_EMU_RUN_GIVEN };

/* What the caller decided for one call: the mode, the plan (RUN_GIVEN: the given one; RUN_WHOLE:
 * its function decides it from the statistics), the int8 GEMM and its k-chunk. */
struct run_request
{
  run_mode mode;
  const tilemm_emu_plan *given;
  tilemm_emu_decide_fn decide;
  void *decide_ctx;
  gemm_choice gc;
};

/* The plan of a call from its statistics, or the one given; false when the product is not run
 * (RUN_STATS, or a verdict other than OK). */
bool settle_plan (const run_request &rq, const tilemm_emu_options *opt, const tilemm_emu_stats &stats,
                  tilemm_emu_plan *used)
{
  tilemm_emu_plan plan;
  memset (&plan, 0, sizeof plan);
  if (stats.nonfinite)
    plan.verdict = TILEMM_EMU_NONFINITE;
  else if (rq.mode == RUN_GIVEN)
    plan = *rq.given;
  else if (rq.mode == RUN_WHOLE)
    rq.decide (rq.decide_ctx, opt, &stats, &plan);
  *used = plan;
  return rq.mode != RUN_STATS && plan.verdict == TILEMM_EMU_OK;
}

/* The end of a product: wait for the device and report the stages' times, unless the caller
 * takes C block by block on its events (then only when it asked for the times). */
tilemm_status finish (cudaStream_t stream, timer &tm, tilemm_emu_cuda_times *times,
                      const tilemm_emu_cuda_blocks *blocks, tilemm_error *err)
{
  if (blocks && blocks->done && !times)
    return TILEMM_OK;
  CUDA_TRY (cudaStreamSynchronize (stream), "cudaStreamSynchronize(emulated product)");
  tm.report (times);
  return TILEMM_OK;
}

/* A real product: the stages in a row. */
template <typename T>
tilemm_status run_real (const run_request &rq, const tilemm_emu_options *opt, int64_t m, int64_t n,
                        int64_t k, const T *a, int64_t lda, const T *b, int64_t ldb, T *c, int64_t ldc,
                        cudaStream_t stream, const tilemm_stop *stop, tilemm_emu_plan *used,
                        tilemm_emu_stats *stats_out, tilemm_emu_cuda_times *times,
                        const tilemm_emu_cuda_arena *arena, const tilemm_emu_cuda_blocks *blocks,
                        tilemm_error *err)
{
  problem<T> pr;
  pr.m = m; pr.n = n; pr.k = k; pr.a = a; pr.lda = lda; pr.b = b; pr.ldb = ldb;
  timer tm;
  tm.start (times != nullptr);
  tm.mark (0, stream);
  tilemm_status st = stage_stats (opt, rq.gc, pr, stream, arena, 0, tm, 1, rq.mode == RUN_GIVEN, err);
  if (st != TILEMM_OK)
    return st;
  if (stats_out)
    *stats_out = pr.stats;
  if (!settle_plan (rq, opt, pr.stats, used))
    return TILEMM_OK;
  tm.mark (2, stream);
  if (tilemm_stop_requested (stop))
    return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
  st = stage_product (*used, rq.gc, pr, c, ldc, 1, stream, stop, arena, 1, tm, true, blocks, err);
  if (st != TILEMM_OK)
    return st;
  return finish (stream, tm, times, blocks, err);
}

/* [Ar ∓Ai] (m×2k) from complex A (m×k, lda complex elements): sign −1 for X1, +1 for X2; and
 * [Br; Bi], [Bi; Br] (2k×n) from B. */
template <typename T>
__global__ void __launch_bounds__ (256)
split_a_kernel (const T *a, int64_t m, int64_t k, int64_t lda, T *x1, T *x2)
{
  const int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m)
    return;
  for (int64_t p = blockIdx.y; p < k; p += gridDim.y)
    {
      const T re = a[2 * (i + p * lda)], im = a[2 * (i + p * lda) + 1];
      x1[i + p * m] = re;
      x1[i + (k + p) * m] = -im;
      x2[i + p * m] = re;
      x2[i + (k + p) * m] = im;
    }
}
template <typename T>
__global__ void __launch_bounds__ (256)
split_b_kernel (const T *b, int64_t k, int64_t n, int64_t ldb, T *y1, T *y2)
{
  const int64_t p = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= k)
    return;
  for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
    {
      const T re = b[2 * (p + j * ldb)], im = b[2 * (p + j * ldb) + 1];
      y1[p + j * 2 * k] = re;
      y1[k + p + j * 2 * k] = im;
      y2[p + j * 2 * k] = im;
      y2[k + p + j * 2 * k] = re;
    }
}

/* A complex product (emulated.h, the end): Re C = [Ar −Ai]·[Br; Bi], Im C = [Ar Ai]·[Bi; Br],
 * two real problems of inner dimension 2k under one plan (their statistics merged), each part
 * rounded once.  The real operands are formed on the device first (twice A's and B's bytes). */
template <typename T>
tilemm_status run_complex (const run_request &rq, const tilemm_emu_options *opt, int64_t m, int64_t n,
                           int64_t k, const T *a, int64_t lda, const T *b, int64_t ldb, T *c, int64_t ldc,
                           cudaStream_t stream, const tilemm_stop *stop, tilemm_emu_plan *used,
                           tilemm_emu_stats *stats_out, tilemm_emu_cuda_times *times,
                           const tilemm_emu_cuda_arena *arena, const tilemm_emu_cuda_blocks *blocks,
                           tilemm_error *err)
{
  const int64_t k2 = 2 * k;
  const size_t xa = align256 (sizeof (T) * (size_t) m * (k2 > 0 ? k2 : 1));
  const size_t yb = align256 (sizeof (T) * (size_t) (k2 > 0 ? k2 : 1) * n);
  char *ops = nullptr;
  tilemm_status st = reserve (ops, 2 * xa + 2 * yb, arena, 3, err);
  if (st != TILEMM_OK)
    return st;
  T *const x1 = (T *) ops, *const x2 = (T *) (ops + xa);
  T *const y1 = (T *) (ops + 2 * xa), *const y2 = (T *) (ops + 2 * xa + yb);
  timer tm;
  tm.start (times != nullptr);
  tm.mark (0, stream);
  if (k > 0)
    {
      TILEMM_LAUNCH (split_a_kernel<T>, dim3 ((unsigned) ceil_div (m, 256), (unsigned) (k < 4096 ? k : 4096)),
                     dim3 (256), stream, a, m, k, lda, x1, x2);
      LAUNCHED ("split_a_kernel");
      TILEMM_LAUNCH (split_b_kernel<T>, dim3 ((unsigned) ceil_div (k, 256), (unsigned) (n < 4096 ? n : 4096)),
                     dim3 (256), stream, b, k, n, ldb, y1, y2);
      LAUNCHED ("split_b_kernel");
    }
  problem<T> p1, p2;
  p1.m = p2.m = m; p1.n = p2.n = n; p1.k = p2.k = k2;
  p1.lda = p2.lda = m > 1 ? m : 1;
  p1.ldb = p2.ldb = k2 > 1 ? k2 : 1;
  p1.a = x1; p1.b = y1; p2.a = x2; p2.b = y2;
  const bool given = rq.mode == RUN_GIVEN;
  st = stage_stats (opt, rq.gc, p1, stream, arena, 0, tm, 1, given, err);
  if (st != TILEMM_OK)
    return st;
  tilemm_emu_stats stats = p1.stats;
  if (!stats.nonfinite)
    {
      st = stage_stats (opt, rq.gc, p2, stream, arena, 2, tm, -1, given, err);
      if (st != TILEMM_OK)
        return st;
      tilemm_emu_stats_merge (&stats, &p2.stats);
    }
  if (stats_out)
    *stats_out = stats;
  if (!settle_plan (rq, opt, stats, used))
    return TILEMM_OK;
  const tilemm_emu_plan plan = *used;
  tm.mark (2, stream);
  if (tilemm_stop_requested (stop))
    return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
  /* The real parts whole, then the imaginary parts in the caller's blocks: the two products
   * share the residues' workspace, so only the second can hand C over block by block. */
  st = stage_product (plan, rq.gc, p1, c, ldc, 2, stream, stop, arena, 1, tm, false, nullptr, err);
  if (st != TILEMM_OK)
    return st;
  if (tilemm_stop_requested (stop))
    {
      cudaStreamSynchronize (stream);
      return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
    }
  st = stage_product (plan, rq.gc, p2, c + 1, ldc, 2, stream, stop, arena, 1, tm, true, blocks, err);
  if (st != TILEMM_OK)
    return st;
  return finish (stream, tm, times, blocks, err);
}

} // namespace tilemm_emu_gpu

/* ---------------------------------------------------------------- entry points */

namespace tilemm_emu_gpu {

/* The entry points' common body. */
tilemm_status run_entry (const run_request &rq, const tilemm_emu_options *options, tilemm_type type,
                         int64_t m, int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                         int64_t ldb, void *c, int64_t ldc, void *stream, const tilemm_stop *stop,
                         tilemm_emu_plan *used, tilemm_emu_stats *stats, tilemm_emu_cuda_times *times,
                         const tilemm_emu_cuda_arena *arena, const tilemm_emu_cuda_blocks *blocks,
                         tilemm_error *err)
{
  if (rq.gc.chunk_tiles < 0)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: no setup (the caller decides "
                             "the int8 GEMM and, for the whole scheme, who decides the plan)");
  if (rq.mode == RUN_WHOLE && !rq.decide)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: no function to decide the plan");
  if (rq.gc.chunk_tiles < 1 || rq.gc.chunk_tiles > TILEMM_EMU_KCHUNK_TILES)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: a k-chunk of %lld tiles "
                             "(1 to %d)", (long long) rq.gc.chunk_tiles, TILEMM_EMU_KCHUNK_TILES);
  if (rq.gc.gemm == TILEMM_EMU_GEMM_WGMMA && !tilemm_emu_cuda_wgmma_runs ())
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: the wgmma GEMM was chosen "
                             "for a device or build that cannot run it");
  if ((int) rq.gc.gemm < TILEMM_EMU_GEMM_WGMMA || (int) rq.gc.gemm > TILEMM_EMU_GEMM_SMALL)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: no int8 GEMM %d",
                             (int) rq.gc.gemm);
  tilemm_emu_options opt;
  if (options)
    opt = *options;
  else
    tilemm_emu_default_options (&opt, type);
  if (m < 0 || n < 0 || k < 0 || lda < (m > 1 ? m : 1) || ldb < (k > 1 ? k : 1)
      || (rq.mode != RUN_STATS && ldc < (m > 1 ? m : 1)))
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: bad sizes or leading dimensions");
  if (opt.moduli > TILEMM_EMU_MAX_MODULI)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: %d moduli (at most %d)", opt.moduli,
                             TILEMM_EMU_MAX_MODULI);
  if (rq.mode == RUN_GIVEN
      && (!rq.given || rq.given->verdict != TILEMM_EMU_OK || rq.given->moduli < 1
          || rq.given->moduli > TILEMM_EMU_MAX_MODULI))
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: the given plan cannot run");
  const int64_t c_blocks = n > 0 ? ceil_div (n, block_width (blocks, n)) : 1;
  if (blocks && blocks->done && c_blocks > (int64_t) blocks->count)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated product: %lld blocks of C, %d events",
                             (long long) c_blocks, blocks->count);
  tilemm_emu_plan local;
  if (!used)
    used = &local;
  memset (used, 0, sizeof *used);
  if (stats)
    {
      memset (stats, 0, sizeof *stats);
      stats->inner = tilemm_type_is_complex (type) ? 2 * k : k;
    }
  if (times)
    memset (times, 0, sizeof *times);
  if (m == 0 || n == 0)
    return TILEMM_OK;
  const cudaStream_t s = (cudaStream_t) stream;
  switch (type)
    {
    case TILEMM_DOUBLE:
      return run_real<double> (rq, &opt, m, n, k, (const double *) a, lda, (const double *) b, ldb,
                               (double *) c, ldc, s, stop, used, stats, times, arena, blocks, err);
    case TILEMM_SINGLE:
      return run_real<float> (rq, &opt, m, n, k, (const float *) a, lda, (const float *) b, ldb,
                              (float *) c, ldc, s, stop, used, stats, times, arena, blocks, err);
    case TILEMM_COMPLEX_DOUBLE:
      return run_complex<double> (rq, &opt, m, n, k, (const double *) a, lda, (const double *) b, ldb,
                                  (double *) c, ldc, s, stop, used, stats, times, arena, blocks, err);
    case TILEMM_COMPLEX_SINGLE:
      return run_complex<float> (rq, &opt, m, n, k, (const float *) a, lda, (const float *) b, ldb,
                                 (float *) c, ldc, s, stop, used, stats, times, arena, blocks, err);
    default:
      return tilemm_error_set (err, TILEMM_ETYPE, "emulated product: unknown element type %d", (int) type);
    }
}

} // namespace tilemm_emu_gpu

/* The caller's setup as a request of `mode` (NULL: none, refused by run_entry). */
static tilemm_emu_gpu::run_request request (tilemm_emu_gpu::run_mode mode, const tilemm_emu_plan *given,
                                            const tilemm_emu_cuda_setup *setup)
{
  tilemm_emu_gpu::run_request rq = { mode, given, nullptr, nullptr, { TILEMM_EMU_GEMM_V2, 0 } };
  if (setup)
    {
      rq.decide = setup->decide;
      rq.decide_ctx = setup->decide_ctx;
      rq.gc.gemm = setup->gemm;
      rq.gc.chunk_tiles = setup->chunk_tiles > 0 ? setup->chunk_tiles : TILEMM_EMU_KCHUNK_TILES;
    }
  else
    rq.gc.chunk_tiles = -1; /* no setup: refused by run_entry */
  return rq;
}

extern "C" int tilemm_emu_cuda_wgmma_runs (void)
{
#ifdef TILEMM_EMULATE
  return 0;
#else
  return tilemm_emu_wgmma_usable () ? 1 : 0;
#endif
}

extern "C" tilemm_status tilemm_emu_cuda_run (const tilemm_emu_options *options,
                                              const tilemm_emu_cuda_setup *setup, tilemm_type type,
                                              int64_t m, int64_t n, int64_t k, const void *a,
                                              int64_t lda, const void *b, int64_t ldb, void *c,
                                              int64_t ldc, void *stream, const tilemm_stop *stop,
                                              tilemm_emu_plan *used, tilemm_emu_stats *stats,
                                              tilemm_emu_cuda_times *times,
                                              const tilemm_emu_cuda_arena *arena,
                                              const tilemm_emu_cuda_blocks *blocks,
                                              tilemm_error *err)
{
  const tilemm_emu_gpu::run_request rq = request (tilemm_emu_gpu::RUN_WHOLE, nullptr, setup);
  return tilemm_emu_gpu::run_entry (rq, options, type, m, n, k, a, lda, b, ldb, c, ldc, stream, stop,
                                    used, stats, times, arena, blocks, err);
}

extern "C" tilemm_status tilemm_emu_cuda_stats (const tilemm_emu_options *options,
                                                const tilemm_emu_cuda_setup *setup, tilemm_type type,
                                                int64_t m, int64_t n, int64_t k, const void *a,
                                                int64_t lda, const void *b, int64_t ldb, void *stream,
                                                tilemm_emu_stats *stats,
                                                const tilemm_emu_cuda_arena *arena, tilemm_error *err)
{
  const tilemm_emu_gpu::run_request rq = request (tilemm_emu_gpu::RUN_STATS, nullptr, setup);
  return tilemm_emu_gpu::run_entry (rq, options, type, m, n, k, a, lda, b, ldb, nullptr, 1, stream,
                                    nullptr, nullptr, stats, nullptr, arena, nullptr, err);
}

extern "C" tilemm_status tilemm_emu_cuda_run_plan (const tilemm_emu_plan *plan,
                                                   const tilemm_emu_cuda_setup *setup,
                                                   tilemm_type type, int64_t m, int64_t n, int64_t k,
                                                   const void *a, int64_t lda, const void *b,
                                                   int64_t ldb, void *c, int64_t ldc, void *stream,
                                                   const tilemm_stop *stop, tilemm_emu_plan *used,
                                                   tilemm_emu_cuda_times *times,
                                                   const tilemm_emu_cuda_arena *arena,
                                                   const tilemm_emu_cuda_blocks *blocks,
                                                   tilemm_error *err)
{
  const tilemm_emu_gpu::run_request rq = request (tilemm_emu_gpu::RUN_GIVEN, plan, setup);
  return tilemm_emu_gpu::run_entry (rq, nullptr, type, m, n, k, a, lda, b, ldb, c, ldc, stream, stop,
                                    used, nullptr, times, arena, blocks, err);
}
