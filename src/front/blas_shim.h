/* blas_shim.h — tilemm as a BLAS: the Fortran-ABI ?gemm_, ?syrk_ and ?herk_ entry points of
 * libtilemm_blas.so.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * C := alpha·op(A)·op(B) + beta·C (gemm), C := alpha·A·Aᵀ + beta·C or alpha·Aᵀ·A + beta·C on one
 * triangle of C (syrk; Aᴴ and real alpha, beta for herk) with reference BLAS semantics (see
 * blas_shim.c): every
 * argument by address, column-major, INTEGER = int, op = 'N', 'T' or 'C' in either case.  The
 * hidden lengths gfortran passes after the last argument for the CHARACTER arguments are
 * not read.  Complex scalars and elements are interleaved (re, im) pairs.
 */
#ifndef TILEMM_BLAS_SHIM_H
#define TILEMM_BLAS_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void sgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
             const float *beta, float *c, const int *ldc);
void dgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *lda, const double *b,
             const int *ldb, const double *beta, double *c, const int *ldc);
void cgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
             const float *beta, float *c, const int *ldc);
void zgemm_ (const char *transa, const char *transb, const int *m, const int *n, const int *k,
             const double *alpha, const double *a, const int *lda, const double *b,
             const int *ldb, const double *beta, double *c, const int *ldc);

void ssyrk_ (const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
             const float *a, const int *lda, const float *beta, float *c, const int *ldc);
void dsyrk_ (const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
             const double *a, const int *lda, const double *beta, double *c, const int *ldc);
/* csyrk_, zsyrk_: complex alpha, beta, A and C (interleaved pairs of float, double). */
void csyrk_ (const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
             const float *a, const int *lda, const float *beta, float *c, const int *ldc);
void zsyrk_ (const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
             const double *a, const int *lda, const double *beta, double *c, const int *ldc);
/* cherk_, zherk_: REAL alpha and beta (one float, double each), complex A and C. */
void cherk_ (const char *uplo, const char *trans, const int *n, const int *k, const float *alpha,
             const float *a, const int *lda, const float *beta, float *c, const int *ldc);
void zherk_ (const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
             const double *a, const int *lda, const double *beta, double *c, const int *ldc);

/* The figures of the library's last GPU product (backend.h: a struct tilemm_cuda_stats_s, each
 * device's among them), for a host in the same process that asks what the library's copy of
 * the GPU backend did (Octave's __tilemm_stats__ ("blas"), found with dlsym: the oct-file has a
 * copy of its own). */
struct tilemm_cuda_stats_s;
void tilemm_blas_last_stats (struct tilemm_cuda_stats_s *stats);

/* The BLAS error handler the library calls for a bad argument: the process's own, found with
 * dlsym (RTLD_DEFAULT) (the program's, Octave's, the next BLAS's; a program linked to this
 * library alone must export it, -rdynamic), else the library prints the reference message to
 * stderr and returns.  The library does not define it.  srname is the routine's name padded to
 * 6 characters ("DGEMM "), info the position of the bad argument. */
void xerbla_ (const char *srname, const int *info, size_t srname_len);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_BLAS_SHIM_H */
