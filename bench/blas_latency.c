/* bench/blas_latency.c — the time one small dgemm_ call takes, with and without libtilemm_blas.so
 * preloaded: what the library adds to every product it hands to the next BLAS ("auto" where the
 * GPU does not pay: the decision, tilemm_decide_op, then the next BLAS's dgemm_).
 *
 *   cc -O2 -std=c11 bench/blas_latency.c -lblas -o /tmp/blas_latency
 *   /tmp/blas_latency                                          # the system BLAS alone
 *   LD_PRELOAD=src/libtilemm_blas.so /tmp/blas_latency         # through tilemm's library
 *   TILEMM_BLAS_BACKEND=bogus LD_PRELOAD=... /tmp/blas_latency # "auto" the whole way (one warning)
 *
 * Arguments: CALLS_2x2 (default 1000000) CALLS_64x64 (default 2000) ROUNDS (default 5).  Prints
 * "blas_latency N CALLS MEDIAN_NS MIN_NS" for N = 2 and 64: nanoseconds a call, the median and
 * the least of ROUNDS rounds of CALLS calls each (the machine is shared: the least is the
 * steadier figure).  Figures go to bench/RESULTS.md.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "blas_bench.h"

static int by_value (const void *x, const void *y)
{
  const double a = *(const double *) x, b = *(const double *) y;
  return (a > b) - (a < b);
}

/* ROUNDS rounds of `calls` n×n×n products; the median and least nanoseconds a call. */
static void time_size (int n, long calls, int rounds)
{
  double *a = malloc (sizeof (double) * (size_t) n * (size_t) n);
  double *b = malloc (sizeof (double) * (size_t) n * (size_t) n);
  double *c = malloc (sizeof (double) * (size_t) n * (size_t) n);
  double *ns = malloc (sizeof (double) * (size_t) rounds);
  if (!a || !b || !c || !ns)
    {
      fprintf (stderr, "blas_latency: no memory\n");
      exit (1);
    }
  for (int i = 0; i < n * n; i++)
    a[i] = 1.0 + i % 7, b[i] = 2.0 - i % 5, c[i] = 0;
  const double one = 1, zero = 0;
  for (long i = 0; i < calls / 10 + 1; i++)   /* warm-up: the first call finds the next BLAS */
    dgemm_ ("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
  for (int r = 0; r < rounds; r++)
    {
      const double t0 = now ();
      for (long i = 0; i < calls; i++)
        dgemm_ ("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
      ns[r] = 1e9 * (now () - t0) / (double) calls;
    }
  qsort (ns, (size_t) rounds, sizeof *ns, by_value);
  printf ("blas_latency %d %ld %.1f %.1f (c[0] = %g)\n", n, calls, ns[rounds / 2], ns[0], c[0]);
  free (a);
  free (b);
  free (c);
  free (ns);
}

int main (int argc, char **argv)
{
  const long small = argc > 1 ? atol (argv[1]) : 1000000;
  const long mid = argc > 2 ? atol (argv[2]) : 2000;
  const int rounds = argc > 3 ? atoi (argv[3]) : 5;
  if (small < 1 || mid < 1 || rounds < 1)
    {
      fprintf (stderr, "usage: blas_latency [CALLS_2x2 [CALLS_64x64 [ROUNDS]]]\n");
      return 2;
    }
  time_size (2, small, rounds);
  time_size (64, mid, rounds);
  return 0;
}
