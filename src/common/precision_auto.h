/* precision_auto.h — "precision", "auto": which precision a product runs in, native or
 * emulated, decided once with the call's plan from the machine's facts (precision_auto.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_PRECISION_AUTO_H
#define TILEMM_PRECISION_AUTO_H

#include <stdint.h>

#include "emulated.h"
#include "machine_facts.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What "auto" weighed and took. */
typedef struct {
  int emulated;        /* 1: the emulated precision; 0: native                              */
  tilemm_emu_rule rule;  /* the emulated product's rule: native BLAS's elementwise bound     */
  int moduli;          /* the count the model priced the emulated product at                */
  double native_s;     /* the model's seconds for the native product (its best way)         */
  double emulated_s;   /* ... for the emulated one on one GPU (INFINITY: no GPU may run it)   */
  int bound_ok;        /* the emulated product's certified bound is at least as tight        */
  char why[200];       /* one line: what was taken and why                                   */
} tilemm_precision_choice;

/* "auto"'s choice for C (m×n) = op(A) (m×k)·op(B) (k×n) of `type` (a rank-k update where rank_k):
 * the emulated product under the elementwise native rule (emulated.h, step 3'') where the model
 * (device_model.h: tilemm_model_gpu_emulated_s at the count that rule gives typical data of
 * inner dimension k, tilemm_emu_typical_moduli) says it is faster on a GPU than the native
 * product's best way (tilemm_plan_auto_way over the host, the CPU backend and `gpus` GPUs; only
 * the GPU's where gpu_only, only the host's and the CPU's where gpus is 0) AND its bound,
 * u·|C| + 2^-(t+1−s)·|A|·|B| ≤ k·u·|A|·|B|, is at least as tight as the native product's
 * γ_k·|A|·|B| (every k ≥ 2); native elsewhere.  No GPU (gpus 0): native.  Pure: the facts in,
 * the choice out. */
void tilemm_plan_precision_auto (const tilemm_machine_facts *facts, tilemm_type type, int64_t m,
                                 int64_t n, int64_t k, int rank_k, int gpus, int gpu_only,
                                 tilemm_precision_choice *choice);

/* The least side n (a power of two from 64 to 65536) from which "auto" takes the emulated
 * product for every square product n×n×n of `type` up to 65536 on these facts and `gpus` GPUs;
 * 0 where it never does (tilemm_info's one line). */
int64_t tilemm_plan_precision_auto_from (const tilemm_machine_facts *facts, tilemm_type type,
                                         int gpus);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_PRECISION_AUTO_H */
