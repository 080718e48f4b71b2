/* host_blas.c — the host's BLAS from its own interface (see host_blas.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Looked up by name among the symbols the process already has (RTLD_DEFAULT): nothing is loaded,
 * and a program without these libraries finds none of them.  A function pointer from dlsym goes
 * through a union, which ISO C allows where a cast from void * would not be portable.
 */
#define _GNU_SOURCE   /* RTLD_DEFAULT */

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "host_blas.h"

typedef int (*int_fn) (void);

static int_fn lookup (const char *name)
{
  union {
    void *object;
    int_fn function;
  } u;
  u.object = dlsym (RTLD_DEFAULT, name);
  return u.function;
}

void tilemm_host_blas_gather (tilemm_host_blas *blas)
{
  snprintf (blas->name, sizeof blas->name, "unknown");
  blas->threads = 1;
  blas->spins = 0;
  const int_fn parallel = lookup ("openblas_get_parallel");
  const int_fn openblas_threads = lookup ("openblas_get_num_threads");
  if (openblas_threads)
    {
      /* openblas_get_parallel: 0 serial, 1 its own pthreads pool, 2 OpenMP. */
      const int kind = parallel ? parallel () : 1;
      snprintf (blas->name, sizeof blas->name, "openblas-%s",
                kind == 0 ? "serial" : kind == 2 ? "openmp" : "pthreads");
      blas->threads = kind == 0 ? 1 : openblas_threads ();
      blas->spins = blas->threads > 1;
      return;
    }
  const int_fn mkl_threads = lookup ("mkl_get_max_threads");
  if (mkl_threads)
    {
      snprintf (blas->name, sizeof blas->name, "mkl");
      blas->threads = mkl_threads ();
      blas->spins = blas->threads > 1;
      return;
    }
  /* bli_thread_get_num_threads returns a dim_t (a 64-bit integer); read through its own type. */
  union {
    void *object;
    long long (*function) (void);
  } blis;
  blis.object = dlsym (RTLD_DEFAULT, "bli_thread_get_num_threads");
  if (blis.object)
    {
      snprintf (blas->name, sizeof blas->name, "blis");
      const long long t = blis.function ();
      blas->threads = t > 0 && t < 100000 ? (int) t : 1;
      blas->spins = blas->threads > 1;
    }
  if (blas->threads < 1)
    blas->threads = 1;
}
