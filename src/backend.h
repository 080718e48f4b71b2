/* backend.h — the interface every backend implements, and the GPU facts the core can ask for.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * tilemm_multiply (core.c) checks the operands and then calls the backend the plan names.  The
 * CUDA backend lives in backend_cuda.cu when the build has CUDA, and in backend_nocuda.c (which
 * answers TILEMM_ENOGPU to everything) when it has not, so hosts never need an #ifdef.
 */
#ifndef TILEMM_BACKEND_H
#define TILEMM_BACKEND_H

#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- CPU */

/* C = A·B on the host by the tiled plan.  Operands already checked by tilemm_check_operands. */
tilemm_status tilemm_cpu_multiply (const tilemm_plan *plan, const tilemm_view *a,
                                   const tilemm_view *b, const tilemm_view *c, tilemm_error *err);

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
 * call allocated is freed and the next call starts clean. */
tilemm_status tilemm_cuda_multiply (const tilemm_plan *plan, const tilemm_view *a,
                                    const tilemm_view *b, const tilemm_view *c, tilemm_error *err);

/* Frees every device buffer, stream and pinned buffer tilemm holds (hosts call it at exit). */
void tilemm_cuda_release (void);

/* Bytes of device memory tilemm currently holds (for leak tests). */
size_t tilemm_cuda_bytes_held (void);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_BACKEND_H */
