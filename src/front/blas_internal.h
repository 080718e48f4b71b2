/* blas_internal.h — the parts of libtilemm_blas.so behind its entry points (blas_shim.c): one
 * call described once (blas_call), where its product runs (blas_product.c: tilemm's decision and
 * run path, the next BLAS in the process, or tilemm's own loop), the next BLAS (blas_next.c) and
 * the per-process trace (blas_trace.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_BLAS_INTERNAL_H
#define TILEMM_BLAS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "front.h"
#include "tilemm.h"

/* The routines the library exports, in the order of their names in blas_trace.c. */
typedef enum {
  BLAS_SGEMM, BLAS_DGEMM, BLAS_CGEMM, BLAS_ZGEMM,
  BLAS_SSYRK, BLAS_DSYRK, BLAS_CSYRK, BLAS_ZSYRK,
  BLAS_CHERK, BLAS_ZHERK,
  BLAS_NROUTINES
} blas_routine;

/* The routine's lower-case name ("dgemm"); its Fortran symbol is that name and "_". */
const char *blas_routine_name (blas_routine routine);

/* Where a product ran: tilemm's CPU backend, its GPU backend, the next BLAS in the process, or
 * tilemm's own element loop (the last resort, where nothing else could run it). */
typedef enum { BLAS_ON_CPU, BLAS_ON_GPU, BLAS_ON_NEXT, BLAS_ON_LOOP, BLAS_NPLACES } blas_place;

/* One call, its arguments already checked: the request (front.h, the one struct of a BLAS call:
 * C := alpha·op_a(A)·op_b(B) + beta·C over C's m×n block or one triangle, m, n, k all > 0 by the
 * time a product is computed), which routine it came through, and its arguments as given. */
typedef struct {
  blas_routine routine;
  tilemm_blas_request req;
  /* The call's own arguments, to hand the whole call unchanged to the next BLAS. */
  const char *arg_char[2];          /* transa, transb (gemm); uplo, trans (syrk, herk) */
  const int *arg_int[6];            /* m, n, k, lda, ldb, ldc (gemm); n, k, lda, ldc */
  const void *arg_alpha, *arg_beta;
} blas_call;

/* ---------------------------------------------------------------- blas_product.c */

/* Runs the call: P = op_a(A)·op_b(B) through tilemm_decide_op and tilemm_run (the GPU where it
 * pays or TILEMM_BLAS_BACKEND asks), then C := alpha·P + beta·C over the call's block or
 * triangle; what tilemm does not compute, and every failure, goes to the next BLAS (else tilemm's
 * CPU backend, else its loop).  Never aborts; says a failure once per process on stderr. */
void blas_run_call (const blas_call *call);

/* C := beta·C over the call's block or triangle (beta = 0 writes zeros without reading C; herk
 * keeps the diagonal real): the reference's alpha = 0 and k = 0 branches. */
void blas_scale_c (const blas_call *call);

/* ---------------------------------------------------------------- blas_next.c */

/* The routine of the next BLAS in the process (the first library after this one in symbol
 * lookup that defines it: the user's OpenBLAS, the reference BLAS), or NULL where there is none
 * (a program linked only to this library).  Looked up once per process. */
void *blas_next (blas_routine routine);

/* The file the next BLAS was loaded from, for messages ("" when unknown). */
const char *blas_next_file (blas_routine routine);

/* The next BLAS as the host's product the machine's facts measure (blas_host.c); NULL where the
 * process has no next BLAS. */
const tilemm_host_product *blas_host_product (void);

/* Hands the whole call, unchanged, to the next BLAS (blas_next (call->routine) must not be
 * NULL). */
void blas_next_call (const blas_call *call);

/* ---------------------------------------------------------------- blas_trace.c */

/* TILEMM_BLAS_TRACE (see blas_trace.c): counts only ever incremented, one record per process
 * appended to the file at exit. */
void blas_trace_call (blas_routine routine);
void blas_trace_product (blas_routine routine, blas_place place, int64_t m, int64_t n, int64_t k,
                         double seconds);
void blas_trace_fallback (blas_routine routine);

#endif /* TILEMM_BLAS_INTERNAL_H */
