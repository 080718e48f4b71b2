/* device_model.h — the one cost model: what a product costs each way it can run (Octave's `*` or
 * the next BLAS, tilemm's CPU backend, one GPU or several, a batch of pages on each), read from
 * the machine's facts (machine_facts.h: measured on this machine, or the built-in model's).
 * Every decision that weighs time reads it: the way "auto" takes (plan.c, batch_plan.c), the
 * devices a product uses, the panels under a device limit and the pipeline's steps (plan.c),
 * whether a product gains from several workers, the host copy teams.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Every function takes the facts; NULL means the built-in model (tilemm_facts_builtin), which is
 * what a plan made without facts (a low-level entry's, a test's) reads.
 */
#ifndef TILEMM_DEVICE_MODEL_H
#define TILEMM_DEVICE_MODEL_H

#include <stdint.h>

#include "machine_facts.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The flops of C (m×n) = A (m×k) · B (k×n) of `type`: 2mnk, four times that for a complex type
 * (four real multiply-adds an element). */
double tilemm_model_flops (tilemm_type type, double m, double n, double k);

/* The flops of one triangle of C (n×n) = X·op(X) (X n×k) of `type`, as BLAS ?syrk and ?herk
 * compute it: n(n+1)k multiply-adds, two flops each (four times that for a complex type), about
 * half of tilemm_model_flops (type, n, n, k). */
double tilemm_model_rank_k_flops (tilemm_type type, double n, double k);

/* Seconds our kernels take for `flops` of `type`, with the GPU filled. */
double tilemm_model_kernel_s (const tilemm_machine_facts *facts, tilemm_type type, double flops);

/* Seconds `bytes` take through the staging to or from the GPU (after the call's first bytes). */
double tilemm_model_bus_s (const tilemm_machine_facts *facts, double bytes);

/* Seconds one pipeline step costs beside its copies and kernels (events, a launch). */
double tilemm_model_step_s (const tilemm_machine_facts *facts);

/* Seconds a whole call on one GPU of `type` moving `bytes` and computing `flops` takes: the fixed
 * cost, the first bytes at latency, the rest at the bus rate, the flops at the kernels' rate. */
double tilemm_model_gpu_call_s (const tilemm_machine_facts *facts, tilemm_type type, double bytes,
                                double flops);

/* Seconds a whole call of the emulated precision (emulated.h) takes on one GPU: C (m×n) =
 * A (m×k)·B (k×n) of `type` moving `bytes`, with `moduli` moduli.  The call's fixed cost and its
 * bytes as the native call's (tilemm_model_gpu_call_s's line), one more round trip for the
 * statistics the plan is selected from, and on the device one int8 product per modulus plus the
 * statistics product at the facts' int8 rate (a complex product's two real problems of inner
 * dimension 2k: tilemm_model_flops's four real products' worth), the stages around them (scan,
 * conversion, reconstruction) a fixed share of those. */
double tilemm_model_gpu_emulated_s (const tilemm_machine_facts *facts, tilemm_type type,
                                    double bytes, double m, double n, double k, int moduli);

/* A GPU batch of fewer bytes (operands and results) than this copies them through the staging
 * on one host thread: a team's wake-up costs more than it saves there, and after a call of a
 * multithreaded host BLAS whose threads spin for a while, a team of even two or five threads
 * waited milliseconds for cores (bench/RESULTS.md).  The plan's rule (batch_plan.c) and the
 * model's: the calibration times batches under it only (exec/calibrate.c). */
#define TILEMM_BATCH_COPY_TEAM_MIN_BYTES (64LL * 1024 * 1024)

/* Seconds a batch of pages takes on one GPU (the batched kernels), `bytes` its operands' and
 * result's, `result_bytes` of them the result's (new memory): its fixed cost, then, under
 * TILEMM_BATCH_COPY_TEAM_MIN_BYTES, its bytes at the fitted rate of a batch copied on one thread
 * and its flops at the batched kernels' rate; from there, the longest of the staging team's
 * copies (the operands at the host's copy rate, the result at its rate into new pages, for the
 * team's threads), the transfers (tilemm_model_bus_s) and the kernels: its panels in flight
 * overlap them (batch_plan.c). */
double tilemm_model_gpu_batch_s (const tilemm_machine_facts *facts, tilemm_type type,
                                 double bytes, double result_bytes, double flops);

/* Seconds the batched kernels take for `flops` of `type` (a batch's flops, its copies aside). */
double tilemm_model_gpu_batch_kernel_s (const tilemm_machine_facts *facts, tilemm_type type,
                                        double flops);

/* Seconds the host's own product (Octave's `*`, the next BLAS) takes for one call of `flops`. */
double tilemm_model_host_s (const tilemm_machine_facts *facts, tilemm_type type, double flops);

/* Seconds one page of the host's loop of `*` (called from the oct-file) takes. */
double tilemm_model_host_page_s (const tilemm_machine_facts *facts, tilemm_type type,
                                 double flops);

/* Seconds tilemm's CPU backend takes for one plain product on the host's threads; INFINITY
 * where the facts do not know (the built-in model). */
double tilemm_model_cpu_s (const tilemm_machine_facts *facts, tilemm_type type, double flops);

/* The host's copy curve `rate` (the facts' copy_bytes_per_s or copy_fresh_bytes_per_s, by team
 * size) at a team of `threads`: the largest measured team no larger, a smaller team than any
 * measured in proportion to the smallest; 0 where nothing was measured. */
double tilemm_model_copy_rate (const tilemm_machine_facts *facts, const double *rate,
                               double threads);

/* The CPU's batched path: seconds one page's fixed cost takes on one thread (`small`: a small
 * real page, computed directly), and one thread's rate while every thread works. */
double tilemm_model_cpu_page_s (const tilemm_machine_facts *facts, int small);
double tilemm_model_cpu_thread_flops_per_s (const tilemm_machine_facts *facts);
/* ... and the small pages' direct loops' rate on one thread while every thread works. */
double tilemm_model_cpu_small_flops_per_s (const tilemm_machine_facts *facts);

/* Seconds a parallel region's start and barrier take on the host's threads (work shorter than
 * this on one thread is not worth spreading). */
double tilemm_model_cpu_region_s (const tilemm_machine_facts *facts);

/* A page runs alone (one plain GPU call of its own) where its own call takes at most this many
 * times its share of a batched call: the model credits the batch with its kernels' measured
 * rate, where the built-in model credits both with the tiled kernels' (the batched ones are
 * slower: half again allowed for that there). */
double tilemm_model_page_alone_allowance (const tilemm_machine_facts *facts);

/* The fewest flops a worker's panel of `type` should have to be worth its fixed cost. */
double tilemm_model_min_panel_flops (const tilemm_machine_facts *facts, tilemm_type type);

/* Host threads a copy team should have where `teams` teams copy at once on `threads` threads:
 * no more than the host's share of each, and no more than the copies gain from (the facts' copy
 * rates by thread count; all of its share where they were not measured).  At least 1. */
int tilemm_model_copy_team (const tilemm_machine_facts *facts, int teams, int threads);

/* The host threads past which a copy team's copies get no faster (the facts' copy rates by thread
 * count); 0 where they were not measured (no cap).  Each GPU's copy team (copy_team.h) is no
 * larger. */
int tilemm_model_copy_saturating_threads (const tilemm_machine_facts *facts);

/* The ways a plain product can run, and what the model says each costs (seconds; INFINITY where
 * that way is unknown or ruled out). */
typedef enum {
  TILEMM_WAY_HOST = 0,   /* the host's own product: `*`, the next BLAS */
  TILEMM_WAY_CPU,        /* tilemm's CPU backend                       */
  TILEMM_WAY_GPU,        /* tilemm's GPU path                          */
  TILEMM_NWAYS
} tilemm_way;

typedef struct {
  double seconds[TILEMM_NWAYS];
  tilemm_way best;
} tilemm_way_costs;

/* The costs of the native product of `type` of `flops` moving `bytes` to and from a GPU: the host's
 * own product of `host_flops` (fewer for a rank-k update, ?syrk/?herk, which computes one
 * triangle), the CPU backend, and `gpus` GPUs where gpus > 0; and the best of them: the host
 * unless another is faster by more than a twentieth (a product as `*` gives it is worth that
 * much). */
void tilemm_model_ways (const tilemm_machine_facts *facts, tilemm_type type, double bytes,
                        double flops, double host_flops, int gpus, tilemm_way_costs *costs);

/* The way "auto" takes for the native product C (m×n) = op(A) (m×k)·op(B) (k×n) of `type` (a
 * rank-k update X'·X of one X where rank_k: the host computes one triangle), weighing the host's
 * product, the CPU backend and `gpus` GPUs (0: none may run it) by tilemm_model_ways; *costs
 * (may be NULL) gets the costs.  An empty or bad product: the host.  Pure (plan.c). */
tilemm_way tilemm_plan_auto_way (const tilemm_machine_facts *facts, tilemm_type type, int64_t m,
                                 int64_t n, int64_t k, int rank_k, int gpus,
                                 tilemm_way_costs *costs);

/* "host", "cpu", "gpu". */
const char *tilemm_way_name (tilemm_way way);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_DEVICE_MODEL_H */
