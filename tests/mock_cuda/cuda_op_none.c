/* tests/mock_cuda/cuda_op_none.c — the emulated precision's device side (emulated_cuda.h) on the
 * stand-in CUDA runtime: the CPU's scheme (src/cpu/emulated_cpu.c) on the "device" buffers (host
 * memory there), run in the stream's order, so that the GPU's emulated products, on one device
 * or several, are tested where there is no GPU; bitwise the CPU's, as the real device side is.
 * (The device transpose has a stand-in too: mock_kernels.cc.)
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "backend.h"
#include "emulated_scheme.h"

/* The emulated precision's device side: the executor (src/cuda/) links against these. */
int tilemm_emu_cuda_wgmma_runs (void)
{
  return 0;
}

/* What the last setup handed to the scheme on each device named (the device current at the
 * call): the statistics' GEMM, the wgmma GEMM's grid and the device's multiprocessors, for the
 * tests (mock_emu_setup_seen). */
#define SEEN_DEVICES 16
static struct {
  int calls, stats_gemm, gemm_blocks, multiprocessors;
} seen[SEEN_DEVICES];

static void see (const tilemm_emu_cuda_setup *setup)
{
  int d = 0;
  if (!setup || cudaGetDevice (&d) != cudaSuccess || d < 0 || d >= SEEN_DEVICES)
    return;
  __atomic_add_fetch (&seen[d].calls, 1, __ATOMIC_SEQ_CST);
  __atomic_store_n (&seen[d].stats_gemm, (int) setup->stats_gemm, __ATOMIC_SEQ_CST);
  __atomic_store_n (&seen[d].gemm_blocks, setup->gemm_blocks, __ATOMIC_SEQ_CST);
  __atomic_store_n (&seen[d].multiprocessors, setup->multiprocessors, __ATOMIC_SEQ_CST);
}

int mock_emu_setup_seen (int device, int *stats_gemm, int *gemm_blocks, int *multiprocessors)
{
  if (device < 0 || device >= SEEN_DEVICES)
    return 0;
  *stats_gemm = __atomic_load_n (&seen[device].stats_gemm, __ATOMIC_SEQ_CST);
  *gemm_blocks = __atomic_load_n (&seen[device].gemm_blocks, __ATOMIC_SEQ_CST);
  *multiprocessors = __atomic_load_n (&seen[device].multiprocessors, __ATOMIC_SEQ_CST);
  return __atomic_exchange_n (&seen[device].calls, 0, __ATOMIC_SEQ_CST);
}

/* Device operands as views: A m×k (lda), B k×n (ldb), C m×n (ldc), column-major. */
static void views (tilemm_type type, int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                   const void *b, int64_t ldb, void *c, int64_t ldc, tilemm_view *va,
                   tilemm_view *vb, tilemm_view *vc)
{
  tilemm_view_init (va, type, m, k, lda > 0 ? lda : 1, (void *) a);
  tilemm_view_init (vb, type, k, n, ldb > 0 ? ldb : 1, (void *) b);
  if (vc)
    tilemm_view_init (vc, type, m, n, ldc > 0 ? ldc : 1, c);
}

/* The product under a plan, as a "kernel" in the stream's order. */
typedef struct {
  tilemm_emu_plan plan;
  tilemm_view a, b, c;
} product_job;

static void run_product (void *arg)
{
  product_job *j = (product_job *) arg;
  tilemm_error err;
  if (j->c.rows > 0 && j->c.cols > 0)
    tilemm_emu_run_cpu_op (&j->plan, TILEMM_OP_NONE, &j->a, TILEMM_OP_NONE, &j->b, &j->c, &err);
  free (j);
}

/* The statistics of device operands, once the stream has brought them (the device side hands
 * its statistics back waited for). */
static tilemm_status stats_now (tilemm_type type, int64_t m, int64_t n, int64_t k, const void *a,
                                int64_t lda, const void *b, int64_t ldb, void *stream,
                                tilemm_emu_stats *stats, tilemm_error *err)
{
  if (cudaStreamSynchronize ((cudaStream_t) stream) != cudaSuccess)
    return tilemm_error_set (err, TILEMM_ECUDA, "mock emulated: cudaStreamSynchronize");
  tilemm_view va, vb;
  views (type, m, n, k, a, lda, b, ldb, NULL, 0, &va, &vb, NULL);
  memset (stats, 0, sizeof *stats);
  return tilemm_emu_stats_cpu_op (TILEMM_OP_NONE, &va, TILEMM_OP_NONE, &vb, stats, err);
}

/* The product under `plan` enqueued, then C's blocks marked done (all at once: the stand-in
 * computes C whole), or, without block events, waited for. */
static tilemm_status enqueue_product (const tilemm_emu_plan *plan, tilemm_type type, int64_t m,
                                      int64_t n, int64_t k, const void *a, int64_t lda,
                                      const void *b, int64_t ldb, void *c, int64_t ldc,
                                      void *stream, const tilemm_emu_cuda_blocks *blocks,
                                      tilemm_error *err)
{
  product_job *j = (product_job *) malloc (sizeof *j);
  if (!j)
    return tilemm_error_set (err, TILEMM_ENOMEM, "mock emulated: no memory");
  j->plan = *plan;
  views (type, m, n, k, a, lda, b, ldb, c, ldc, &j->a, &j->b, &j->c);
  mock_cuda_enqueue ((cudaStream_t) stream, run_product, j);
  if (blocks && blocks->done)
    {
      const int64_t cols = blocks->cols > 0 && blocks->cols < n ? blocks->cols : n;
      const int64_t count = cols > 0 ? (n + cols - 1) / cols : 0;
      for (int64_t i = 0; i < count && i < blocks->count; i++)
        if (cudaEventRecord ((cudaEvent_t) blocks->done[i], (cudaStream_t) stream) != cudaSuccess)
          return tilemm_error_set (err, TILEMM_ECUDA, "mock emulated: cudaEventRecord");
      return TILEMM_OK;
    }
  if (cudaStreamSynchronize ((cudaStream_t) stream) != cudaSuccess)
    return tilemm_error_set (err, TILEMM_ECUDA, "mock emulated: cudaStreamSynchronize");
  return TILEMM_OK;
}

tilemm_status tilemm_emu_cuda_run (const tilemm_emu_options *options,
                                   const tilemm_emu_cuda_setup *setup, tilemm_type type, int64_t m,
                                   int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                                   int64_t ldb, void *c, int64_t ldc, void *stream,
                                   const tilemm_stop *stop, tilemm_emu_plan *used,
                                   tilemm_emu_stats *stats, tilemm_emu_cuda_times *times,
                                   const tilemm_emu_cuda_arena *arena,
                                   const tilemm_emu_cuda_blocks *blocks, tilemm_error *err)
{
  (void) stop; (void) arena;
  see (setup);
  if (times)
    memset (times, 0, sizeof *times);
  tilemm_emu_stats st;
  tilemm_status status = stats_now (type, m, n, k, a, lda, b, ldb, stream, &st, err);
  if (status != TILEMM_OK)
    return status;
  if (stats)
    *stats = st;
  memset (used, 0, sizeof *used);
  if (st.nonfinite)
    used->verdict = TILEMM_EMU_NONFINITE;
  else
    tilemm_emu_select (setup->branches, &st, used);
  if (used->verdict != TILEMM_EMU_OK)
    return TILEMM_OK;
  return enqueue_product (used, type, m, n, k, a, lda, b, ldb, c, ldc, stream, blocks, err);
}

tilemm_status tilemm_emu_cuda_stats (const tilemm_emu_options *options,
                                     const tilemm_emu_cuda_setup *setup, tilemm_type type, int64_t m,
                                     int64_t n, int64_t k, const void *a, int64_t lda, const void *b,
                                     int64_t ldb, void *stream, tilemm_emu_stats *stats,
                                     const tilemm_emu_cuda_arena *arena, tilemm_error *err)
{
  (void) options; (void) arena;
  see (setup);
  return stats_now (type, m, n, k, a, lda, b, ldb, stream, stats, err);
}

tilemm_status tilemm_emu_cuda_run_plan (const tilemm_emu_plan *plan,
                                        const tilemm_emu_cuda_setup *setup, tilemm_type type,
                                        int64_t m, int64_t n, int64_t k, const void *a, int64_t lda,
                                        const void *b, int64_t ldb, void *c, int64_t ldc,
                                        void *stream, const tilemm_stop *stop,
                                        tilemm_emu_plan *used, tilemm_emu_cuda_times *times,
                                        const tilemm_emu_cuda_arena *arena,
                                        const tilemm_emu_cuda_blocks *blocks, tilemm_error *err)
{
  (void) stop; (void) arena;
  see (setup);
  if (times)
    memset (times, 0, sizeof *times);
  *used = *plan;
  return enqueue_product (plan, type, m, n, k, a, lda, b, ldb, c, ldc, stream, blocks, err);
}

/* The stand-in's int8 GEMM "time": what a nominal 1e11 int8 operations a second would take (the
 * stand-in has no device to time; the figure lets calibration's int8 part be tested end to end:
 * a rate of 1e11 in the facts says it came from here). */
tilemm_status tilemm_emu_cuda_time_gemm (const tilemm_emu_cuda_setup *setup, int64_t m, int64_t n,
                                         int64_t k, int moduli, void *stream,
                                         const tilemm_emu_cuda_arena *arena, double *ms,
                                         tilemm_error *err)
{
  (void) setup; (void) arena;
  *ms = 0;
  if (m < 1 || n < 1 || k < 1 || moduli < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated GEMM timing: bad sizes");
  if (cudaStreamSynchronize ((cudaStream_t) stream) != cudaSuccess)
    return tilemm_error_set (err, TILEMM_ECUDA, "mock emulated: cudaStreamSynchronize");
  *ms = 2.0 * (double) m * (double) n * (double) k * (double) moduli / 1e11 * 1e3;
  return TILEMM_OK;
}
