/* bench_emulated.cu — the emulated precision on the GPU (src/kernels/emulated_cuda.cu) against cuBLAS and
 * our native double kernel, and its int8 GEMM against cuBLAS's, in one binary.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Tables:
 *   1. int8 GEMM alone (kernels_imma.cuh, one modulus, the mod epilogue: big, small and v2 tiles; and
 *      kernels_imma_wgmma.cuh on compute capability 9.0) in TOPS (2mnk) beside
 *      cublasGemmEx s8·s8→s32 TN, the ceiling;
 *   2. double: cuBLAS DGEMM, our variant 10 (DMMA), the emulated product under the certified rule
 *      and under the native-matching one (2mnk / device time of the whole scheme: scan,
 *      statistics, conversion, GEMMs, CRT, and the host's share), the ratio to cuBLAS, the moduli
 *      used, and the max error over ~2000 sampled entries against the exact product rounded once
 *      (exact_dot.h), beside cuBLAS DGEMM's on the same entries; on uniform data and on wide-range
 *      data (phi = 4).  Under a preloaded GEMMul8 (bench/run-peers.sh) the cuBLAS column is
 *      GEMMul8's;
 *   3. single: cublasSgemm (default math mode: no TF32) and the emulated single product;
 *   4. where the time of one emulated double product at 8192 (and 16384 when --sizes names it)
 *      goes, stage by stage.
 * Timings: CUDA events, warm-up, median of repeated runs rotating among input sets where memory
 * allows.  Inputs uniform in [-1, 1] away from zero, drawn on the device.
 *
 *   5. the whole call from pageable host memory, transfers included (bench_whole_call.cuh):
 *      cuBLAS DGEMM with its copies, tilemm's native call, tilemm's emulated call in one panel and
 *      as its plan cuts it (pipelined), and whether the two emulated results are bitwise equal.
 *
 * Usage: bench_emulated [--quick] [--runs N] [--native] [--elementwise] [--passes] [--no-int8] [--no-v10] [--types ds]
 *                       [--sizes 8192,16384] [--no-whole] [--whole-only] [--phi 4]
 *   --native: the emulated products under "accuracy", "native" (TILEMM_EMU_RULE_NATIVE);
 *   --elementwise: ... under "accuracy", "elementwise" (TILEMM_EMU_RULE_ELEMENTWISE, native
 *             BLAS's elementwise bound), with each row's sampled entries against that bound;
 *   --passes: only the statistics' GEMM, CRT, conversion and quantization passes alone (and the copy ceiling),
 *             then table 4;
 *   --no-int8: no int8 table (under a preloaded GEMMul8, whose hook would take cuBLAS's int8 call);
 *   --sizes: these shapes only (N: N×N×N, or MxNxK); --types: d and/or s;
 *   --no-whole: no table 5; --whole-only: table 5 alone; --phi X: the wide-range data's phi (4);
 *   --cublas-only: no emulated product of ours (bench/run-peers.sh: a preloaded peer's column).
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

#include "../src/kernels/emulated_cuda.cu" /* the launchers and the kernels' tables */
#include "emulated_scheme.h"
#include "exact_dot.h"
#include "kernels.h"

#include "bench_common.cuh"
#include "bench_whole_call.cuh"

/* Warm-up runs before each timing (this benchmark has always taken 2). */
constexpr int EMU_WARMUPS = 2;

__global__ void fill_s8 (int8_t *p, size_t n, uint64_t seed)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    p[i] = (int8_t) (int) floor (uniform_nonzero (seed, i) * 127.5);
}

/* Wide-range data, as GEMMul8's papers test: (u − 1/2)·exp(φ·g), u uniform in (0, 1), g standard
 * normal (Box–Muller from two more uniforms; |g| below 3.7, uniform_nonzero staying 1e-3 away
 * from 0), φ = 0 the plain uniform_nonzero data. */
template <typename T> __global__ void fill_phi (T *p, size_t n, uint64_t seed, double phi)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    if (phi <= 0)
      p[i] = (T) uniform_nonzero (seed, i);
    else
      {
        const double u = 0.5 * (uniform_nonzero (seed, 3 * i) + 1.0);
        const double u1 = fabs (uniform_nonzero (seed ^ 0x5bd1e995ull, 3 * i + 1));
        const double u2 = 0.5 * (uniform_nonzero (seed ^ 0x27d4eb2full, 3 * i + 2) + 1.0);
        const double g = sqrt (-2.0 * log (u1)) * cospi (2.0 * u2);
        p[i] = (T) ((u - 0.5) * exp (phi * g));
      }
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
  /* The value itself exactly, rounded once (exact_dot.h): the errors are against it. */
  std::vector<double> x ((size_t) k), y ((size_t) k);
  for (int64_t p = 0; p < k; p++)
    x[p] = (double) A[i + p * m], y[p] = (double) B[p + j * k];
  value = tilemm_exact_dot (x.data (), 1, y.data (), 1, k, 0);
}

struct accuracy
{
  double rel, norm; /* max |c − ref| / |ref|, max |c − ref| / (|A||B|) */
};

/* ---------------------------------------------------------------- the passes alone */

struct moduli_list
{
  int m[TILEMM_EMU_MAX_MODULI];
};
/* N residue planes of random residues in [0, m_t) */
__global__ void fill_residues (uint8_t *r, int64_t plane, int N, moduli_list ml, uint64_t seed)
{
  for (int64_t q = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; q < plane; q += (int64_t) gridDim.x * blockDim.x)
    for (int t = 0; t < N; t++)
      {
        uint64_t z = (seed + t) * 0x9E3779B97F4A7C15ull + q * 0xBF58476D1CE4E5B9ull;
        z ^= z >> 29;
        z *= 0x94D049BB133111EBull;
        z ^= z >> 32;
        r[t * plane + q] = (uint8_t) (z % (uint64_t) ml.m[t]);
      }
}
__global__ void fill_ints (int *p, int64_t n, int lo, int span, uint64_t seed)
{
  for (int64_t q = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; q < n; q += (int64_t) gridDim.x * blockDim.x)
    p[q] = lo + (int) ((uint64_t) ((seed + q) * 0x9E3779B97F4A7C15ull) >> 40) % span;
}
__global__ void count_differences (const uint8_t *a, const uint8_t *b, size_t n, unsigned long long *bad)
{
  unsigned long long mine = 0;
  for (size_t q = blockIdx.x * (size_t) blockDim.x + threadIdx.x; q < n; q += (size_t) gridDim.x * blockDim.x)
    mine += a[q] != b[q];
  if (mine)
    atomicAdd (bad, mine);
}
/* Device 0's multiprocessors: the wgmma GEMM's persistent grid, as the call plan hands it
 * (tilemm_emu_gemm_grid of emu_multiprocessors, from the device facts). */
static int bench_gemm_blocks ()
{
  cudaDeviceProp prop;
  return cudaGetDeviceProperties (&prop, 0) == cudaSuccess && prop.multiProcessorCount > 0
           ? prop.multiProcessorCount : 1;
}

static unsigned long long differences (const void *a, const void *b, size_t n)
{
  unsigned long long *d, h = 0;
  CUDA_OK (cudaMalloc (&d, 8));
  CUDA_OK (cudaMemset (d, 0, 8));
  count_differences<<<1024, 256>>> ((const uint8_t *) a, (const uint8_t *) b, n, d);
  CUDA_OK (cudaMemcpy (&h, d, 8, cudaMemcpyDeviceToHost));
  cudaFree (d);
  return h;
}

/* The CRT pass alone at n×n for N moduli: crt_kernel with DPC = 0, 2, 3, 4 columns on the FP64 pipe,
 * each output compared bytewise with the first's (the default's bits are the tests'). */
template <typename T, int N>
static void crt_pass (int64_t n, int runs)
{
  const int64_t m = n, plane = m * n;
  uint8_t *r;
  int *ea, *eb;
  T *c[4];
  CUDA_OK (cudaMalloc (&r, (size_t) N * plane));
  CUDA_OK (cudaMalloc (&ea, 4 * m));
  CUDA_OK (cudaMalloc (&eb, 4 * n));
  for (auto &x : c)
    CUDA_OK (cudaMalloc (&x, sizeof (T) * plane));
  moduli_list ml;
  for (int t = 0; t < TILEMM_EMU_MAX_MODULI; t++)
    ml.m[t] = tilemm_emu_moduli[t];
  fill_residues<<<4096, 256>>> (r, plane, N, ml, 7);
  fill_ints<<<64, 256>>> (ea, m, -3, 7, 1);
  fill_ints<<<64, 256>>> (eb, n, -3, 7, 2);
  const int shift = 8 * N; /* |X·2^e| around 1 */
  tilemm_emu_gpu::crt_args a;
  dim3 grid;
  tilemm_error err = {};
  double ms[4];
  const int dpc[4] = { 0, 2, 3, 4 };
  for (int v = 0; v < 4; v++)
    {
      if (tilemm_emu_gpu::crt_setup (N, r, m * n, m, n, ea, eb, shift, c[v], m, 1, a, grid, &err) != TILEMM_OK)
        {
          fprintf (stderr, "crt_setup: %s\n", err.detail);
          exit (2);
        }
      ms[v] = median_ms ([&] (int) {
        if (v == 0) tilemm_emu_gpu::crt_kernel<N, T, 0><<<grid, 256>>> (a);
        else if (v == 1) tilemm_emu_gpu::crt_kernel<N, T, 2><<<grid, 256>>> (a);
        else if (v == 2) tilemm_emu_gpu::crt_kernel<N, T, 3><<<grid, 256>>> (a);
        else tilemm_emu_gpu::crt_kernel<N, T, 4><<<grid, 256>>> (a);
        CUDA_OK (cudaGetLastError ()); }, 1, runs, EMU_WARMUPS);
    }
  const double bytes = (double) plane * (N + sizeof (T));
  for (int v = 0; v < 4; v++)
    printf ("| CRT %s | %d | %lld² | FP64 columns %d%s | %.3f | %.0f | %s |\n", sizeof (T) == 8 ? "double" : "single", N,
            (long long) n, dpc[v], dpc[v] == tilemm_emu_gpu::CRT_DP_COLUMNS ? " (default)" : "", ms[v],
            bytes / ms[v] * 1e-6, v == 0 ? "reference" : differences (c[v], c[0], sizeof (T) * plane) ? "DIFFERS" : "equal");
  fflush (stdout);
  cudaFree (r); cudaFree (ea); cudaFree (eb);
  for (auto &x : c)
    cudaFree (x);
}

/* The conversion to N residue planes alone: A (n×n, column-major, through shared memory) and B. */
template <typename T>
static void convert_pass (int64_t n, int N, int runs)
{
  const int64_t kp = n;
  T *src;
  int *e;
  int8_t *out;
  CUDA_OK (cudaMalloc (&src, sizeof (T) * n * n));
  CUDA_OK (cudaMalloc (&e, 4 * n));
  CUDA_OK (cudaMalloc (&out, (size_t) N * n * kp));
  fill<T><<<1024, 256>>> (src, n * n, 5);
  fill_ints<<<64, 256>>> (e, n, 1, 1, 0); /* |x| < 1 < 2^1 */
  const tilemm_emu_gpu::tables &tab = tilemm_emu_gpu::the_tables ();
  tilemm_emu_gpu::convert_args ca;
  memset (&ca, 0, sizeof ca);
  ca.src = src; ca.rows = n; ca.k = n; ca.ld = n; ca.kp = kp; ca.e = e;
  ca.bits = sizeof (T) == 8 ? 56 : 27; ca.out = out; ca.out_plane = n * kp; ca.nmod = N;
  for (int t = 0; t < N; t++)
    {
      ca.moduli[t] = (unsigned) tab.moduli[t];
      ca.pow32[t] = tab.pow32[t];
    }
  using tilemm_emu_gpu::CT;
  const dim3 grid ((unsigned) ((kp + CT - 1) / CT), (unsigned) ((n + CT - 1) / CT));
  const double ta = median_ms ([&] (int) {
    tilemm_emu_gpu::convert_kernel<T, true, tilemm_emu_gpu::CONVERT_RESIDUES><<<grid, 256>>> (ca); }, 1, runs, EMU_WARMUPS);
  const double tb = median_ms ([&] (int) {
    tilemm_emu_gpu::convert_kernel<T, false, tilemm_emu_gpu::CONVERT_RESIDUES><<<grid, 256>>> (ca); }, 1, runs, EMU_WARMUPS);
  CUDA_OK (cudaGetLastError ());
  const double bytes = (double) n * n * sizeof (T) + (double) N * n * kp;
  printf ("| conversion %s, A (transposed read) | %d | %lld² | | %.3f | %.0f | |\n| conversion %s, B | %d | %lld² | | %.3f | %.0f | |\n",
          sizeof (T) == 8 ? "double" : "single", N, (long long) n, ta, bytes / ta * 1e-6, sizeof (T) == 8 ? "double" : "single", N,
          (long long) n, tb, bytes / tb * 1e-6);
  fflush (stdout);
  cudaFree (src); cudaFree (e); cudaFree (out);
}

/* The quantization alone (the certified rule's statistics, before their GEMM): A (n×n,
 * column-major) and B into lo bytes and the sums Σ hi, Σ hi² per row, as stage_stats launches
 * it; the sums' FNV-1a hash, so that two builds can be compared. */
template <typename T>
static void quantize_pass (int64_t n, int runs)
{
  const int64_t kp = n;
  T *src;
  int *e;
  int8_t *lo;
  unsigned long long *sums;
  CUDA_OK (cudaMalloc (&src, sizeof (T) * n * n));
  CUDA_OK (cudaMalloc (&e, 4 * n));
  CUDA_OK (cudaMalloc (&lo, (size_t) n * kp));
  CUDA_OK (cudaMalloc (&sums, 16 * (size_t) n));
  fill<T><<<1024, 256>>> (src, n * n, 7);
  fill_ints<<<64, 256>>> (e, n, 1, 1, 0); /* |x| < 1 < 2^1 */
  tilemm_emu_gpu::convert_args ca;
  memset (&ca, 0, sizeof ca);
  ca.src = src; ca.rows = n; ca.k = n; ca.ld = n; ca.kp = kp; ca.e = e;
  ca.lo = lo; ca.sum = sums; ca.sum2 = sums + n;
  using tilemm_emu_gpu::CT;
  const dim3 grid (tilemm_emu_gpu::quant_blocks_k (kp), (unsigned) ((n + CT - 1) / CT));
  uint64_t hash[2];
  double t[2];
  for (int side = 0; side < 2; side++)
    {
      t[side] = median_ms ([&] (int) {
        CUDA_OK (cudaMemsetAsync (sums, 0, 16 * (size_t) n));
        if (side == 0)
          tilemm_emu_gpu::convert_kernel<T, true, tilemm_emu_gpu::CONVERT_QUANT><<<grid, 256>>> (ca);
        else
          tilemm_emu_gpu::convert_kernel<T, false, tilemm_emu_gpu::CONVERT_QUANT><<<grid, 256>>> (ca); }, 1, runs, EMU_WARMUPS);
      CUDA_OK (cudaGetLastError ());
      std::vector<unsigned long long> h (2 * (size_t) n);
      CUDA_OK (cudaMemcpy (h.data (), sums, 16 * (size_t) n, cudaMemcpyDeviceToHost));
      uint64_t x = 0xcbf29ce484222325ull;
      for (unsigned long long v : h)
        x = (x ^ v) * 0x100000001b3ull;
      hash[side] = x;
    }
  const double bytes = (double) n * n * sizeof (T) + (double) n * kp;
  for (int side = 0; side < 2; side++)
    printf ("| quantization %s, %s | | %lld² | lo and sums | %.3f | %.0f | sums %016llx |\n", sizeof (T) == 8 ? "double" : "single",
            side == 0 ? "A (transposed read)" : "B", (long long) n, t[side], bytes / t[side] * 1e-6, (unsigned long long) hash[side]);
  fflush (stdout);
  cudaFree (src); cudaFree (e); cudaFree (lo); cudaFree (sums);
}

/* The copy ceiling: a device-to-device copy, bytes read plus bytes written. */
static void copy_ceiling (int runs)
{
  const size_t bytes = (size_t) 2 << 30;
  void *a, *b;
  CUDA_OK (cudaMalloc (&a, bytes));
  CUDA_OK (cudaMalloc (&b, bytes));
  CUDA_OK (cudaMemset (a, 1, bytes));
  const double t = median_ms ([&] (int) { CUDA_OK (cudaMemcpyAsync (b, a, bytes, cudaMemcpyDeviceToDevice)); }, 1, runs, 2);
  printf ("| device copy 2 GiB (read + write) | | | | %.3f | %.0f | |\n", t, 2.0 * bytes / t * 1e-6);
  cudaFree (a); cudaFree (b);
}

/* The statistics' int8 GEMM alone at n×n×n (one launch, the default kernel: wgmma on compute
 * capability 9.0), with its STATS epilogue and, as the floor, the same GEMM with the MOD epilogue
 * of one modulus.  lo values in [0, 126], sums and exponents drawn with some zero rows and
 * columns; the ratio bits are printed so that two builds can be compared. */
__global__ void fill_lo (int8_t *p, size_t n, uint64_t seed)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    p[i] = (int8_t) (int) floor (fabs (uniform_nonzero (seed, i)) * 126.999);
}
__global__ void fill_sums (int64_t *s, int *e, int64_t n, int64_t k, uint64_t seed)
{
  for (int64_t q = blockIdx.x * (int64_t) blockDim.x + threadIdx.x; q < n; q += (int64_t) gridDim.x * blockDim.x)
    {
      const uint64_t z = (seed + q) * 0x9E3779B97F4A7C15ull;
      s[q] = 1 + (int64_t) ((z >> 20) % (uint64_t) (127 * k));
      e[q] = (z >> 8) % 97 == 0 ? TILEMM_EMU_ZERO_ROW : (int) ((z >> 12) % 9) - 4;
    }
}
static void stats_pass (int64_t n, int runs)
{
  const int64_t kp = n;
  int8_t *a, *b;
  int64_t *sa, *sb, *s64;
  int *ea, *eb;
  unsigned long long *ratio;
  uint8_t *r;
  CUDA_OK (cudaMalloc (&a, (size_t) (n * kp)));
  CUDA_OK (cudaMalloc (&b, (size_t) (n * kp)));
  CUDA_OK (cudaMalloc (&sa, 8 * n));
  CUDA_OK (cudaMalloc (&sb, 8 * n));
  CUDA_OK (cudaMalloc (&s64, 8));
  CUDA_OK (cudaMalloc (&ea, 4 * n));
  CUDA_OK (cudaMalloc (&eb, 4 * n));
  CUDA_OK (cudaMalloc (&ratio, 16));
  CUDA_OK (cudaMalloc (&r, (size_t) (n * n)));
  fill_lo<<<1024, 256>>> (a, (size_t) (n * kp), 11);
  fill_lo<<<1024, 256>>> (b, (size_t) (n * kp), 12);
  fill_sums<<<64, 256>>> (sa, ea, n, n, 13);
  fill_sums<<<64, 256>>> (sb, eb, n, n, 14);
  CUDA_OK (cudaGetLastError ());
  imma_args ia;
  memset (&ia, 0, sizeof ia);
  ia.a = a; ia.b = b; ia.m = n; ia.n = n; ia.kp = kp; ia.k_begin = 0; ia.k_end = kp;
  ia.first = 1; ia.last = 1; ia.chunk_tiles = 1 << 30;
  ia.s64 = s64; ia.sa = sa; ia.sb = sb; ia.ea = ea; ia.eb = eb; ia.ratio_bits = ratio;
  tilemm_error err = {};
  /* the default int8 GEMM at the real k-chunk, as the executor's plan chooses it */
  const tilemm_emu_gemm named = tilemm_emu_gemm_named (nullptr, tilemm_emu_cuda_wgmma_runs ());
  const tilemm_emu_gemm stats = tilemm_emu_stats_gemm (named, kp, TILEMM_EMU_KCHUNK_TILES);
  const tilemm_emu_gpu::gemm_choice gc = { named, TILEMM_EMU_KCHUNK_TILES, stats, bench_gemm_blocks (),
                                           bench_gemm_blocks () };
  const tilemm_emu_gpu::gemm_choice gs = { stats, gc.chunk_tiles, stats, gc.blocks, gc.blocks };
  ia.blocks = gc.blocks;   /* the wgmma launch below takes its grid from its arguments */
  const double ts = median_ms ([&] (int) {
    CUDA_OK (cudaMemsetAsync (ratio, 0, 16));
    if (tilemm_emu_gpu::launch_imma_named<IMMA_STATS> (gs, ia, 1, 0, &err) != TILEMM_OK)
      {
        fprintf (stderr, "stats GEMM: %s\n", err.detail);
        exit (2);
      } }, 1, runs, EMU_WARMUPS);
  unsigned long long bits[2];
  CUDA_OK (cudaMemcpy (bits, ratio, 16, cudaMemcpyDeviceToHost));
  imma_args im = ia;
  im.chunk_tiles = (int) TILEMM_EMU_KCHUNK_TILES;
  im.moduli[0] = tilemm_emu_moduli[0];
  im.r = r; im.r_plane = n * n; im.ldr = n;
  const double tm = median_ms ([&] (int) {
    if (tilemm_emu_gpu::launch_imma_named<IMMA_MOD> (gc, im, 1, 0, &err) != TILEMM_OK)
      {
        fprintf (stderr, "MOD GEMM: %s\n", err.detail);
        exit (2);
      } }, 1, runs, EMU_WARMUPS);
  const double ops = 2.0 * n * n * kp;
  double ra, rb;
  memcpy (&ra, &bits[0], 8);
  memcpy (&rb, &bits[1], 8);
  printf ("| statistics GEMM, STATS epilogue | | %lld² | | %.3f | %.0f TOPS | ratios %016llx %016llx (%.17g %.17g) |\n"
          "| the same GEMM, MOD epilogue (the floor) | 1 | %lld² | | %.3f | %.0f TOPS | |\n",
          (long long) n, ts, ops / ts * 1e-9, bits[0], bits[1], ra, rb, (long long) n, tm, ops / tm * 1e-9);
  fflush (stdout);
  cudaFree (a); cudaFree (b); cudaFree (sa); cudaFree (sb); cudaFree (s64); cudaFree (ea); cudaFree (eb);
  cudaFree (ratio); cudaFree (r);
}

static void passes (int runs)
{
  printf ("the passes alone (8192², median of %d; GB/s: bytes read + written once / time):\n"
          "| pass | moduli | size | variant | ms | GB/s | check |\n|---|---|---|---|---|---|---|\n", runs);
  copy_ceiling (runs);
  stats_pass (8192, runs);
  stats_pass (16384, runs < 5 ? runs : 5);
  crt_pass<double, 17> (8192, runs);
  crt_pass<double, 15> (8192, runs);
  crt_pass<double, 14> (8192, runs);
  crt_pass<float, 9> (8192, runs);
  crt_pass<float, 7> (8192, runs);
  convert_pass<double> (8192, 17, runs);
  convert_pass<double> (8192, 15, runs);
  convert_pass<float> (8192, 9, runs);
  quantize_pass<double> (8192, runs);
  quantize_pass<float> (8192, runs);
  printf ("\n");
}

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
  ia.chunk_tiles = (int) TILEMM_EMU_KCHUNK_TILES;
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

/* The emulated products' options: the certified rule (the default), "accuracy", "native" or
 * "accuracy", "elementwise". */
static bool native_rule = false;
static bool elementwise_rule = false;

/* The main column's rule, as its header names it. */
static const char *main_rule_name ()
{
  return native_rule ? "native-matching" : elementwise_rule ? "elementwise" : "certified";
}
static bool with_v10 = true; /* time our native double kernel too */
static double wide_phi = 4.0; /* the wide-range data's phi (--phi) */
static bool cublas_only = false; /* --cublas-only: the cuBLAS column alone (a preloaded peer's) */
/* --sizes' MxNxK entries (a skinny shape beside the squares) */
static std::vector<shape> given_shapes;

/* The arena as the executor's workspace keeps it: each slot grown to what the call needs
 * (tilemm_emu_cuda_arena_need), kept between calls. */
static void arena_grow (tilemm_emu_cuda_arena *arena, const size_t need[4])
{
  for (int s = 0; s < 4; s++)
    if (arena->bytes[s] < need[s])
      {
        CUDA_OK (cudaDeviceSynchronize ());
        CUDA_OK (cudaFree (arena->base[s]));
        arena->base[s] = nullptr;
        CUDA_OK (cudaMalloc (&arena->base[s], need[s]));
        arena->bytes[s] = need[s];
      }
}

static void arena_free (tilemm_emu_cuda_arena *arena)
{
  for (int s = 0; s < 4; s++)
    {
      cudaFree (arena->base[s]);
      arena->base[s] = nullptr;
      arena->bytes[s] = 0;
    }
}

template <typename T>
static void product_row (cublasHandle_t h, shape s, int runs, tilemm_emu_cuda_arena *arena, bool breakdown,
                         double phi = 0)
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
      fill_phi<T><<<1024, 256>>> (A[i], m * k, 11 + i, phi);
      fill_phi<T><<<1024, 256>>> (B[i], k * n, 21 + i, phi);
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
  if (dbl && with_v10)
    {
      tilemm_matrix cm = { n, m, m, Cn }, xm = { n, k, k, (void *) B[0] }, ym = { k, m, m, (void *) A[0] };
      tilemm_error err;
      t_native = median_ms ([&] (int i) {
        xm.elements = B[i]; ym.elements = A[i];
        if (tilemm_cuda_launch (10, TILEMM_DOUBLE, cm, xm, ym, nullptr, 0, &err) != TILEMM_OK) { fprintf (stderr, "v10: %s\n", err.detail); exit (2); } },
        sets, runs, EMU_WARMUPS);
    }
  tilemm_emu_plan plan = {}, plan_nm = {};
  tilemm_error err = {};
  tilemm_emu_options opt, opt_nm;
  tilemm_emu_default_options (&opt, dbl ? TILEMM_DOUBLE : TILEMM_SINGLE);
  if (native_rule)
    opt.rule = TILEMM_EMU_RULE_NATIVE;
  else if (elementwise_rule)
    opt.rule = TILEMM_EMU_RULE_ELEMENTWISE;
  /* The other rule beside it in the same row: native-matching ("accuracy", "native"). */
  opt_nm = opt;
  opt_nm.rule = TILEMM_EMU_RULE_NATIVE;
  tilemm_emu_branches branches_nm;
  tilemm_emu_branches_make (&opt_nm, &branches_nm);
  /* As the executor decides: the int8 GEMM TILEMM_EMU_IMMA names (run-emulated.sh sets it), the
   * real k-chunk, the options' rule; the arena sized before the timed calls. */
  tilemm_emu_branches branches;   /* as the call's plan holds them */
  tilemm_emu_branches_make (&opt, &branches);
  const tilemm_emu_gemm gemm = tilemm_emu_gemm_named (getenv ("TILEMM_EMU_IMMA"),
                                                      tilemm_emu_cuda_wgmma_runs ());
  const tilemm_emu_gemm stats_gemm
    = tilemm_emu_plan_stats_gemm (gemm, dbl ? TILEMM_DOUBLE : TILEMM_SINGLE, k, 0);
  const tilemm_emu_cuda_setup setup = { gemm, 0, &branches, nullptr, stats_gemm, bench_gemm_blocks (),
                                        bench_gemm_blocks () };
  {
    size_t need[4];
    tilemm_emu_cuda_arena_need (dbl ? TILEMM_DOUBLE : TILEMM_SINGLE, m, n, k, &opt, 0, TILEMM_EMU_RUN_WHOLE, 0,
                                need);
    arena_grow (arena, need);
  }
  const tilemm_emu_cuda_setup setup_nm = { setup.gemm, 0, &branches_nm, nullptr, setup.stats_gemm,
                                           setup.gemm_blocks, setup.multiprocessors };
  /* rule 1: the native-matching one; a verdict other than OK (wide-range data the moduli cannot
   * carry: tilemm's call then splits or goes native) is reported, not timed. */
  bool carried[2] = { true, true };
  auto emulated_rule = [&] (int i, tilemm_emu_cuda_times *times, int rule, T *c) {
    tilemm_emu_plan &p = rule ? plan_nm : plan;
    const tilemm_status st = tilemm_emu_cuda_run (rule ? &opt_nm : &opt, rule ? &setup_nm : &setup,
                                                  dbl ? TILEMM_DOUBLE : TILEMM_SINGLE, m, n, k, A[i], m,
                                                  B[i], k, c, m, nullptr, nullptr, &p, nullptr, times, arena,
                                                  nullptr, &err);
    if (st != TILEMM_OK)
      {
        fprintf (stderr, "emulated: status %d verdict %d %s\n", (int) st, (int) p.verdict, err.detail);
        exit (2);
      }
    if (p.verdict != TILEMM_EMU_OK)
      carried[rule] = false;
  };
  auto emulated = [&] (int i, tilemm_emu_cuda_times *times) { emulated_rule (i, times, 0, C[i]); };
  if (cublas_only)
    carried[0] = carried[1] = false;
  else
    {
      emulated_rule (0, nullptr, 0, C[0]);
      emulated_rule (0, nullptr, 1, C[0]);
    }
  const double t_emu = carried[0] ? median_ms ([&] (int i) { emulated (i, nullptr); }, sets, runs, EMU_WARMUPS) : 0;
  const double t_nm = carried[1] ? median_ms ([&] (int i) { emulated_rule (i, nullptr, 1, C[i]); }, sets, runs,
                                              EMU_WARMUPS)
                                 : 0;
  /* accuracy on set 0: fresh emulated results of both rules and cuBLAS's */
  std::vector<T> hN (m * n);
  if (carried[1])
    {
      emulated_rule (0, nullptr, 1, Cn);
      CUDA_OK (cudaDeviceSynchronize ());
      CUDA_OK (cudaMemcpy (hN.data (), Cn, sizeof (T) * m * n, cudaMemcpyDeviceToHost));
    }
  if (carried[0])
    emulated (0, nullptr);
  blas (0, Cref);
  CUDA_OK (cudaDeviceSynchronize ());
  std::vector<T> hA (m * k), hB (k * n), hC (m * n), hR (m * n);
  CUDA_OK (cudaMemcpy (hA.data (), A[0], sizeof (T) * m * k, cudaMemcpyDeviceToHost));
  CUDA_OK (cudaMemcpy (hB.data (), B[0], sizeof (T) * k * n, cudaMemcpyDeviceToHost));
  CUDA_OK (cudaMemcpy (hC.data (), C[0], sizeof (T) * m * n, cudaMemcpyDeviceToHost));
  CUDA_OK (cudaMemcpy (hR.data (), Cref, sizeof (T) * m * n, cudaMemcpyDeviceToHost));
  accuracy ae = { 0, 0 }, ab = { 0, 0 }, an = { 0, 0 };
  /* The elementwise rule's bound (emulated.h, step 3''): u·|C| + 2^-(t+1−s)·(|A||B|), 2^s ≤ k − 1;
   * its largest share used over the sampled entries (above 1: an entry beyond it). */
  int bound_s = 0;
  while (k >= 2 && (double) (k - 1) >= ldexp (1.0, bound_s + 1))
    bound_s++;
  const double unit = dbl ? 0x1p-53 : 0x1p-24, below = ldexp (1.0, -((dbl ? 53 : 24) + 1 - bound_s));
  double bound_used = 0;
  const int samples = k > 8192 ? 1000 : 2000;
  uint64_t z = 12345;
  for (int q = 0; q < samples; q++)
    {
      z = z * 6364136223846793005ull + 1442695040888963407ull;
      const int64_t i = (int64_t) ((z >> 33) % (uint64_t) m), j = (int64_t) ((z >> 13) % (uint64_t) n);
      double ref, absref;
      reference (hA, hB, m, k, i, j, ref, absref);
      const double e1 = fabs ((double) hC[i + j * m] - ref), e2 = fabs ((double) hR[i + j * m] - ref);
      const double e3 = fabs ((double) hN[i + j * m] - ref);
      if (ref != 0)
        {
          ae.rel = std::max (ae.rel, e1 / fabs (ref));
          ab.rel = std::max (ab.rel, e2 / fabs (ref));
          an.rel = std::max (an.rel, e3 / fabs (ref));
        }
      if (absref != 0)
        bound_used = std::max (bound_used, e1 / (unit * fabs (ref) + below * absref));
      if (absref != 0)
        {
          ae.norm = std::max (ae.norm, e1 / absref);
          ab.norm = std::max (ab.norm, e2 / absref);
          an.norm = std::max (an.norm, e3 / absref);
        }
    }
  /* Entries a rule could not carry (verdict RANGE or NONFINITE): its columns say "-". */
  char emu_cols[160], nm_cols[160];
  if (carried[0])
    snprintf (emu_cols, sizeof emu_cols, "%6.2f | %5.2f | %2d (pa %d, pb %d) | %.2e | %.2e", flops / t_emu * 1e-9,
              t_blas / t_emu, plan.moduli, plan.pa, plan.pb, ae.rel, ae.norm);
  else
    snprintf (emu_cols, sizeof emu_cols, "- | - | verdict %d | - | -", (int) plan.verdict);
  if (carried[1])
    snprintf (nm_cols, sizeof nm_cols, "%6.2f | %2d | %.2e | %.2e", flops / t_nm * 1e-9, plan_nm.moduli, an.rel,
              an.norm);
  else
    snprintf (nm_cols, sizeof nm_cols, "- | verdict %d | - | -", (int) plan_nm.verdict);
  if (dbl)
    printf ("| %5lldx%5lldx%5lld | %s | %6.2f | %6.2f | %s | %s | %.2e | %.2e |\n",
            (long long) m, (long long) n, (long long) k, phi > 0 ? "phi" : "uniform", flops / t_blas * 1e-9,
            t_native > 0 ? flops / t_native * 1e-9 : 0.0, emu_cols, nm_cols, ab.rel, ab.norm);
  else
    printf ("| %5lldx%5lldx%5lld | %s | %6.2f | %s | %s | %.2e | %.2e |\n",
            (long long) m, (long long) n, (long long) k, phi > 0 ? "phi" : "uniform", flops / t_blas * 1e-9, emu_cols,
            nm_cols, ab.rel, ab.norm);
  if (elementwise_rule && carried[0])
    printf ("|   (elementwise bound: the largest error over %d sampled entries is %.3g of "
            "u|C| + 2^-%d |A||B|%s) |\n", samples, bound_used, (dbl ? 53 : 24) + 1 - bound_s,
            bound_used <= 1 ? "" : ": BEYOND THE BOUND");
  fflush (stdout);
  if (breakdown && carried[0])
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
      printf ("\nstages of one emulated %s product %lldx%lldx%lld (%s rule; mean of %d; %d moduli; whole call %.2f ms):\n"
              "  scan %.3f ms | stats %.3f ms | convert %.3f ms | GEMMs %.3f ms (%.0f TOPS int8) | CRT %.3f ms | sum %.3f ms\n\n",
              dbl ? "double" : "single", (long long) m, (long long) n, (long long) k, main_rule_name (),
              reps, plan.moduli, t_emu,
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

/* Tables 1–3: the int8 GEMM alone (int8), then the double and single products over the shapes
 * (the square `sizes` when given). */
static void tables (cublasHandle_t h, tilemm_emu_cuda_arena *arena, bool int8, bool quick, int runs,
                    const std::vector<int64_t> &sizes, bool want_d, bool want_s)
{
  if (int8)
    {
      printf ("int8 GEMM, C = A'·B'ᵀ (k = n), TOPS (2mnk):\n"
              "| n | ours 128x256 | ours 128x128 | ours v2 128x128 (64x64 warps, k 128) | ours wgmma 128x256 (TMA) | cublasGemmEx s8 TN | best mma.sync/cuBLAS | wgmma/cuBLAS | check (all) |\n|---|---|---|---|---|---|---|---|---|\n");
      const int64_t isz[] = { 4096, 8192, 16384 };
      for (int64_t n : isz)
        if (!quick || n <= 8192)
          imma_row (h, n, n >= 16384 ? 5 : runs);
    }

  std::vector<shape> shapes = { { 4096, 4096, 4096 }, { 8192, 8192, 8192 }, { 16384, 16384, 16384 },
                                { 8192, 8192, 64 }, { 8192, 8192, 1024 }, { 65536, 64, 4096 } };
  if (!sizes.empty () || !given_shapes.empty ())
    {
      shapes.clear ();
      for (int64_t n : sizes)
        shapes.push_back ({ n, n, n });
      shapes.insert (shapes.end (), given_shapes.begin (), given_shapes.end ());
    }
  if (want_d)
    {
      printf ("\ndouble, TF/s (2mnk), device time; errors: max over sampled entries vs the exact product "
              "rounded once (exact_dot.h; rel: /|ref|, norm: /(|A||B|)); data uniform in [-1, 1], and phi = %g "
              "((u - 1/2)·exp(phi·g))\n"
              "| m x n x k | data | cuBLAS DGEMM | ours v10 | %s | /cuBLAS | moduli | rel err | norm err | "
              "native-matching | moduli | rel err | norm err | rel err cuBLAS | norm err cuBLAS |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
              wide_phi, main_rule_name ());
      for (double phi : { 0.0, wide_phi })
        for (const shape &s : shapes)
          if (!quick || s.m * s.n * s.k <= 8192LL * 8192 * 8192)
            product_row<double> (h, s, s.m * s.n * s.k > 8192LL * 8192 * 8192 ? 3 : runs, arena, false, phi);
    }
  if (want_s)
    {
      printf ("\nsingle (cuBLAS SGEMM without TF32), TF/s:\n"
              "| m x n x k | data | cuBLAS SGEMM | %s | /cuBLAS | moduli | rel err | norm err | "
              "native-matching | moduli | rel err | norm err | rel err cuBLAS | norm err cuBLAS |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
              main_rule_name ());
      for (const shape &s : shapes)
        if (!quick || s.m * s.n * s.k <= 8192LL * 8192 * 8192)
          product_row<float> (h, s, s.m * s.n * s.k > 8192LL * 8192 * 8192 ? 3 : runs, arena, false);
    }
  printf ("\n");
}

int main (int argc, char **argv)
{
  bool quick = false, passes_only = false, int8 = true, whole = true, whole_only = false;
  int runs = 10;
  const char *types = "ds";
  std::vector<int64_t> sizes;
  for (int i = 1; i < argc; i++)
    if (!strcmp (argv[i], "--quick"))
      quick = true;
    else if (!strcmp (argv[i], "--runs") && i + 1 < argc)
      runs = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--native"))
      native_rule = true;
    else if (!strcmp (argv[i], "--elementwise"))
      elementwise_rule = true;
    else if (!strcmp (argv[i], "--passes"))
      passes_only = true;
    else if (!strcmp (argv[i], "--no-int8"))
      int8 = false;
    else if (!strcmp (argv[i], "--no-v10"))
      with_v10 = false;
    else if (!strcmp (argv[i], "--cublas-only"))
      cublas_only = true;
    else if (!strcmp (argv[i], "--phi") && i + 1 < argc)
      wide_phi = atof (argv[++i]);
    else if (!strcmp (argv[i], "--no-whole"))
      whole = false;
    else if (!strcmp (argv[i], "--whole-only"))
      whole_only = true;
    else if (!strcmp (argv[i], "--types") && i + 1 < argc)
      types = argv[++i];
    else if (!strcmp (argv[i], "--sizes") && i + 1 < argc)
      for (char *p = strtok (argv[++i], ","); p; p = strtok (NULL, ","))
        {
          long long sm, sn, sk;
          if (strchr (p, 'x') && sscanf (p, "%lldx%lldx%lld", &sm, &sn, &sk) == 3)
            given_shapes.push_back ({ sm, sn, sk });
          else
            sizes.push_back (atoll (p));
        }
    else
      {
        fprintf (stderr, "usage: %s [--quick] [--runs N] [--native] [--elementwise] [--passes] [--no-int8] [--no-v10] [--types ds] "
                 "[--sizes 8192,16384] [--no-whole] [--whole-only] [--phi 4] [--cublas-only]\n", argv[0]);
        return 2;
      }
  const bool want_d = strchr (types, 'd') != nullptr, want_s = strchr (types, 's') != nullptr;
  cudaDeviceProp prop;
  CUDA_OK (cudaGetDeviceProperties (&prop, 0));
  if (native_rule && elementwise_rule)
    {
      fprintf (stderr, "--native and --elementwise: one rule for the main column\n");
      return 2;
    }
  whole_call_accuracy = native_rule ? TILEMM_ACCURACY_NATIVE
                        : elementwise_rule ? TILEMM_ACCURACY_ELEMENTWISE : 0;
  printf ("bench_emulated on %s (%d SMs), %s rule\n\n", prop.name, prop.multiProcessorCount,
          native_rule ? "native (\"accuracy\", \"native\")"
          : elementwise_rule ? "elementwise (\"accuracy\", \"elementwise\")" : "certified");
  cublasHandle_t h;
  CUBLAS_OK (cublasCreate (&h));
  CUBLAS_OK (cublasSetMathMode (h, CUBLAS_DEFAULT_MATH)); /* IEEE: no TF32 */
  tilemm_emu_cuda_arena arena = {};
  if (whole_only)
    {
      whole_calls (h, sizes, given_shapes, quick, runs > 5 ? 5 : runs);
      CUBLAS_OK (cublasDestroy (h));
      return 0;
    }
  if (passes_only) /* the passes alone, then the stages of one product (below) */
    passes (runs);
  else
    tables (h, &arena, int8, quick, runs, sizes, want_d, want_s);
  /* the stages at 8192 (and at 16384 when the sizes name it) */
  for (int64_t sz : { (int64_t) 8192, (int64_t) 16384 })
    if ((sz == 8192 && (passes_only || sizes.empty ())) || std::find (sizes.begin (), sizes.end (), sz) != sizes.end ())
      {
        if (want_d)
          product_row<double> (h, { sz, sz, sz }, 3, &arena, true);
        if (want_s)
          product_row<float> (h, { sz, sz, sz }, 3, &arena, true);
      }
  arena_free (&arena);
  if (whole && !passes_only && want_d)
    whole_calls (h, sizes, given_shapes, quick, runs > 5 ? 5 : runs);
  CUBLAS_OK (cublasDestroy (h));
  return 0;
}
