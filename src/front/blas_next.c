/* blas_next.c — the next BLAS in the process: where libtilemm_blas.so hands what tilemm does not
 * compute (products too small for the GPU to pay, and every failure), so that no product is
 * slower, and none lost, for the library being there.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Preloaded (LD_PRELOAD), this library comes before the program's own BLAS in symbol lookup, so
 * dlsym (RTLD_NEXT, "dgemm_") finds that BLAS's dgemm_: OpenBLAS, MKL, BLIS or the reference.  A
 * program linked only to this library (tests/test_blas) has none: NULL.
 */
#define _GNU_SOURCE   /* RTLD_NEXT, dladdr */
#include <dlfcn.h>
#include <stdatomic.h>

#include "blas_internal.h"

/* Looked up once per process (the loaded libraries do not change under a running call); a
 * race between two first calls only looks it up twice, with the same answer. */
static _Atomic (void *) next_fn[BLAS_NROUTINES];
static atomic_int looked_up[BLAS_NROUTINES];

void *blas_next (blas_routine routine)
{
  if (!atomic_load_explicit (&looked_up[routine], memory_order_acquire))
    {
      char symbol[16];
      const char *name = blas_routine_name (routine);
      size_t i = 0;
      for (; name[i] && i < sizeof symbol - 2; i++)
        symbol[i] = name[i];
      symbol[i++] = '_';
      symbol[i] = '\0';
      void *fn = dlsym (RTLD_NEXT, symbol);
      /* Never ourselves (a loader that put this library twice in the lookup order). */
      Dl_info mine, theirs;
      if (fn && dladdr ((void *) &blas_next, &mine) && dladdr (fn, &theirs)
          && mine.dli_fbase == theirs.dli_fbase)
        fn = NULL;
      atomic_store (&next_fn[routine], fn);
      atomic_store_explicit (&looked_up[routine], 1, memory_order_release);
    }
  return atomic_load (&next_fn[routine]);
}

const char *blas_next_file (blas_routine routine)
{
  Dl_info info;
  void *fn = blas_next (routine);
  return fn && dladdr (fn, &info) && info.dli_fname ? info.dli_fname : "";
}

/* The Fortran interfaces, with the hidden lengths gfortran passes after the last argument for
 * each CHARACTER argument (1 each: the routines read one letter). */
typedef void gemm_fn (const char *, const char *, const int *, const int *, const int *,
                      const void *, const void *, const int *, const void *, const int *,
                      const void *, void *, const int *, size_t, size_t);
typedef void rank_k_fn (const char *, const char *, const int *, const int *, const void *,
                        const void *, const int *, const void *, void *, const int *, size_t,
                        size_t);

void blas_next_call (const blas_call *call)
{
  void *fn = blas_next (call->routine);
  const int *const *i = call->arg_int;
  if (!call->req.uplo)
    ((gemm_fn *) fn) (call->arg_char[0], call->arg_char[1], i[0], i[1], i[2], call->arg_alpha,
                      call->req.a, i[3], call->req.b, i[4], call->arg_beta, call->req.c, i[5], 1, 1);
  else
    ((rank_k_fn *) fn) (call->arg_char[0], call->arg_char[1], i[0], i[1], call->arg_alpha,
                        call->req.a, i[2], call->arg_beta, call->req.c, i[3], 1, 1);
}
