/* bench/bench_whole_call.cuh — bench_emulated's table of whole calls from host memory: what a
 * caller of `*` waits for, transfers included.  cuBLAS DGEMM with its copies (A and B up from
 * pageable memory, C down), tilemm's native call, and tilemm's emulated call unpipelined
 * (TILEMM_EMU_PIPE_COLS=-1) and as its plan cuts it (the pipelined panels of
 * cuda/emulated_pipeline.cu where the plan takes them), on the same operands, medians of host
 * clock times.  Included by bench_emulated.cu, which links tilemm's executor for it.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_BENCH_WHOLE_CALL_CUH
#define TILEMM_BENCH_WHOLE_CALL_CUH

#include <chrono>
#include <string.h>

#include "bench_common.cuh"
#include "front.h"
#include "tilemm.h"

/* The median of `runs` host-clock timings of run (), after one untimed. */
template <typename F> static double host_median_ms (F run, int runs)
{
  run ();
  std::vector<double> ms;
  for (int r = 0; r < runs; r++)
    {
      const auto t0 = std::chrono::steady_clock::now ();
      run ();
      ms.push_back (std::chrono::duration<double, std::milli> (std::chrono::steady_clock::now () - t0)
                      .count ());
    }
  std::sort (ms.begin (), ms.end ());
  return ms.size () % 2 ? ms[ms.size () / 2] : (ms[ms.size () / 2 - 1] + ms[ms.size () / 2]) / 2;
}

/* One tilemm call decided with the environment as it is (its settings: TILEMM_EMU_PIPE_COLS),
 * on the GPU, in `precision`; the decision kept for the timed runs.  *pipe: the plan's panels. */
/* The emulated calls' "accuracy" (bench_emulated's rule: 0, the certified default). */
static int whole_call_accuracy = 0;

struct tilemm_call_setup
{
  tilemm_options o;
  tilemm_decision d;
};

static void tilemm_call_decide (tilemm_call_setup &c, tilemm_precision precision, int64_t m,
                                int64_t n, int64_t k, int64_t *pipe)
{
  tilemm_options_init (&c.o);
  c.o.backend = TILEMM_CHOOSE_GPU;
  c.o.precision = precision;
  if (precision == TILEMM_PRECISION_EMULATED)
    c.o.accuracy = whole_call_accuracy;
  const tilemm_operand a = { TILEMM_CLASS_DOUBLE, 0, 0, 2, m, k, 0, NULL, 0 };
  const tilemm_operand b = { TILEMM_CLASS_DOUBLE, 0, 0, 2, k, n, 0, NULL, 0 };
  tilemm_error err = { TILEMM_OK, "" };
  if (tilemm_decide (&a, &b, &c.o, &c.d, &err) != TILEMM_OK || c.d.action != TILEMM_DO_COMPUTE)
    {
      fprintf (stderr, "tilemm_decide: %s\n", err.detail);
      exit (2);
    }
  *pipe = c.d.plan.emu_pipe_first;
}

static void tilemm_call_run (tilemm_call_setup &c, const double *a, const double *b, double *out)
{
  tilemm_error err = { TILEMM_OK, "" };
  if (tilemm_run (&c.d, &c.o, a, b, out, &err) != TILEMM_OK)
    {
      fprintf (stderr, "tilemm_run: %s\n", err.detail);
      exit (2);
    }
}

/* One row: m×k by k×n double from pageable host memory, uniform in [-1, 1]. */
static void whole_call_row (cublasHandle_t h, int64_t m, int64_t n, int64_t k, int runs)
{
  const size_t ea = (size_t) (m * k), eb = (size_t) (k * n), ec = (size_t) (m * n);
  double *a = (double *) malloc (8 * ea), *b = (double *) malloc (8 * eb);
  double *c = (double *) malloc (8 * ec);
  if (!a || !b || !c)
    {
      fprintf (stderr, "whole calls: no host memory for %lldx%lldx%lld\n", (long long) m,
               (long long) n, (long long) k);
      exit (2);
    }
  uint64_t z = 0x9E3779B97F4A7C15ull;
  auto next = [&z] {
    z = z * 6364136223846793005ull + 1442695040888963407ull;
    return (double) (z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  };
  for (size_t i = 0; i < ea; i++)
    a[i] = next ();
  for (size_t i = 0; i < eb; i++)
    b[i] = next ();
  memset (c, 0, 8 * ec); /* C's pages in memory, as an Octave result's are not: see E2E-NOTES */

  /* cuBLAS with its copies: device buffers made once, outside the timings. */
  double *dA, *dB, *dC;
  CUDA_OK (cudaMalloc (&dA, 8 * ea));
  CUDA_OK (cudaMalloc (&dB, 8 * eb));
  CUDA_OK (cudaMalloc (&dC, 8 * ec));
  const double one = 1, zero = 0;
  const double t_blas = host_median_ms ([&] {
    CUDA_OK (cudaMemcpy (dA, a, 8 * ea, cudaMemcpyHostToDevice));
    CUDA_OK (cudaMemcpy (dB, b, 8 * eb, cudaMemcpyHostToDevice));
    CUBLAS_OK (cublasDgemm (h, CUBLAS_OP_N, CUBLAS_OP_N, (int) m, (int) n, (int) k, &one, dA,
                            (int) m, dB, (int) k, &zero, dC, (int) m));
    CUDA_OK (cudaMemcpy (c, dC, 8 * ec, cudaMemcpyDeviceToHost));
  }, runs);
  cudaFree (dA);
  cudaFree (dB);
  cudaFree (dC);

  tilemm_call_setup native, whole, piped;
  int64_t pipe_native, pipe_whole, pipe;
  tilemm_call_decide (native, TILEMM_PRECISION_NATIVE, m, n, k, &pipe_native);
  const char *given = getenv ("TILEMM_EMU_PIPE_COLS");
  char *saved = given ? strdup (given) : NULL;
  setenv ("TILEMM_EMU_PIPE_COLS", "-1", 1);
  tilemm_call_decide (whole, TILEMM_PRECISION_EMULATED, m, n, k, &pipe_whole);
  if (saved)
    setenv ("TILEMM_EMU_PIPE_COLS", saved, 1);
  else
    unsetenv ("TILEMM_EMU_PIPE_COLS");
  free (saved);
  tilemm_call_decide (piped, TILEMM_PRECISION_EMULATED, m, n, k, &pipe);
  const double t_native = host_median_ms ([&] { tilemm_call_run (native, a, b, c); }, runs);
  const double t_whole = host_median_ms ([&] { tilemm_call_run (whole, a, b, c); }, runs);
  /* The pipelined result must be the unpipelined one bit for bit. */
  const size_t bytes_c = 8 * ec;
  double *c_whole = (double *) malloc (bytes_c);
  if (c_whole)
    memcpy (c_whole, c, bytes_c);
  const double t_piped = host_median_ms ([&] { tilemm_call_run (piped, a, b, c); }, runs);
  const bool same = c_whole && memcmp (c_whole, c, bytes_c) == 0;
  free (c_whole);
  const double flops = 2.0 * (double) m * (double) n * (double) k;
  printf ("| %5lldx%5lldx%5lld | %8.1f | %8.1f | %8.1f | %8.1f (%s) | %5.2f | %5.2f | %s |\n",
          (long long) m, (long long) n, (long long) k, t_blas, t_native, t_whole, t_piped,
          pipe > 0 ? "panels" : "one panel", t_native / t_piped, flops / t_piped * 1e-9,
          same ? "bitwise" : "DIFFERS");
  if (pipe > 0)
    printf ("|   (a first panel of %lld columns, then %lld) | | | | | | | |\n", (long long) pipe,
            (long long) piped.d.plan.emu_pipe_cols);
  fflush (stdout);
  free (a);
  free (b);
  free (c);
}

/* Table 5: the whole calls at the shapes given (squares of `sizes`, then `shapes` {m, n, k}). */
template <typename S>
static void whole_calls (cublasHandle_t h, const std::vector<int64_t> &sizes,
                         const std::vector<S> &shapes, bool quick, int runs)
{
  printf ("\nwhole calls from pageable host memory, double, ms (host clock, median of %d): "
          "transfers included\n"
          "| m x n x k | cuBLAS + copies | tilemm native | tilemm emulated, one panel | "
          "tilemm emulated, the plan's | native / emulated | emulated TF/s | pipelined vs one "
          "panel |\n|---|---|---|---|---|---|---|---|\n",
          runs);
  const bool given = !sizes.empty () || !shapes.empty ();
  std::vector<int64_t> ns = given ? sizes : std::vector<int64_t>{ 4096, 8192, 16384 };
  for (int64_t s : ns)
    if (!quick || s <= 8192)
      whole_call_row (h, s, s, s, s >= 16384 ? 3 : runs);
  for (const S &s : shapes)
    whole_call_row (h, s.m, s.n, s.k, runs);
  if (!given)
    whole_call_row (h, 65536, 64, 4096, runs); /* the skinny shape */
}

#endif
