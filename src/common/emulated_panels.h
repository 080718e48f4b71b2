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
 * inner dimension k, `moduli` moduli): A, B and C as they travel (a transposed operand twice: as
 * stored and transposed on the device), the statistics, the residues and the modular products
 * (src/kernels/emulated_cuda.cu's two workspaces). */
double tilemm_emu_panel_bytes (tilemm_type type, int64_t rows, int64_t cols, int64_t k,
                               int moduli, tilemm_op op_a, tilemm_op op_b);

/* C of one panel comes back in at most this many column blocks (tilemm_emu_result_block_cols). */
#define TILEMM_EMU_MAX_BLOCKS 8

/* The columns of each block in which the GPU executor brings an emulated panel's C (rows × cols
 * of `type`) back while the device computes the next blocks, given its staging chunks of
 * chunk_bytes: blocks of at least four chunks (so a block's download keeps the copy engine
 * busy), at most TILEMM_EMU_MAX_BLOCKS, wider than 256 columns only in whole 256-column GEMM
 * tiles.  cols itself: one block. */
int64_t tilemm_emu_result_block_cols (tilemm_type type, int64_t rows, int64_t cols,
                                      size_t chunk_bytes);

/* Sets plan's panels for an emulated product op_a(A)·op_b(B) under max_device_bytes (0: one
 * panel): the largest panels, halving the longer side, whose tilemm_emu_panel_bytes at the most
 * moduli `options` allow fit.  TILEMM_EDEVMEM (GPU) or TILEMM_ELIMIT (CPU) when not even one
 * entry fits. */
tilemm_status tilemm_emu_plan_panels (tilemm_plan *plan, const tilemm_emu_options *options,
                                      tilemm_op op_a, tilemm_op op_b, size_t max_device_bytes);

/* C = op_a(A)·op_b(B) in emulated precision on plan->backend, a and b views of plan->type as
 * stored (a transposed operand is cut by its stored rows or columns and read the other way round
 * on the CPU, transposed on the device by the GPU, never copied on the host): one
 * panel on one device in one pass (the data go up once); several panels (the plan's, see
 * tilemm_emu_plan_panels) or several workers (more than one in `workers`, which may be NULL:
 * GPUs, or simulated devices for the CPU backend; `named` as tilemm_plan_workers) in two passes,
 * the statistics of all and then the product of each under one plan, bitwise the whole
 * product's.  *used and the verdicts as tilemm_cpu_multiply_emulated (C untouched unless OK). */
tilemm_status tilemm_emu_multiply_panels (const tilemm_plan *plan,
                                          const tilemm_emu_options *options,
                                          const tilemm_workers *workers, int named, tilemm_op op_a,
                                          const tilemm_view *a, tilemm_op op_b,
                                          const tilemm_view *b, const tilemm_view *c,
                                          const tilemm_stop *stop, tilemm_emu_plan *used,
                                          tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_EMULATED_PANELS_H */
