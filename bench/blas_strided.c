/* bench/blas_strided.c — one large dgemm_ on submatrices (lda = ldb = 2n): the time the library
 * spends packing its strided operands, on the team the call plan names (pack_team).
 *
 *   cc -O2 -std=c11 bench/blas_strided.c -lblas -o /tmp/blas_strided
 *   TILEMM_BLAS_TIMES=1 LD_PRELOAD=src/libtilemm_blas.so /tmp/blas_strided 8000
 *
 * Argument: N (default 8000): C (N×N) := A(1:N,1:N)·B(1:N,1:N) of 2N×N arrays.  Prints
 * "blas_strided N SECONDS" (the whole call) and the library's own line on stderr, whose "copy
 * strided operands" is the pack (2 × N² doubles copied).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "blas_bench.h"

int main (int argc, char **argv)
{
  const int n = argc > 1 ? atoi (argv[1]) : 8000, ld = 2 * n;
  if (n < 1)
    return 2;
  double *a = malloc ((size_t) ld * n * sizeof *a), *b = malloc ((size_t) ld * n * sizeof *b);
  double *c = malloc ((size_t) n * n * sizeof *c);
  if (!a || !b || !c)
    {
      fprintf (stderr, "blas_strided: no memory for N = %d\n", n);
      return 1;
    }
  for (size_t i = 0; i < (size_t) ld * n; i++)
    a[i] = (double) (i % 7) - 3, b[i] = (double) (i % 5) - 2;
  const double one = 1, zero = 0;
  for (int round = 0; round < 2; round++)   /* the first call also decides and warms up */
    {
      const double t = now ();
      dgemm_ ("N", "N", &n, &n, &n, &one, a, &ld, b, &ld, &zero, c, &n);
      printf ("blas_strided %d %.4f\n", n, now () - t);
    }
  free (a);
  free (b);
  free (c);
  return 0;
}
