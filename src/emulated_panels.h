/* emulated_panels.h — the emulated precision over panels and devices (emulated_panels.c): the
 * one entry the front end runs an emulated product through, on either backend.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_EMULATED_PANELS_H
#define TILEMM_EMULATED_PANELS_H

#include <stddef.h>
#include <stdint.h>

#include "emulated.h"
#include "multi.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An upper bound of the device bytes one panel of an emulated product holds (rows × cols of C,
 * inner dimension k, `moduli` moduli): A, B and C as they travel, the statistics, the residues
 * and the modular products (src/emulated_cuda.cu's two workspaces). */
double tilemm_emu_panel_bytes (tilemm_type type, int64_t rows, int64_t cols, int64_t k,
                               int moduli);

/* Sets plan's panels for an emulated product under max_device_bytes (0: one panel): the largest
 * panels, halving the longer side, whose tilemm_emu_panel_bytes at the most moduli `options`
 * allow fit.  TILEMM_EDEVMEM (GPU) or TILEMM_ELIMIT (CPU) when not even one entry fits. */
tilemm_status tilemm_emu_plan_panels (tilemm_plan *plan, const tilemm_emu_options *options,
                                      size_t max_device_bytes);

/* C = A·B in emulated precision on plan->backend, for untransposed views of plan->type: one
 * panel on one device in one pass (the data go up once); several panels (the plan's, see
 * tilemm_emu_plan_panels) or several workers (more than one in `workers`, which may be NULL:
 * GPUs, or simulated devices for the CPU backend; `named` as tilemm_plan_workers) in two passes,
 * the statistics of all and then the product of each under one plan, bitwise the whole
 * product's.  *used and the verdicts as tilemm_cpu_multiply_emulated (C untouched unless OK). */
tilemm_status tilemm_emu_multiply_panels (const tilemm_plan *plan,
                                          const tilemm_emu_options *options,
                                          const tilemm_workers *workers, int named,
                                          const tilemm_view *a, const tilemm_view *b,
                                          const tilemm_view *c, const tilemm_stop *stop,
                                          tilemm_emu_plan *used, tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_EMULATED_PANELS_H */
