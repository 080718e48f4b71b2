/* bench_emulated.cu — the emulated precision on the GPU (src/kernels/emulated_cuda.cu) against cuBLAS and
 * our native double kernel, and its int8 GEMM against cuBLAS's, in one binary.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Tables:
 *   1. int8 GEMM alone (kernels_imma.cuh, one modulus, the mod epilogue: big, small and v2 tiles; and
 *      kernels_imma_wgmma.cuh on compute capability 9.0) in TOPS (2mnk) beside
 *      cublasGemmEx s8·s8→s32 TN, the ceiling;
 *   2. double: cuBLAS DGEMM, our variant 10 (DMMA), the emulated product (2mnk / time of the whole
 *      call: scan, statistics, conversion, GEMMs, CRT, and the host's share), the ratio to cuBLAS,
 *      the moduli used, and the max relative error over ~2000 sampled entries against a
 *      double-double host reference, beside cuBLAS DGEMM's on the same entries;
 *   3. single: cublasSgemm (default math mode: no TF32) and the emulated single product;
 *   4. where the time of one emulated double product at 8192 goes, stage by stage.
 * Timings: CUDA events, warm-up, median of repeated runs rotating among input sets where memory
 * allows.  Inputs uniform in [-1, 1] away from zero, drawn on the device.
 *
 * Usage: bench_emulated [--quick] [--runs N]
 *
 * Predicted before the first run (H100 SXM, written 2026-11-23 without a GPU at hand):
 *   int8 GEMM, ours 128×256: ~500 TOPS at 4096, ~620 at 8192, ~640 at 16384 (cuBLAS ~1,100–1,250);
 *   emulated double, uniform data: N = 16 moduli at 8192 (pa = pb = 56), GEMMs ~28 ms + ~4 ms
 *     of scan/stats/convert/CRT: ~33 TF/s, ~0.6× cuBLAS DGEMM (~55 TF/s); ~28 TF/s at 4096,
 *     ~36 at 16384; the skinny k = 64 shape is memory-bound: < 10 TF/s;
 *   emulated single: N = 9 at 8192: ~55 TF/s, ~1.1× cuBLAS SGEMM without TF32;
 *   errors: emulated double ≲ 1e-16 relative where cuBLAS shows ~1e-15 (k = 8192).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "../src/kernels/emulated_cuda.cu"
#include "kernels.h"

#include "bench_common.cuh"

/* Warm-up runs before each timing (this benchmark has always taken 2). */
constexpr int EMU_WARMUPS = 2;

__global__ void fill_s8 (int8_t *p, size_t n, uint64_t seed)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    p[i] = (int8_t) (int) floor (uniform_nonzero (seed, i) * 127.5);
}

/* ---------------------------------------------------------------- double-double reference */
struct dd
{
  double hi, lo;
};
static inline dd dd_add (dd a, double b_hi, double b_lo)
{
  const double s = a.hi + b_hi, bb = s - a.hi, e = (a.hi - (s - bb)) + (b_hi - bb);
  const double lo = e + a.lo + b_lo;
  const double h = s + lo;
  return { h, lo - (h - s) };
}
/* Σ_p A(i, p)·B(p, j) in double-double (error about k·2^-104 of Σ|ab|), and Σ|ab|. */
template <typename T>
static void reference (const std::vector<T> &A, const std::vector<T> &B, int64_t m, int64_t k, int64_t i, int64_t j,
                       double &value, double &absval)
{
  dd s = { 0, 0 };
  double a_abs = 0;
  for (int64_t p = 0; p < k; p++)
    {
      const double a = (double) A[i + p * m], b = (double) B[p + j * k];
      const double h = a * b, l = fma (a, b, -h);
      s = dd_add (s, h, l);
      a_abs += fabs (h);
    }
  value = s.hi + s.lo;
  absval = a_abs;
}

struct accuracy
{
  double rel, norm; /* max |c − ref| / |ref|, max |c − ref| / (|A||B|) */
};

/* ---------------------------------------------------------------- main */
struct shape
{
  int64_t m, n, k;
};

static void imma_row (cublasHandle_t h, int64_t n, int runs)
{
  const int64_t m = n, k = n, kp = k;
  int8_t *a, *b;
  int32_t *c32;
  uint8_t *r;
  CUDA_OK (cudaMalloc (&a, m * kp));
  CUDA_OK (cudaMalloc (&b, n * kp));
  CUDA_OK (cudaMalloc (&c32, 4 * m * n));
  CUDA_OK (cudaMalloc (&r, m * n));
  fill_s8<<<1024, 256>>> (a, m * kp, 1);
  fill_s8<<<1024, 256>>> (b, n * kp, 2);
  imma_args ia;
  memset (&ia, 0, sizeof ia);
  ia.a = a; ia.b = b; ia.m = m; ia.n = n; ia.kp = kp; ia.k_begin = 0; ia.k_end = kp;
  ia.chunk_tiles = (int) tilemm_emu_gpu::KCHUNK_TILES;
  ia.moduli[0] = 251; ia.r = r; ia.r_plane = m * n; ia.ldr = m;
  tilemm_error err;
  const double ops = 2.0 * m * n * k;
  const int one = 1, zero = 0;
  const double t_cublas = median_ms ([&] (int) {
    CUBLAS_OK (cublasGemmEx (h, CUBLAS_OP_T, CUBLAS_OP_N, (int) m, (int) n, (int) k, &one, a, CUDA_R_8I, (int) kp, b,
                             CUDA_R_8I, (int) kp, &zero, c32, CUDA_R_32I, (int) m, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT)); }, 1, runs, EMU_WARMUPS);
  std::vector<int32_t> hc (m * n);
  std::vector<uint8_t> hr (m * n);
  CUDA_OK (cudaMemcpy (hc.data (), c32, 4 * m * n, cudaMemcpyDeviceToHost));
  /* each of ours checked against cuBLAS's int32 (mod 251), its output poisoned before its runs */
  int64_t bad = 0;
  auto check = [&] () {
    CUDA_OK (cudaMemcpy (hr.data (), r, m * n, cudaMemcpyDeviceToHost));
    for (int64_t q = 0; q < m * n; q++)
      bad += ((hc[q] % 251) + 251) % 251 != hr[q];
    CUDA_OK (cudaMemset (r, 0xff, m * n));
  };
  CUDA_OK (cudaMemset (r, 0xff, m * n));
  const double t_big = median_ms ([&] (int) {
    if (tilemm_emu_gpu::launch_imma<imma_big, IMMA_MOD> (ia, 1, 0, &err) != TILEMM_OK) { fprintf (stderr, "%s\n", err.detail); exit (2); } }, 1, runs, EMU_WARMUPS);
  check ();
  const double t_small = median_ms ([&] (int) {
    if (tilemm_emu_gpu::launch_imma<imma_small, IMMA_MOD> (ia, 1, 0, &err) != TILEMM_OK) { fprintf (stderr, "%s\n", err.detail); exit (2); } }, 1, runs, EMU_WARMUPS);
  check ();
  const double t_v2 = median_ms ([&] (int) {
    if (tilemm_emu_gpu::launch_imma<imma_v2, IMMA_MOD> (ia, 1, 0, &err) != TILEMM_OK) { fprintf (stderr, "%s\n", err.detail); exit (2); } }, 1, runs, EMU_WARMUPS);
  check ();
  /* the Hopper kernel (kernels_imma_wgmma.cuh) where it runs; 0 elsewhere */
  double t_wgmma = 0;
  if (tilemm_emu_wgmma_usable ())
    {
      t_wgmma = median_ms ([&] (int) {
        if (tilemm_emu_wgmma_launch (ia, 1, 0, &err) != TILEMM_OK) { fprintf (stderr, "%s\n", err.detail); exit (2); } }, 1, runs, EMU_WARMUPS);
      check ();
    }
  printf ("| %5lld³ | %7.0f | %7.0f | %7.0f | %7.0f | %7.0f | %3.0f%% | %3.0f%% | %s |\n", (long long) n, ops / t_big * 1e-9,
          ops / t_small * 1e-9, ops / t_v2 * 1e-9, t_wgmma > 0 ? ops / t_wgmma * 1e-9 : 0.0, ops / t_cublas * 1e-9,
          100 * t_cublas / std::min (t_v2, std::min (t_big, t_small)), t_wgmma > 0 ? 100 * t_cublas / t_wgmma : 0.0,
          bad ? "MISMATCH" : "equal mod 251");
  fflush (stdout);
  cudaFree (a); cudaFree (b); cudaFree (c32); cudaFree (r);
}

template <typename T>
static void product_row (cublasHandle_t h, shape s, int runs, tilemm_emu_cuda_arena *arena, bool breakdown)
{
  const bool dbl = sizeof (T) == 8;
  const int64_t m = s.m, n = s.n, k = s.k;
  const size_t bytes = sizeof (T) * (size_t) (m * k + k * n + 2 * m * n);
  size_t free_b, total_b;
  CUDA_OK (cudaMemGetInfo (&free_b, &total_b));
  const int sets = bytes * 3 < free_b / 4 ? 3 : 1;
  std::vector<T *> A (sets), B (sets), C (sets);
  T *Cref, *Cn;
  for (int i = 0; i < sets; i++)
    {
      CUDA_OK (cudaMalloc (&A[i], sizeof (T) * m * k));
      CUDA_OK (cudaMalloc (&B[i], sizeof (T) * k * n));
      CUDA_OK (cudaMalloc (&C[i], sizeof (T) * m * n));
      fill<T><<<1024, 256>>> (A[i], m * k, 11 + i);
      fill<T><<<1024, 256>>> (B[i], k * n, 21 + i);
    }
  CUDA_OK (cudaMalloc (&Cref, sizeof (T) * m * n));
  CUDA_OK (cudaMalloc (&Cn, sizeof (T) * m * n));
  const double flops = 2.0 * m * n * k;
  const T one = 1, zero = 0;
  auto blas = [&] (int i, T *c) {
    if (dbl)
      CUBLAS_OK (cublasDgemm (h, CUBLAS_OP_N, CUBLAS_OP_N, (int) m, (int) n, (int) k, (const double *) &one,
                              (const double *) A[i], (int) m, (const double *) B[i], (int) k, (const double *) &zero,
                              (double *) c, (int) m));
    else
      CUBLAS_OK (cublasSgemm (h, CUBLAS_OP_N, CUBLAS_OP_N, (int) m, (int) n, (int) k, (const float *) &one,
                              (const float *) A[i], (int) m, (const float *) B[i], (int) k, (const float *) &zero,
                              (float *) c, (int) m));
  };
  const double t_blas = median_ms ([&] (int i) { blas (i, C[i]); }, sets, runs, EMU_WARMUPS);
  double t_native = 0;
  if (dbl)
    {
      tilemm_matrix cm = { n, m, m, Cn }, xm = { n, k, k, (void *) B[0] }, ym = { k, m, m, (void *) A[0] };
      tilemm_error err;
      t_native = median_ms ([&] (int i) {
        xm.elements = B[i]; ym.elements = A[i];
        if (tilemm_cuda_launch (10, TILEMM_DOUBLE, cm, xm, ym, 0, &err) != TILEMM_OK) { fprintf (stderr, "v10: %s\n", err.detail); exit (2); } },
        sets, runs, EMU_WARMUPS);
    }
  tilemm_emu_plan plan = {};
  tilemm_error err = {};
  auto emulated = [&] (int i, tilemm_emu_cuda_times *times) {
    const tilemm_status st = tilemm_emu_cuda_run (nullptr, dbl ? TILEMM_DOUBLE : TILEMM_SINGLE, m, n, k, A[i], m, B[i],
                                                  k, C[i], m, nullptr, nullptr, &plan, nullptr, times, arena, nullptr, &err);
    if (st != TILEMM_OK || plan.verdict != TILEMM_EMU_OK)
      {
        fprintf (stderr, "emulated: status %d verdict %d %s\n", (int) st, (int) plan.verdict, err.detail);
        exit (2);
      }
  };
  const double t_emu = median_ms ([&] (int i) { emulated (i, nullptr); }, sets, runs, EMU_WARMUPS);
  /* accuracy on set 0: a fresh emulated and cuBLAS result */
  emulated (0, nullptr);
  blas (0, Cref);
  CUDA_OK (cudaDeviceSynchronize ());
  std::vector<T> hA (m * k), hB (k * n), hC (m * n), hR (m * n);
  CUDA_OK (cudaMemcpy (hA.data (), A[0], sizeof (T) * m * k, cudaMemcpyDeviceToHost));
  CUDA_OK (cudaMemcpy (hB.data (), B[0], sizeof (T) * k * n, cudaMemcpyDeviceToHost));
  CUDA_OK (cudaMemcpy (hC.data (), C[0], sizeof (T) * m * n, cudaMemcpyDeviceToHost));
  CUDA_OK (cudaMemcpy (hR.data (), Cref, sizeof (T) * m * n, cudaMemcpyDeviceToHost));
  accuracy ae = { 0, 0 }, ab = { 0, 0 };
  const int samples = k > 8192 ? 1000 : 2000;
  uint64_t z = 12345;
  for (int q = 0; q < samples; q++)
    {
      z = z * 6364136223846793005ull + 1442695040888963407ull;
      const int64_t i = (int64_t) ((z >> 33) % (uint64_t) m), j = (int64_t) ((z >> 13) % (uint64_t) n);
      double ref, absref;
      reference (hA, hB, m, k, i, j, ref, absref);
      const double e1 = fabs ((double) hC[i + j * m] - ref), e2 = fabs ((double) hR[i + j * m] - ref);
      if (ref != 0)
        {
          ae.rel = std::max (ae.rel, e1 / fabs (ref));
          ab.rel = std::max (ab.rel, e2 / fabs (ref));
        }
      if (absref != 0)
        {
          ae.norm = std::max (ae.norm, e1 / absref);
          ab.norm = std::max (ab.norm, e2 / absref);
        }
    }
  if (dbl)
    printf ("| %5lldx%5lldx%5lld | %6.2f | %6.2f | %6.2f | %5.2f | %2d (pa %d, pb %d) | %.2e | %.2e | %.2e | %.2e |\n",
            (long long) m, (long long) n, (long long) k, flops / t_blas * 1e-9, flops / t_native * 1e-9,
            flops / t_emu * 1e-9, t_blas / t_emu, plan.moduli, plan.pa, plan.pb, ae.rel, ab.rel, ae.norm, ab.norm);
  else
    printf ("| %5lldx%5lldx%5lld | %6.2f | %6.2f | %5.2f | %2d (pa %d, pb %d) | %.2e | %.2e | %.2e | %.2e |\n",
            (long long) m, (long long) n, (long long) k, flops / t_blas * 1e-9, flops / t_emu * 1e-9, t_blas / t_emu,
            plan.moduli, plan.pa, plan.pb, ae.rel, ab.rel, ae.norm, ab.norm);
  fflush (stdout);
  if (breakdown)
    {
      const int reps = 5;
      tilemm_emu_cuda_times sum = {}, t;
      for (int r = 0; r < reps; r++)
        {
          emulated (0, &t);
          sum.scan_ms += t.scan_ms / reps; sum.stats_ms += t.stats_ms / reps; sum.convert_ms += t.convert_ms / reps;
          sum.gemm_ms += t.gemm_ms / reps; sum.crt_ms += t.crt_ms / reps;
        }
      const double tot = sum.scan_ms + sum.stats_ms + sum.convert_ms + sum.gemm_ms + sum.crt_ms;
      printf ("\nstages of one emulated %s product %lldx%lldx%lld (mean of %d; %d moduli; whole call %.2f ms):\n"
              "  scan %.3f ms | stats %.3f ms | convert %.3f ms | GEMMs %.3f ms (%.0f TOPS int8) | CRT %.3f ms | sum %.3f ms\n\n",
              dbl ? "double" : "single", (long long) m, (long long) n, (long long) k, reps, plan.moduli, t_emu,
              sum.scan_ms, sum.stats_ms, sum.convert_ms, sum.gemm_ms,
              2.0 * m * n * ((k + 15) / 16 * 16) * plan.moduli / sum.gemm_ms * 1e-9, sum.crt_ms, tot);
    }
  for (int i = 0; i < sets; i++)
    {
      cudaFree (A[i]); cudaFree (B[i]); cudaFree (C[i]);
    }
  cudaFree (Cref);
  cudaFree (Cn);
}

int main (int argc, char **argv)
{
  bool quick = false;
  int runs = 10;
  for (int i = 1; i < argc; i++)
    if (!strcmp (argv[i], "--quick"))
      quick = true;
    else if (!strcmp (argv[i], "--runs") && i + 1 < argc)
      runs = atoi (argv[++i]);
  cudaDeviceProp prop;
  CUDA_OK (cudaGetDeviceProperties (&prop, 0));
  printf ("bench_emulated on %s (%d SMs)\n\n", prop.name, prop.multiProcessorCount);
  cublasHandle_t h;
  CUBLAS_OK (cublasCreate (&h));
  CUBLAS_OK (cublasSetMathMode (h, CUBLAS_DEFAULT_MATH)); /* IEEE: no TF32 */
  tilemm_emu_cuda_arena arena = {};

  printf ("int8 GEMM, C = A'·B'ᵀ (k = n), TOPS (2mnk):\n"
          "| n | ours 128x256 | ours 128x128 | ours v2 128x128 (64x64 warps, k 128) | ours wgmma 128x256 (TMA) | cublasGemmEx s8 TN | best mma.sync/cuBLAS | wgmma/cuBLAS | check (all) |\n|---|---|---|---|---|---|---|---|---|\n");
  const int64_t isz[] = { 4096, 8192, 16384 };
  for (int64_t n : isz)
    if (!quick || n <= 8192)
      imma_row (h, n, n >= 16384 ? 5 : runs);

  const shape shapes[] = { { 4096, 4096, 4096 }, { 8192, 8192, 8192 }, { 16384, 16384, 16384 },
                           { 8192, 8192, 64 }, { 8192, 8192, 1024 }, { 65536, 64, 4096 } };
  printf ("\ndouble, TF/s (2mnk); errors: max over sampled entries vs a double-double reference "
          "(rel: /|ref|, norm: /(|A||B|))\n"
          "| m x n x k | cuBLAS DGEMM | ours v10 | emulated | emu/cuBLAS | moduli | rel err emu | rel err cuBLAS | norm err emu | norm err cuBLAS |\n"
          "|---|---|---|---|---|---|---|---|---|---|\n");
  for (const shape &s : shapes)
    if (!quick || s.m * s.n * s.k <= 8192LL * 8192 * 8192)
      product_row<double> (h, s, s.m * s.n * s.k > 8192LL * 8192 * 8192 ? 3 : runs, &arena, false);
  printf ("\nsingle (cuBLAS SGEMM without TF32), TF/s:\n"
          "| m x n x k | cuBLAS SGEMM | emulated | emu/cuBLAS | moduli | rel err emu | rel err cuBLAS | norm err emu | norm err cuBLAS |\n"
          "|---|---|---|---|---|---|---|---|---|\n");
  for (const shape &s : shapes)
    if (!quick || s.m * s.n * s.k <= 8192LL * 8192 * 8192)
      product_row<float> (h, s, s.m * s.n * s.k > 8192LL * 8192 * 8192 ? 3 : runs, &arena, false);
  printf ("\n");
  product_row<double> (h, { 8192, 8192, 8192 }, 3, &arena, true);
  product_row<float> (h, { 8192, 8192, 8192 }, 3, &arena, true);
  tilemm_emu_cuda_arena_free (&arena);
  CUBLAS_OK (cublasDestroy (h));
  return 0;
}
