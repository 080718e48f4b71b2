/* bench_kernels.cu — tilemm's CUDA kernel variants against cuBLAS, in one binary.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * For each element type and shape (m×n×k of C = A·B, column-major like Octave): inputs drawn on
 * the device (uniform in [-1, 1], never zero), every variant's result CHECKED first (sampled
 * entries against a long-double host reference with the rigorous bound of tests/test_cuda.cu,
 * and the whole matrix against cuBLAS), then each variant and cuBLAS timed with CUDA events:
 * warm-up, then the median of >= 20 runs rotating among several input sets (so the inputs do not
 * sit in the 50 MB L2).  cuBLAS runs in its default math mode: IEEE, no TF32.  TF/s counts 2mnk
 * flops (8mnk for complex).  A compact table comes last.
 *
 * Usage: bench_kernels [--quick] [--types sdcz] [--variants 1,2,3] [--runs N] [--sizes 4096,8192]
 *                      [--profile ours|cublas]
 *   --quick: the square sizes 1024 and 4096 and the two skinny shapes only.
 *   --sizes: these square sizes only (no skinny shapes).
 *   --profile: for a profiler (Nsight Compute with --profile-from-start off, bench/profile-single.sh):
 *     after the usual check, ONE launch of each chosen variant (ours) or of cuBLAS (cublas) between
 *     cudaProfilerStart and cudaProfilerStop, and no timing.
 */
#include <cublas_v2.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#include "kernels.h"
#include "tilemm.h"

#include "bench_common.cuh"

/* ---------------------------------------------------------------- types */

struct type_info
{
  tilemm_type type;
  char letter;  /* s d c z, as BLAS names them */
  int parts;    /* reals per element */
  bool dbl;
  double flops_per_madd;
};

static const type_info types[] = {
  { TILEMM_SINGLE, 's', 1, false, 2 },
  { TILEMM_DOUBLE, 'd', 1, true, 2 },
  { TILEMM_COMPLEX_SINGLE, 'c', 2, false, 8 },
  { TILEMM_COMPLEX_DOUBLE, 'z', 2, true, 8 },
};

static size_t real_size (const type_info &t)
{
  return t.dbl ? 8 : 4;
}

static size_t elem_size (const type_info &t)
{
  return real_size (t) * t.parts;
}

static void fill (const type_info &t, void *p, size_t elements, uint64_t seed)
{
  const size_t n = elements * t.parts;
  if (t.dbl)
    fill<double><<<1024, 256>>> ((double *) p, n, seed);
  else
    fill<float><<<1024, 256>>> ((float *) p, n, seed);
  CUDA_OK (cudaGetLastError ());
}

/* C = A·B column-major, m×n×k, packed (lda = m, ldb = k, ldc = m). */
static void cublas_gemm (cublasHandle_t h, const type_info &t, int m, int n, int k, const void *a,
                         const void *b, void *c)
{
  const cublasOperation_t N = CUBLAS_OP_N;
  switch (t.letter)
    {
    case 's':
      {
        const float one = 1, zero = 0;
        CUBLAS_OK (cublasSgemm (h, N, N, m, n, k, &one, (const float *) a, m, (const float *) b, k,
                                &zero, (float *) c, m));
        break;
      }
    case 'd':
      {
        const double one = 1, zero = 0;
        CUBLAS_OK (cublasDgemm (h, N, N, m, n, k, &one, (const double *) a, m, (const double *) b,
                                k, &zero, (double *) c, m));
        break;
      }
    case 'c':
      {
        const cuComplex one = { 1, 0 }, zero = { 0, 0 };
        CUBLAS_OK (cublasCgemm (h, N, N, m, n, k, &one, (const cuComplex *) a, m,
                                (const cuComplex *) b, k, &zero, (cuComplex *) c, m));
        break;
      }
    default:
      {
        const cuDoubleComplex one = { 1, 0 }, zero = { 0, 0 };
        CUBLAS_OK (cublasZgemm (h, N, N, m, n, k, &one, (const cuDoubleComplex *) a, m,
                                (const cuDoubleComplex *) b, k, &zero, (cuDoubleComplex *) c, m));
        break;
      }
    }
}

/* Ours: Cᵀ (n×m) = Bᵀ (n×k) · Aᵀ (k×m) on the same buffers. */
static void ours_gemm (int variant, const type_info &t, int m, int n, int k, const void *a,
                       const void *b, void *c)
{
  tilemm_matrix cm = { n, m, m, c }, xm = { n, k, k, (void *) b }, ym = { k, m, m, (void *) a };
  tilemm_error err;
  /* As the executor launches (src/cuda/kernel_launch.cu): the plan's fallback and split of k for
   * this device and shape, the split's scratch kept here between calls (grown, never shrunk). */
  static void *scratch = nullptr;
  static size_t scratch_held = 0;
  static int cc_major = -1;
  if (cc_major < 0)
    {
      int dev = 0;
      CUDA_OK (cudaGetDevice (&dev));
      CUDA_OK (cudaDeviceGetAttribute (&cc_major, cudaDevAttrComputeCapabilityMajor, dev));
    }
  tilemm_kernel_launch lp;
  tilemm_kernel_launch_plan (variant, t.type, n, m, k, cc_major, &lp);
  if (lp.scratch_bytes > scratch_held)
    {
      CUDA_OK (cudaDeviceSynchronize ());
      CUDA_OK (cudaFree (scratch));
      CUDA_OK (cudaMalloc (&scratch, lp.scratch_bytes));
      scratch_held = lp.scratch_bytes;
    }
  lp.scratch = scratch;
  lp.scratch_bytes = scratch_held;
  if (tilemm_cuda_launch (variant, t.type, cm, xm, ym, &lp, 0, &err) != TILEMM_OK)
    {
      fprintf (stderr, "variant %d: %s\n", variant, err.detail);
      exit (2);
    }
}

/* ---------------------------------------------------------------- checking */

static long double host_real (const type_info &t, const std::vector<char> &buf, size_t i)
{
  return t.dbl ? (long double) ((const double *) buf.data ())[i]
               : (long double) ((const float *) buf.data ())[i];
}

/* Downloads `count` reals from device offset `first` (in reals) with `pitch` between them. */
static std::vector<char> fetch (const type_info &t, const void *dev, size_t first, size_t count,
                                size_t pitch)
{
  std::vector<char> h (count * real_size (t) * t.parts);
  const size_t rs = real_size (t), es = elem_size (t);
  CUDA_OK (cudaMemcpy2D (h.data (), es, (const char *) dev + first * es, pitch * es, es, count,
                         cudaMemcpyDeviceToHost));
  (void) rs;
  return h;
}

/* Sampled entries of C against long double with the bound 2u·Σ|partial sums| (per component),
 * and the whole of C against cuBLAS's.  Returns a one-line verdict; sets *ok. */
static std::string check (const type_info &t, int m, int n, int k, const void *a, const void *b,
                          const void *c, const std::vector<char> &hr, bool *ok)
{
  *ok = true;
  const long double u = t.dbl ? ldexpl (1, -53) : ldexpl (1, -24);
  const int samples = 6;
  long double worst_ratio = 0; /* error / bound over the samples */
  std::vector<size_t> rows, cols;
  std::vector<std::vector<char> > arows, bcols;
  for (int s = 0; s < samples; s++)
    {
      rows.push_back ((size_t) ((s * 7919ull + 13) % (unsigned) m));  /* rows of C    */
      cols.push_back ((size_t) ((s * 104729ull + 7) % (unsigned) n)); /* columns of C */
      arows.push_back (fetch (t, a, rows.back (), (size_t) k, (size_t) m)); /* A(i, :) */
      bcols.push_back (fetch (t, b, cols.back () * (size_t) k, (size_t) k, 1)); /* B(:, j) */
    }
  for (int si = 0; si < samples; si++)
    for (int sj = 0; sj < samples; sj++)
      {
        const std::vector<char> &arow = arows[si], &bcol = bcols[sj];
        std::vector<char> cij = fetch (t, c, rows[si] + cols[sj] * (size_t) m, 1, 1);
        long double sre = 0, sim = 0, pre = 0, pim = 0;
        for (int l = 0; l < k; l++)
          {
            const long double ar = host_real (t, arow, (size_t) l * t.parts);
            const long double br = host_real (t, bcol, (size_t) l * t.parts);
            if (t.parts == 1)
              {
                sre += br * ar; /* ours computes Bᵀ(j,l)·Aᵀ(l,i): x = b, y = a */
                pre += fabsl (sre);
              }
            else
              {
                const long double ai = host_real (t, arow, (size_t) l * 2 + 1);
                const long double bi = host_real (t, bcol, (size_t) l * 2 + 1);
                sre += br * ar;
                pre += fabsl (sre);
                sre -= bi * ai;
                pre += fabsl (sre);
                sim += br * ai;
                pim += fabsl (sim);
                sim += bi * ar;
                pim += fabsl (sim);
              }
          }
        const long double gre = host_real (t, cij, 0);
        const long double gim = t.parts == 2 ? host_real (t, cij, 1) : 0;
        const long double rre = fabsl (gre - sre) / (2 * u * pre + 1e-300L);
        const long double rim = t.parts == 2 ? fabsl (gim - sim) / (2 * u * pim + 1e-300L) : 0;
        const long double r = std::max (rre, rim);
        if (!(r <= 1))
          *ok = false;
        worst_ratio = std::max (worst_ratio, isnan (r) ? (long double) INFINITY : r);
      }
  /* Whole matrix against cuBLAS: the largest difference relative to the largest entry. */
  const size_t reals = (size_t) m * n * t.parts;
  std::vector<char> hc (reals * real_size (t));
  CUDA_OK (cudaMemcpy (hc.data (), c, hc.size (), cudaMemcpyDeviceToHost));
  double maxdiff = 0, maxref = 0;
  for (size_t i = 0; i < reals; i++)
    {
      const double x = (double) host_real (t, hc, i), y = (double) host_real (t, hr, i);
      const double d = fabs (x - y);
      if (!(d <= maxdiff)) /* NaN counts as infinitely different */
        maxdiff = isnan (d) ? INFINITY : d;
      maxref = std::max (maxref, fabs (y));
    }
  const double rel = maxdiff / (maxref > 0 ? maxref : 1);
  /* Two correct results differ by rounding only: far below 1e-3 (single) or 1e-9 (double). */
  if (!(rel <= (t.dbl ? 1e-9 : 1e-3)))
    *ok = false;
  char line[200];
  snprintf (line, sizeof line, "%s: sampled error <= %.2Lf of bound, max|ours-cuBLAS|/max|C| %.1e",
            *ok ? "ok" : "WRONG", worst_ratio, rel);
  return line;
}

/* ---------------------------------------------------------------- timing */

struct operand_set
{
  void *a, *b, *c;
};

struct shape
{
  int m, n, k;
};

struct result_row
{
  char type;
  shape s;
  std::vector<double> tfs; /* per variant, NAN if not run */
  double cublas;
  bool all_ok;
};

int main (int argc, char **argv)
{
  bool quick = false;
  std::string type_letters = "sdcz";
  std::vector<int> variants;
  int runs = 21;
  std::vector<int> sizes;  /* --sizes: square sizes only                      */
  int profile = 0;         /* --profile: 1 ours, 2 cuBLAS (one launch each, untimed) */
  for (int i = 1; i < argc; i++)
    {
      if (!strcmp (argv[i], "--quick"))
        quick = true;
      else if (!strcmp (argv[i], "--types") && i + 1 < argc)
        type_letters = argv[++i];
      else if (!strcmp (argv[i], "--runs") && i + 1 < argc)
        runs = std::max (20, atoi (argv[++i]));
      else if (!strcmp (argv[i], "--sizes") && i + 1 < argc)
        {
          for (char *p = strtok (argv[++i], ","); p; p = strtok (NULL, ","))
            sizes.push_back (atoi (p));
        }
      else if (!strcmp (argv[i], "--profile") && i + 1 < argc
               && (!strcmp (argv[i + 1], "ours") || !strcmp (argv[i + 1], "cublas")))
        profile = !strcmp (argv[++i], "ours") ? 1 : 2;
      else if (!strcmp (argv[i], "--variants") && i + 1 < argc)
        {
          for (char *p = strtok (argv[++i], ","); p; p = strtok (NULL, ","))
            variants.push_back (atoi (p));
        }
      else
        {
          fprintf (stderr, "usage: %s [--quick] [--types sdcz] [--variants 1,2,3] [--runs N] "
                   "[--sizes 4096,8192] [--profile ours|cublas]\n", argv[0]);
          return 2;
        }
    }
  if (variants.empty ())
    for (int v = 1; v <= 16; v++)
      variants.push_back (v);

  cudaDeviceProp prop;
  CUDA_OK (cudaGetDeviceProperties (&prop, 0));
  int driver = 0, runtime = 0;
  cudaDriverGetVersion (&driver);
  cudaRuntimeGetVersion (&runtime);
  printf ("device: %s, %d SMs, cc %d.%d, L2 %d MB, driver %d, runtime %d\n", prop.name,
          prop.multiProcessorCount, prop.major, prop.minor, prop.l2CacheSize >> 20, driver, runtime);
  cublasHandle_t handle;
  CUBLAS_OK (cublasCreate (&handle));
  CUBLAS_OK (cublasSetMathMode (handle, CUBLAS_DEFAULT_MATH)); /* IEEE: no TF32 */

  std::vector<result_row> table;
  std::vector<int> shown_variants;
  for (const type_info &t : types)
    {
      if (type_letters.find (t.letter) == std::string::npos)
        continue;
      std::vector<shape> shapes;
      const bool real = t.parts == 1;
      std::vector<int> squares;
      if (!sizes.empty ())
        squares = sizes;
      else if (quick)
        squares = { 1024, 4096 };
      else if (real)
        squares = { 1000, 1024, 2048, 4096, 4097, 8192 };
      else
        squares = { 1000, 4096, 4097 };
      for (int s : squares)
        shapes.push_back ({ s, s, s });
      if (sizes.empty ())
        {
          shapes.push_back ({ 8192, 8192, 64 });
          shapes.push_back ({ 64, 64, 8192 });
        }
      for (const shape &s : shapes)
        {
          const size_t es = elem_size (t);
          const size_t set_bytes = ((size_t) s.m * s.k + (size_t) s.k * s.n + (size_t) s.m * s.n) * es;
          const int sets = (int) std::min<size_t> (8, std::max<size_t> (2, (size_t) (512u << 20) / set_bytes));
          std::vector<operand_set> ops (sets);
          for (int i = 0; i < sets; i++)
            {
              CUDA_OK (cudaMalloc (&ops[i].a, (size_t) s.m * s.k * es));
              CUDA_OK (cudaMalloc (&ops[i].b, (size_t) s.k * s.n * es));
              CUDA_OK (cudaMalloc (&ops[i].c, (size_t) s.m * s.n * es));
              fill (t, ops[i].a, (size_t) s.m * s.k, 1000 + 3 * i);
              fill (t, ops[i].b, (size_t) s.k * s.n, 1001 + 3 * i);
            }
          void *c_ref;
          CUDA_OK (cudaMalloc (&c_ref, (size_t) s.m * s.n * es));
          cublas_gemm (handle, t, s.m, s.n, s.k, ops[0].a, ops[0].b, c_ref);
          CUDA_OK (cudaDeviceSynchronize ());
          std::vector<char> c_ref_host ((size_t) s.m * s.n * es);
          CUDA_OK (cudaMemcpy (c_ref_host.data (), c_ref, c_ref_host.size (), cudaMemcpyDeviceToHost));
          const double flops = t.flops_per_madd * s.m * (double) s.n * s.k;
          result_row row = { t.letter, s, {}, 0, true };
          for (int v : variants)
            {
              if (profile == 2)
                break;
              int tr, tc, td, tp, th;
              if (!tilemm_cuda_kernel_shape (v, t.type, &tr, &tc, &td, &tp, &th))
                {
                  row.tfs.push_back (NAN);
                  continue;
                }
              if (std::find (shown_variants.begin (), shown_variants.end (), v) == shown_variants.end ())
                shown_variants.push_back (v);
              CUDA_OK (cudaMemset (ops[0].c, 0xff, (size_t) s.m * s.n * es)); /* NaN poison */
              ours_gemm (v, t, s.m, s.n, s.k, ops[0].a, ops[0].b, ops[0].c);
              CUDA_OK (cudaDeviceSynchronize ());
              bool ok;
              const std::string verdict = check (t, s.m, s.n, s.k, ops[0].a, ops[0].b, ops[0].c, c_ref_host, &ok);
              row.all_ok &= ok;
              if (profile)
                {
                  CUDA_OK (cudaProfilerStart ());
                  ours_gemm (v, t, s.m, s.n, s.k, ops[1].a, ops[1].b, ops[1].c);
                  CUDA_OK (cudaDeviceSynchronize ());
                  CUDA_OK (cudaProfilerStop ());
                  row.tfs.push_back (NAN);
                  printf ("%cgemm %5dx%5dx%5d  v%-2d profiled (one launch)  %s\n", t.letter, s.m,
                          s.n, s.k, v, verdict.c_str ());
                  fflush (stdout);
                  continue;
                }
              const double ms = median_ms (
                [&] (int i) { ours_gemm (v, t, s.m, s.n, s.k, ops[i].a, ops[i].b, ops[i].c); },
                sets, runs);
              row.tfs.push_back (flops / (ms * 1e-3) / 1e12);
              printf ("%cgemm %5dx%5dx%5d  v%-2d %8.3f ms %7.2f TF/s  %s\n", t.letter, s.m, s.n,
                      s.k, v, ms, row.tfs.back (), verdict.c_str ());
              fflush (stdout);
            }
          if (profile == 2)
            {
              CUDA_OK (cudaProfilerStart ());
              cublas_gemm (handle, t, s.m, s.n, s.k, ops[1].a, ops[1].b, ops[1].c);
              CUDA_OK (cudaDeviceSynchronize ());
              CUDA_OK (cudaProfilerStop ());
              printf ("%cgemm %5dx%5dx%5d  cuBLAS profiled (one launch)\n", t.letter, s.m, s.n, s.k);
            }
          const double ms = profile ? NAN : median_ms (
            [&] (int i) { cublas_gemm (handle, t, s.m, s.n, s.k, ops[i].a, ops[i].b, ops[i].c); },
            sets, runs);
          row.cublas = flops / (ms * 1e-3) / 1e12;
          if (!profile)
            printf ("%cgemm %5dx%5dx%5d  cuBLAS %8.3f ms %7.2f TF/s  (%d input sets, median of %d)\n",
                  t.letter, s.m, s.n, s.k, ms, row.cublas, sets, runs);
          fflush (stdout);
          table.push_back (row);
          for (operand_set &o : ops)
            {
              CUDA_OK (cudaFree (o.a));
              CUDA_OK (cudaFree (o.b));
              CUDA_OK (cudaFree (o.c));
            }
          CUDA_OK (cudaFree (c_ref));
        }
    }

  /* The compact table: TF/s per variant, cuBLAS, and the best variant's share of cuBLAS. */
  printf ("\n| type | m×n×k |");
  for (int v : shown_variants)
    printf (" v%d |", v);
  printf (" cuBLAS | best/cuBLAS | plan | plan/cuBLAS | checks |\n|---|---|");
  for (size_t i = 0; i < shown_variants.size (); i++)
    printf ("---|");
  printf ("---|---|---|---|---|\n");
  bool all_ok = true;
  for (const result_row &r : table)
    {
      printf ("| %cgemm | %dx%dx%d |", r.type, r.s.m, r.s.n, r.s.k);
      double best = 0;
      for (int v : shown_variants)
        {
          const size_t idx = std::find (variants.begin (), variants.end (), v) - variants.begin ();
          const double x = idx < r.tfs.size () ? r.tfs[idx] : NAN;
          if (isnan (x))
            printf (" - |");
          else
            printf (" %.2f |", x);
          if (!isnan (x))
            best = std::max (best, x);
        }
      /* The variant tilemm's plan picks for this product, and its share of cuBLAS. */
      tilemm_plan plan;
      const tilemm_type tt = r.type == 's' ? TILEMM_SINGLE : r.type == 'd' ? TILEMM_DOUBLE
                             : r.type == 'c' ? TILEMM_COMPLEX_SINGLE : TILEMM_COMPLEX_DOUBLE;
      double planned = NAN;
      int pv = 0;
      if (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, tt, r.s.m, r.s.n, r.s.k, NULL) == TILEMM_OK)
        {
          pv = plan.variant;
          const size_t idx = std::find (variants.begin (), variants.end (), pv) - variants.begin ();
          if (idx < r.tfs.size ())
            planned = r.tfs[idx];
        }
      printf (" %.2f | %.0f%% | v%d | ", r.cublas, 100 * best / r.cublas, pv);
      if (isnan (planned))
        printf ("not run |");
      else
        printf ("%.0f%% |", 100 * planned / r.cublas);
      printf (" %s |\n", r.all_ok ? "ok" : "WRONG");
      all_ok &= r.all_ok;
    }
  CUBLAS_OK (cublasDestroy (handle));
  printf ("\nall results checked: %s\n", all_ok ? "ok" : "SOME WRONG");
  return all_ok ? 0 : 1;
}
