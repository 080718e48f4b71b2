/* emulated_passes.h — the emulated precision run as a call's plan says (emulated_passes.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_EMULATED_PASSES_H
#define TILEMM_EMULATED_PASSES_H

#include "call_plan.h"
#include "emulated.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C = op_a(A)·op_b(B) (the plan's ops; a and b as stored) in emulated precision with *options,
 * in the plan's panels, passes and workers on `backend`.  *used: the plan the moduli were
 * decided into; C is untouched unless its verdict is TILEMM_EMU_OK (NONFINITE, RANGE: the
 * caller goes on as run.c does).  *ran (may be NULL): the passes run and the workers of the last. */
tilemm_status tilemm_exec_emulated (tilemm_backend backend, const tilemm_call_plan *plan,
                                    const tilemm_emu_options *options, const tilemm_view *a,
                                    const tilemm_view *b, const tilemm_view *c,
                                    const tilemm_stop *stop, tilemm_emu_plan *used,
                                    tilemm_run_report *ran, tilemm_error *err);

/* The emulated product over the panels of a given low-level `plan` and `workers` (may be NULL;
 * `named` as tilemm_plan_workers): a plan of the call made around them
 * (tilemm_call_plan_emulated_around), then tilemm_exec_emulated (for tests; exec/multiply.c). */
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

#endif /* TILEMM_EMULATED_PASSES_H */
