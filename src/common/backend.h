/* backend.h — the interface every backend implements, and the GPU facts the core can ask for.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * tilemm_multiply (core.c) checks the operands and then calls the backend the plan names.  The
 * CUDA backend lives in src/cuda/ when the build has CUDA, and in backend_nocuda.c (which
 * answers TILEMM_ENOGPU to everything) when it has not, so hosts never need an #ifdef.
 */
#ifndef TILEMM_BACKEND_H
#define TILEMM_BACKEND_H

#include "emulated.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- CPU */

/* Whether the host asked a product to stop (tilemm_stop, tilemm.h); stop may be NULL. */
static inline int tilemm_stop_requested (const tilemm_stop *stop)
{
  return stop && stop->should_stop && stop->should_stop (stop->arg) != 0;
}

/* C = A·B on the host by the tiled plan.  Operands already checked by tilemm_check_operands.
 * stop (may be NULL) is polled before each panel and each batch of tile rows. */
tilemm_status tilemm_cpu_multiply (const tilemm_plan *plan, const tilemm_view *a,
                                   const tilemm_view *b, const tilemm_view *c,
                                   const tilemm_stop *stop, tilemm_error *err);

/* C = op_a(A)·op_b(B) on the host: a transposed operand is read through the other reading of
 * its view (no copy), a conjugated one has its imaginary parts negated as its tiles load.  stop
 * as for tilemm_cpu_multiply. */
tilemm_status tilemm_cpu_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                      const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                      const tilemm_view *c, const tilemm_stop *stop,
                                      tilemm_error *err);

/* C = op_a(A)·op_b(B) in emulated precision (emulated.h), a and b of plan->type as stored (a
 * transposed operand is read the other way round, as the native CPU product reads it).  Returns
 * TILEMM_OK with used->verdict == TILEMM_EMU_OK when C was computed; with verdict NONFINITE or
 * RANGE it returns TILEMM_OK and leaves C untouched (the caller runs the native product); stop
 * (may be NULL) is polled between moduli (C untouched when stopped).  The plan is decide's, from
 * the statistics (the caller's function: tilemm_emu_decide_by_rule for the options' rule). */
tilemm_status tilemm_cpu_multiply_emulated (const tilemm_plan *plan,
                                            const tilemm_emu_options *options,
                                            tilemm_emu_decide_fn decide, void *decide_ctx,
                                            tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                            const tilemm_view *b, const tilemm_view *c,
                                            const tilemm_stop *stop, tilemm_emu_plan *used,
                                            tilemm_error *err);

/* ---------------------------------------------------------------- CUDA */

typedef struct {
  int index;                  /* CUDA device ordinal                          */
  char name[256];
  size_t total_memory;        /* bytes                                        */
  size_t free_memory;         /* bytes, at the time of the query              */
  int cc_major, cc_minor;     /* compute capability                           */
  int multiprocessors;
} tilemm_device_info;

/* Whether the GPU path can run here: TILEMM_OK, or TILEMM_ENOGPU with the reason in err->detail
 * (not built with CUDA, no driver, driver too old for this build, no device). Cheap after the
 * first call. */
tilemm_status tilemm_cuda_probe (tilemm_error *err);

/* Number of devices seen (0 when none or not built), and facts about one of them. */
int tilemm_cuda_device_count (void);
tilemm_status tilemm_cuda_device_info (int index, tilemm_device_info *info, tilemm_error *err);

/* The device ordinal tilemm computes on (-1 when none). */
int tilemm_cuda_current_device (void);

/* C = A·B for host-memory views: upload, compute with our kernels, download.  Device buffers and
 * the stream are created on first use and kept for later calls; on any failure everything this
 * call allocated is freed and the next call starts clean.  stop (may be NULL) is polled before
 * each step's kernel; on a stop the work already enqueued is waited for and the buffers kept. */
tilemm_status tilemm_cuda_multiply (const tilemm_plan *plan, const tilemm_view *a,
                                    const tilemm_view *b, const tilemm_view *c,
                                    const tilemm_stop *stop, tilemm_error *err);

/* C = op_a(A)·op_b(B) for host views with at least one transposed operand: the operands go up as
 * stored through the pinned staging into the device's workspace (src/cuda/), are
 * transposed (and conjugated) there by an O(n²) kernel into the layout the tiled kernels read,
 * multiplied in one launch, and C comes back through the staging.  One piece: A, B, their
 * transposes and C must fit on the device, else TILEMM_EDEVMEM (several workers cut it into
 * panels: tilemm_cuda_multiply_workers_op).  The workspace is kept for the next call. */
tilemm_status tilemm_cuda_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                       const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                       const tilemm_view *c, tilemm_error *err);

/* tilemm_cpu_multiply_emulated on the GPU: the same plan from the same statistics, bitwise the
 * same C.  One device (the current one), one panel: A and B go up as stored through the pinned
 * staging into the workspace the native product uses (src/cuda/workspace.cu), a transposed one
 * is transposed on the device (transpose.cu), the scheme runs there (emulated_cuda.cu) in the
 * workspace's arena, kept for the next call, and C comes back the same way.  plan may be NULL
 * (its panels are not used: emulated_panels.c cuts an emulated product).  The plan is decide's,
 * as the CPU's. */
tilemm_status tilemm_cuda_multiply_emulated (const tilemm_plan *plan,
                                             const tilemm_emu_options *options,
                                             tilemm_emu_decide_fn decide, void *decide_ctx,
                                             tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                             const tilemm_view *b, const tilemm_view *c,
                                             const tilemm_stop *stop, tilemm_emu_plan *used,
                                             tilemm_error *err);

/* Frees every device buffer, stream and pinned buffer tilemm holds (hosts call it at exit). */
void tilemm_cuda_release (void);

/* Bytes of device memory tilemm currently holds (for leak tests). */
size_t tilemm_cuda_bytes_held (void);

/* Bytes of pinned (page-locked) host memory tilemm currently holds: its staging buffers. */
size_t tilemm_cuda_pinned_bytes_held (void);

/* Device bytes one product may use now: the free memory plus what tilemm holds (it reuses its
 * own buffers), less a margin for the driver.  0 when there is no usable GPU.  The front end
 * gives it to the plan as a limit when a product would not fit otherwise. */
size_t tilemm_cuda_memory_budget (void);

/* The device limit of one product of `whole_bytes` (what its data, or an emulated product's
 * workspace too, would hold on the device) on `backend`, given the caller's `asked` limit (0:
 * none): a GPU product larger than the memory the GPU has is cut into panels that fit it, so the
 * limit is the smaller of the two; anything else keeps `asked` (core.c).  The front ends' and the
 * BLAS library's one rule. */
size_t tilemm_device_limit (tilemm_backend backend, double whole_bytes, size_t asked);

/* The "auto" backend where nothing can be delegated (the BLAS library): the GPU where it is
 * usable and the product pays on it (tilemm_plan_gpu_pays), else the CPU (core.c). */
tilemm_backend tilemm_gpu_if_it_pays (tilemm_type type, int64_t m, int64_t n, int64_t k);

/* Where the time of the last GPU product went (tilemm_cuda_multiply), for tilemm_bench and the
 * hidden Octave function __tilemm_stats__.  Copies, compute and downloads overlap; the split
 * below follows the critical path, so upload + compute + download = total:
 *   upload   = from entry until the first kernel starts (the GPU waits for data),
 *   compute  = from the first kernel's start to the last kernel's end (CUDA events),
 *   download = the rest: the last pieces of C coming back and copied into the result. */
typedef struct {
  unsigned long long calls;  /* GPU products run since load (successful or not)        */
  int ok;                    /* 1 when the last one succeeded                           */
  double total_ms;           /* entry to return, host clock                             */
  double upload_ms, compute_ms, download_ms;
  double copy_in_ms;         /* host time spent copying operands into pinned staging    */
  double copy_out_ms;        /* host time spent copying results out of pinned staging   */
  double result_prep_ms;     /* host time preparing the result's pages (huge pages)     */
  double bytes_up, bytes_down;
  long long panels, steps;
} tilemm_cuda_stats;

/* Fills *stats with the last GPU product's figures (all zero before the first). */
void tilemm_cuda_last_stats (tilemm_cuda_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_BACKEND_H */
