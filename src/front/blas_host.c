/* blas_host.c — the next BLAS as the machine's facts measure it (front.h: tilemm_host_product):
 * the host's own product of the BLAS library is the BLAS it hands a call to, so "auto" weighs
 * that BLAS, not Octave's `*` (which, with the library preloaded, is the library itself).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _GNU_SOURCE   /* realpath's buffer, RTLD_NEXT's neighbours */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas_internal.h"
#include "uniform_fill.h"

typedef void gemm_fn (const char *, const char *, const int *, const int *, const int *,
                      const void *, const void *, const int *, const void *, const int *,
                      const void *, void *, const int *, size_t, size_t);

static const blas_routine GEMM_OF[TILEMM_NTYPES] = {
  [TILEMM_SINGLE] = BLAS_SGEMM, [TILEMM_DOUBLE] = BLAS_DGEMM,
  [TILEMM_COMPLEX_SINGLE] = BLAS_CGEMM, [TILEMM_COMPLEX_DOUBLE] = BLAS_ZGEMM
};

static double next_seconds (void *ctx, tilemm_type type, int64_t m, int64_t n, int64_t k,
                            int runs)
{
  (void) ctx;
  if ((int) type < 0 || type >= TILEMM_NTYPES || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
    return -1;
  gemm_fn *gemm = (gemm_fn *) blas_next (GEMM_OF[type]);
  if (!gemm)
    return -1;
  const size_t es = tilemm_type_size (type);
  const int parts = tilemm_type_is_complex (type) ? 2 : 1;
  const int is_single = type == TILEMM_SINGLE || type == TILEMM_COMPLEX_SINGLE;
  void *a = malloc (es * (size_t) (m * k)), *b = malloc (es * (size_t) (k * n));
  void *c = malloc (es * (size_t) (m * n));
  double best = -1;
  if (a && b && c)
    {
      tilemm_uniform_fill (a, (size_t) (parts * m * k), is_single, 1);
      tilemm_uniform_fill (b, (size_t) (parts * k * n), is_single, 2);
      const double one[2] = { 1, 0 }, zero[2] = { 0, 0 };
      const float onef[2] = { 1, 0 }, zerof[2] = { 0, 0 };
      const int im = (int) m, in = (int) n, ik = (int) k;
      for (int r = -1; r < runs; r++)
        {
          const double t0 = tilemm_now_s ();
          gemm ("N", "N", &im, &in, &ik, is_single ? (const void *) onef : (const void *) one,
                a, &im, b, &ik, is_single ? (const void *) zerof : (const void *) zero, c, &im, 1,
                1);
          const double t = tilemm_now_s () - t0;
          if (r >= 0 && (best < 0 || t < best))
            best = t;
        }
    }
  free (a);
  free (b);
  free (c);
  return best;
}

static tilemm_host_product host;
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void host_make (void)
{
  memset (&host, 0, sizeof host);
  host.seconds = next_seconds;
  host.pages_seconds = NULL;
  const char *file = blas_next (BLAS_DGEMM) ? blas_next_file (BLAS_DGEMM) : "";
  char *real = *file ? realpath (file, NULL) : NULL;
  snprintf (host.library, sizeof host.library, "%s", real ? real : *file ? file : "none");
  free (real);
}

const tilemm_host_product *blas_host_product (void)
{
  pthread_once (&host_once, host_make);
  /* Without a next BLAS there is no host's product to weigh: the model's stands for it. */
  return blas_next (BLAS_DGEMM) ? &host : NULL;
}
