/* emulated_cuda.cu — the emulated precision (Ozaki scheme II, src/common/emulated.h) on the GPU:
 * its kernels (emulated_kernels.cuh; the int8 GEMMs of kernels_imma.cuh and, on Hopper,
 * imma_wgmma.cu) behind the launchers of emulated_launch.h, and the constant tables the kernels
 * take (the moduli, Garner's CRT basis).  Device code and its launchers only: the stages that
 * reserve the arena's slots, bring the statistics to the host, decide the plan between them and
 * sequence the launches are the CUDA backend's (src/cuda/emulated_scheme.cu).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The steps of one product (emulated.h), each a launcher here:
 *   1. scan      the largest magnitude of each row of A and column of B (the bits of |x| as a
 *                double, max by atomicMax: NaN and Inf sort above every finite value, so the
 *                same pass finds them), then e_a, e_b and the non-finite flag;
 *   2. stats     quantize: lo(â) as int8 K-major, Σ hi and Σ hi² per row of A / column of B
 *                (integer atomics: exact, order-free); S = lo(A)·lo(B)ᵀ on the int8 tensor cores
 *                (kernels_imma.cuh, STATS) with the ratios' maxima in its epilogue;
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
#include <stdint.h>

#include <cuda_runtime_api.h> /* tests/emu has its own, for the host emulation */

#include "cuda_try.h"
#include "emulated.h"
#include "emulated_arena.h"
#include "emulated_launch.h"
#include "fault.h"
#include "emulated_kernels.cuh"
#include "kernels_imma.cuh"
#ifndef TILEMM_EMULATE
#include "imma_wgmma.h" /* the Hopper GEMM: real sm_90a code only, never in the host emulation */
#endif

namespace tilemm_emu_gpu {

/* After a launch: the launch hook (fault.h) and the launch's own error. */
#define LAUNCHED(what)                                                                      \
  CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_LAUNCH, cudaErrorInvalidValue, cudaGetLastError ()), \
            "%s launch", what)

/* ---------------------------------------------------------------- the int8 GEMMs */

template <class Cfg, int EPI>
tilemm_status launch_imma (const imma_args &args, int planes, cudaStream_t stream, tilemm_error *err)
{
  /* Set at every launch, not cached: the attribute belongs to the current device's context, and a
   * later call may run on another device (src/kernels/kernels.cu learned this the hard way). */
  CUDA_TRY (cudaFuncSetAttribute ((const void *) imma_kernel<Cfg, EPI>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES),
            "cudaFuncSetAttribute(imma_kernel)");
  const dim3 grid ((unsigned) tilemm_ceil_div (args.n, Cfg::BN), (unsigned) tilemm_ceil_div (args.m, Cfg::BM), planes);
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

/* The int8 GEMM the caller's plan named (gc.gemm: tilemm_emu_gemm_named for the modular GEMMs,
 * tilemm_emu_stats_gemm for the statistics'; wgmma on the plan's grid, gc.blocks), launched as named: one it cannot run here (wgmma in
 * the host emulation, or for a k range or shape it refuses) is an error, never another kernel. */
template <int EPI>
tilemm_status launch_imma_named (const gemm_choice &gc, const imma_args &args, int planes,
                                 cudaStream_t stream, tilemm_error *err)
{
  switch (gc.gemm)
    {
    case TILEMM_EMU_GEMM_WGMMA:
#ifdef TILEMM_EMULATE
      return tilemm_error_set (err, TILEMM_EINVAL, "int8 GEMM: wgmma named, not in the host emulation");
#else
      {
        imma_args wa = args;
        wa.blocks = gc.blocks;   /* the plan's grid */
        if (EPI == IMMA_MOD)
          return tilemm_emu_wgmma_launch (wa, planes, stream, err);
        if (planes != 1)
          return tilemm_error_set (err, TILEMM_EINVAL, "wgmma statistics GEMM: %d planes", planes);
        return tilemm_emu_wgmma_launch_stats (wa, stream, err);
      }
#endif
    case TILEMM_EMU_GEMM_V2:
      return launch_imma<imma_v2, EPI> (args, planes, stream, err);
    case TILEMM_EMU_GEMM_BIG:
      return launch_imma<imma_big, EPI> (args, planes, stream, err);
    case TILEMM_EMU_GEMM_SMALL:
      return launch_imma<imma_small, EPI> (args, planes, stream, err);
    }
  return tilemm_error_set (err, TILEMM_EINVAL, "int8 GEMM: no kernel %d", (int) gc.gemm);
}

/* ---------------------------------------------------------------- the CRT */

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
        for (int w = 0; w < 3; w++)
          M[t][w] = x[w];
        unsigned __int128 carry = 0;
        for (int w = 0; w < 3; w++)
          {
            const unsigned __int128 p = (unsigned __int128) x[w] * (unsigned) moduli[t] + carry;
            x[w] = (unsigned long long) p;
            carry = p >> 64;
          }
      }
    for (int w = 0; w < 3; w++)
      M[TILEMM_EMU_MAX_MODULI][w] = x[w];
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
      unsigned Mt[W], q[W];
      for (int l = 0; l < W; l++)
        Mt[l] = M[l];
      div (Mt, mt);
      for (int l = 0; l < W; l++)
        q[l] = Mt[l];
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
  a = crt_args ();
  if (N < 1 || N > TILEMM_EMU_MAX_MODULI || !crt_tables (N, a))
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated CRT: no tables for %d moduli", N);
  a.r = r; a.r_plane = r_plane; a.m = m; a.n = n;
  a.ea = ea; a.eb = eb; a.shift = shift;
  a.c = c; a.ldc = ldc; a.step = step;
  grid = dim3 ((unsigned) tilemm_ceil_div (m, 4 * 256), (unsigned) (n < 65535 ? n : 65535));
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

/* ---------------------------------------------------------------- a complex product's operands */

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

/* ---------------------------------------------------------------- the stages' launchers */

template <typename T>
tilemm_status launch_scan (const T *a, int64_t m, int64_t k, int64_t lda, const T *b, int64_t n,
                           int64_t ldb, unsigned long long *amax_a, unsigned long long *amax_b,
                           int *ea, int *eb, int *flag, cudaStream_t stream, tilemm_error *err)
{
  if (k > 0 && m > 0)
    {
      const int64_t pchunk = 256;
      TILEMM_LAUNCH (scan_rows_kernel<T>, dim3 ((unsigned) tilemm_ceil_div (m, 256), (unsigned) tilemm_ceil_div (k, pchunk)),
                     dim3 (256), stream, a, m, k, lda, pchunk, amax_a);
      LAUNCHED ("scan_rows_kernel");
    }
  if (k > 0 && n > 0)
    {
      const int64_t pchunk_b = 8192;
      TILEMM_LAUNCH (scan_cols_kernel<T>, dim3 ((unsigned) n, (unsigned) tilemm_ceil_div (k, pchunk_b)), dim3 (256),
                     stream, b, k, ldb, pchunk_b, amax_b);
      LAUNCHED ("scan_cols_kernel");
    }
  if (m > 0)
    {
      TILEMM_LAUNCH (exponents_kernel, dim3 ((unsigned) tilemm_ceil_div (m, 256)), dim3 (256), stream,
                     (const unsigned long long *) amax_a, m, ea, flag);
      LAUNCHED ("exponents_kernel(A)");
    }
  if (n > 0)
    {
      TILEMM_LAUNCH (exponents_kernel, dim3 ((unsigned) tilemm_ceil_div (n, 256)), dim3 (256), stream,
                     (const unsigned long long *) amax_b, n, eb, flag);
      LAUNCHED ("exponents_kernel(B)");
    }
  return TILEMM_OK;
}

template <typename T>
tilemm_status launch_quantize (bool of_a, const T *x, int64_t rows, int64_t k, int64_t ld,
                               int64_t kp, const int *e, int8_t *lo, unsigned long long *sum,
                               unsigned long long *sum2, cudaStream_t stream, tilemm_error *err)
{
  convert_args ca = {};
  ca.src = x; ca.rows = rows; ca.k = k; ca.ld = ld; ca.kp = kp; ca.e = e;
  ca.lo = lo; ca.sum = sum; ca.sum2 = sum2;
  /* QUANT_TILES tiles of k per block: a row's sums take one atomic addition per block */
  const dim3 grid (quant_blocks_k (kp), (unsigned) tilemm_ceil_div (rows, CT));
  if (of_a)
    {
      TILEMM_LAUNCH ((convert_kernel<T, true, CONVERT_QUANT>), grid, dim3 (256), stream, ca);
      LAUNCHED ("convert_kernel(quantize A)");
    }
  else
    {
      TILEMM_LAUNCH ((convert_kernel<T, false, CONVERT_QUANT>), grid, dim3 (256), stream, ca);
      LAUNCHED ("convert_kernel(quantize B)");
    }
  return TILEMM_OK;
}

tilemm_status launch_stats_gemm (const gemm_choice &gc, const int8_t *loa, const int8_t *lob,
                                 int64_t m, int64_t n, int64_t kp, int64_t *s64,
                                 const unsigned long long *sa, const unsigned long long *sb,
                                 const int *ea, const int *eb, unsigned long long *ratio,
                                 cudaStream_t stream, tilemm_error *err)
{
  imma_args ia = {};
  ia.a = loa; ia.b = lob; ia.m = m; ia.n = n; ia.kp = kp;
  ia.chunk_tiles = 1 << 30;
  ia.s64 = s64;
  ia.sa = (const int64_t *) sa; ia.sb = (const int64_t *) sb; ia.ea = ea; ia.eb = eb;
  ia.ratio_bits = ratio;
  const int64_t chunk = gc.chunk_tiles * 64;
  for (int64_t k0 = 0; k0 < kp; k0 += chunk)
    {
      ia.k_begin = k0;
      ia.k_end = k0 + chunk < kp ? k0 + chunk : kp;
      ia.first = k0 == 0;
      ia.last = ia.k_end == kp;
      const tilemm_status st = launch_imma_named<IMMA_STATS> (gc, ia, 1, stream, err);
      if (st != TILEMM_OK)
        return st;
    }
  return TILEMM_OK;
}

template <typename T>
tilemm_status launch_residues (bool of_a, const T *x, int64_t rows, int64_t k, int64_t ld,
                               int64_t kp, const int *e, int bits, int moduli, int8_t *out,
                               cudaStream_t stream, tilemm_error *err)
{
  const tables &tab = the_tables ();
  convert_args ca = {};
  ca.src = x; ca.rows = rows; ca.k = k; ca.ld = ld; ca.kp = kp; ca.e = e;
  ca.bits = bits; ca.out = out; ca.out_plane = rows * kp; ca.nmod = moduli;
  for (int t = 0; t < moduli; t++)
    {
      ca.moduli[t] = (unsigned) tab.moduli[t];
      ca.pow32[t] = tab.pow32[t];
    }
  const dim3 grid ((unsigned) tilemm_ceil_div (kp, CT), (unsigned) tilemm_ceil_div (rows, CT));
  if (of_a)
    {
      TILEMM_LAUNCH ((convert_kernel<T, true, CONVERT_RESIDUES>), grid, dim3 (256), stream, ca);
      LAUNCHED ("convert_kernel(residues of A)");
    }
  else
    {
      TILEMM_LAUNCH ((convert_kernel<T, false, CONVERT_RESIDUES>), grid, dim3 (256), stream, ca);
      LAUNCHED ("convert_kernel(residues of B)");
    }
  return TILEMM_OK;
}

tilemm_status launch_mod_gemms (const gemm_choice &gc, const int8_t *ra, const int8_t *rb,
                                int64_t m, int64_t cols, int64_t n, int64_t kp, int first,
                                int planes, uint8_t *r, cudaStream_t stream, tilemm_error *err)
{
  const tables &tab = the_tables ();
  imma_args ia = {};
  ia.m = m; ia.n = cols; ia.kp = kp; ia.k_begin = 0; ia.k_end = kp;
  ia.a_plane = m * kp; ia.b_plane = n * kp;
  ia.chunk_tiles = (int) gc.chunk_tiles;
  ia.r_plane = m * n; ia.ldr = m;
  ia.a = ra + first * ia.a_plane;
  ia.b = rb + first * ia.b_plane;
  ia.r = r + first * ia.r_plane;
  for (int z = 0; z < planes; z++)
    ia.moduli[z] = tab.moduli[first + z];
  return launch_imma_named<IMMA_MOD> (gc, ia, planes, stream, err);
}

template <typename T>
tilemm_status launch_complex_split (const T *a, int64_t m, int64_t k, int64_t lda, const T *b,
                                    int64_t n, int64_t ldb, T *x1, T *x2, T *y1, T *y2,
                                    cudaStream_t stream, tilemm_error *err)
{
  if (k == 0)
    return TILEMM_OK;
  TILEMM_LAUNCH (split_a_kernel<T>, dim3 ((unsigned) tilemm_ceil_div (m, 256), (unsigned) (k < 4096 ? k : 4096)),
                 dim3 (256), stream, a, m, k, lda, x1, x2);
  LAUNCHED ("split_a_kernel");
  TILEMM_LAUNCH (split_b_kernel<T>, dim3 ((unsigned) tilemm_ceil_div (k, 256), (unsigned) (n < 4096 ? n : 4096)),
                 dim3 (256), stream, b, k, n, ldb, y1, y2);
  LAUNCHED ("split_b_kernel");
  return TILEMM_OK;
}

/* The launchers the CUDA backend's stages call, for both real types. */
#define TILEMM_EMU_LAUNCHERS(T)                                                              \
  template tilemm_status launch_scan<T> (const T *, int64_t, int64_t, int64_t, const T *,      \
                                         int64_t, int64_t, unsigned long long *,                \
                                         unsigned long long *, int *, int *, int *,             \
                                         cudaStream_t, tilemm_error *);                         \
  template tilemm_status launch_quantize<T> (bool, const T *, int64_t, int64_t, int64_t,        \
                                             int64_t, const int *, int8_t *,                    \
                                             unsigned long long *, unsigned long long *,         \
                                             cudaStream_t, tilemm_error *);                     \
  template tilemm_status launch_residues<T> (bool, const T *, int64_t, int64_t, int64_t,        \
                                             int64_t, const int *, int, int, int8_t *,          \
                                             cudaStream_t, tilemm_error *);                     \
  template tilemm_status launch_crt<T> (int, const uint8_t *, int64_t, int64_t, int64_t,        \
                                        const int *, const int *, int, T *, int64_t, int,       \
                                        cudaStream_t, tilemm_error *);                          \
  template tilemm_status launch_complex_split<T> (const T *, int64_t, int64_t, int64_t,         \
                                                  const T *, int64_t, int64_t, T *, T *, T *,   \
                                                  T *, cudaStream_t, tilemm_error *);
TILEMM_EMU_LAUNCHERS (double)
TILEMM_EMU_LAUNCHERS (float)
#undef TILEMM_EMU_LAUNCHERS

} // namespace tilemm_emu_gpu
