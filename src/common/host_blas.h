/* host_blas.h — the host's BLAS as its own interface describes it: which library the process's
 * dgemm_ comes from, how many threads it runs, and whether its idle threads keep spinning after
 * a call.  A fact of the process, gathered once per calibration (host_blas.c) and a term of the
 * machine's facts: a pool that spins holds the cores a product that follows it would use.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_HOST_BLAS_H
#define TILEMM_HOST_BLAS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tilemm_host_blas_s {
  char name[64];   /* "openblas-pthreads", "openblas-openmp", "openblas-serial", "mkl", "blis",
                      "unknown" (no interface tells: the reference BLAS, or another)          */
  int threads;     /* its threads (1 where it runs on the caller's alone or nothing tells)     */
  int spins;       /* 1 where its idle threads busy-wait after a call (OpenBLAS's pthreads pool
                      until OPENBLAS_THREAD_TIMEOUT, an OpenMP runtime's until its spin count or
                      block time): a neighbour whose threads hold cores for a while after `*`  */
} tilemm_host_blas;

/* The process's BLAS now, from the symbols the process has loaded (dlsym: OpenBLAS's
 * openblas_get_parallel and openblas_get_num_threads, MKL's mkl_get_max_threads, BLIS's
 * bli_thread_get_num_threads).  Never fails: "unknown", 1 thread, not spinning. */
void tilemm_host_blas_gather (tilemm_host_blas *blas);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_HOST_BLAS_H */
