/* bench/blas_bench.h — what the standalone BLAS benchmarks (blas_latency.c, blas_strided.c) share:
 * the Fortran dgemm_ they call (the library preloaded, else the one they link) and a monotonic
 * clock in seconds.  Include it first: it sets the POSIX level clock_gettime needs.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_BLAS_BENCH_H
#define TILEMM_BLAS_BENCH_H

#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

extern void dgemm_ (const char *transa, const char *transb, const int *m, const int *n,
                    const int *k, const double *alpha, const double *a, const int *lda,
                    const double *b, const int *ldb, const double *beta, double *c,
                    const int *ldc);

static double now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

#endif /* TILEMM_BLAS_BENCH_H */
