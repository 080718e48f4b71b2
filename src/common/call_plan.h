/* call_plan.h — the plan of one call: every decision the executor follows, made once
 * (call_plan.c), from the request, the options, the device model and the devices' facts.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The executor (src/exec/run.c) runs a call's plan and decides nothing: which backend, which
 * product (the route's, complex operands read as pairs or split into parts), the kernel variant
 * and its tiles, the panels under the device limit (native, emulated, transposed alike), the
 * steps and slots of the GPU's pipeline, which devices and the queue of panels they drain, the
 * plan of each panel, and for the emulated precision its rule, its panels, whether it runs in
 * one pass or two, the int8 GEMM, the blocks C comes back in, and its planned branches: the
 * moduli and bit widths of every outcome of the statistics (tilemm_emu_branches), what is done
 * when the moduli cannot carry a pair, when the operands hold NaN or Inf.  The data only select:
 * the statistics index the branches (tilemm_emu_select), in the executor's passes and in the
 * backends' one-pass schemes; no rule is applied below the plan.  tilemm_call_plan_describe prints every decision.
 */
#ifndef TILEMM_CALL_PLAN_H
#define TILEMM_CALL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "copy_team.h"
#include "devices.h"
#include "emulated.h"
#include "emulated_arena.h"
#include "exchange_plan.h"
#include "tilemm_settings.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The emulated product's planned branches: what the executor does when the statistics of the
 * data say the plan's product cannot run as it is (the data choose which branch runs, the plan
 * says what each does; both decided before anything runs, tilemm_call_plan_make). */
typedef enum {
  TILEMM_EMU_RANGE_SPLIT = 0,  /* moduli that cannot carry every (row, column) pair: the pairs
                                  they carry emulated, the others exactly, on the CPU
                                  (tilemm_emu_multiply_split_cpu, the CPU table's emu_split),
                                  so every entry meets the bound                               */
  TILEMM_EMU_RANGE_NATIVE      /* an explicit "moduli" count (no promise): the native product
                                  under this plan, with a warning                              */
} tilemm_emu_on_range;
typedef enum {
  TILEMM_EMU_NONFINITE_NATIVE_THEN_FINITE = 0  /* NaN or Inf among the operands: the native
                                  product under this plan (every entry of a row of op(A) or a
                                  column of op(B) holding one is NaN or Inf, as `*` gives it),
                                  then the product again, emulated under this very plan, of
                                  copies of the operands as stored with those rows and columns
                                  zeroed, its other entries written over C's                   */
} tilemm_emu_on_nonfinite;

/* How a complex operand is handled where mtimes takes two real products (route.b_split,
 * route.a_split): its parts copied apart into one real matrix, one real product, joined. */
typedef enum { TILEMM_SPLIT_NONE = 0, TILEMM_SPLIT_B, TILEMM_SPLIT_A } tilemm_split;

typedef struct {
  /* The product the backends run: the route's, a complex A times a real B read as a real
   * (2m)×k one, a split operand's parts side by side (n or m doubled, real). */
  tilemm_type type;
  int64_t m, n, k;
  tilemm_op op_a, op_b;
  tilemm_split split;
  size_t device_limit;   /* device bytes one product may hold on one device: max_device_bytes,
                            or the GPU's budget where the product would not fit it (the smaller
                            of the two); 0: no limit                                        */
  int host_threads;      /* the host threads the call's host teams take at most, each no more
                            than its work pays for (team_size.h): the CPU backend's
                            (native.threads), a split's parts apart and back, the emulated CPU
                            scheme's loops (emu_branches.threads), a BLAS call's update of C;
                            tilemm_team_threads_left of the host's facts; 0: one             */
  int split_team;        /* a split operand's parts copied apart (split != NONE): the host
                            threads that copy pays for (tilemm_parts_team, team_size.h) ...  */
  int join_team;         /* ... and the product's halves joined into C (m×n)                  */
  int update_team;       /* a BLAS call's update of C (m×n, the route's type: exec/blas_request.c)
                            in pieces of update_columns columns: the host threads it pays for
                            (tilemm_update_team, team_size.h)                                */
  int64_t update_columns;
  int pack_team[2];      /* a BLAS call's strided operand packed ([0] A, [1] B, as stored: A m×k,
                            k×m where op_a transposes; B k×n, n×k), column by column in pieces
                            of pack_columns[i] columns: the host threads that copy pays for
                            (tilemm_pack_team, team_size.h; a contiguous operand is not
                            copied: its figures go unused)                                   */
  int64_t pack_columns[2];
  tilemm_plan native;    /* the native product: variant, tiles, panels under device_limit (a
                            transposed product on the GPU: its ops, their scratch counted),
                            steps, slots                                                     */
  /* Who runs it.  workers.count 1: one device, the caller's thread. */
  int simulated;         /* the CPU's simulated devices (tests): their count, else 0         */
  int on_simulated;      /* the native product runs on the simulated devices' table (a CPU
                            plan with several of them, or the simulated entry's, one too)    */
  tilemm_sim_faults sim_faults;  /* how they misbehave (the call's settings)                  */
  tilemm_fault_spec fault;       /* the fault hook each product arms (TILEMM_FAULT, fault.h)   */
  int devices_named;     /* the user named the devices (every one that gets a panel works)   */
  tilemm_workers workers;
  tilemm_plan queue;     /* the queue's panels (panel_rows × panel_cols of Cᵀ) */
  tilemm_plan sub[2][2]; /* the plan of a queue panel: [in the last panel row][in the last
                            panel column] (their sizes differ only there; the kept operand's
                            steps the same in all)                                          */
  int queue_owned;       /* 1: worker w runs the queue's panels queue_first[w] ..
                            queue_first[w + 1] - 1, its strips as its device's rate earns
                            (strip_owners.h); 0: each panel to the first worker free        */
  int64_t queue_first[TILEMM_MAX_WORKERS + 1];
  tilemm_keep queue_keeps;   /* what each GPU worker keeps between its panels (tilemm_keep:
                                exchange_plan.h)                                           */
  tilemm_exchange_plan exchange;  /* how the kept operand reaches the workers: a share each
                                from the host and the rest from their peers, or all of it
                                from the host (exchange_plan.h)                            */
  tilemm_copy_team teams[TILEMM_MAX_WORKERS];   /* GPU worker w's host copy team (its
                            threads also where its own thread runs): copy_team.h            */
  tilemm_staging_plan staging;  /* the pinned staging every GPU worker copies through: its
                            chunks, a large result's pages prepared (copy_team.h)          */
  /* The emulated precision. */
  tilemm_plan emu_panels;        /* its panels under device_limit (panel_rows, panel_cols)    */
  int emu_workers;               /* workers of its passes (1: one device) ...                */
  tilemm_workers emu_devices;    /* ... on these devices                                     */
  tilemm_plan emu_queue;         /* their queue: a strip a worker (tilemm_plan_unfilled_queue of
                                    emu_panels), which the pass of products gives to the worker
                                    that took it in the pass of statistics (its data kept on its
                                    device between the passes)                              */
  tilemm_copy_team emu_teams[TILEMM_MAX_WORKERS];  /* the emulated workers' copy teams      */
  tilemm_exchange_plan emu_exchange;  /* where every strip of emu_queue holds one operand whole
                                    on several GPUs: how it reaches them (exchange_plan.h, cut
                                    as the native exchange cuts it: op(B)'s columns, op(A)'s
                                    inner dimension; its step the whole operand, as an emulated
                                    panel holds it); NONE otherwise                           */
  int64_t emu_first[TILEMM_MAX_WORKERS + 1];  /* with emu_exchange (PEER or HOST): worker w
                                    runs the pass of statistics' strips emu_first[w] ..
                                    emu_first[w + 1] - 1, its own (its share is what it
                                    sends); all 0: each strip to the first worker free      */
  int emu_one_pass;              /* one panel on one device: statistics, plan and product on
                                    data uploaded once; else a pass of statistics over every
                                    panel, the plan, a pass of products                      */
  int emu_on_simulated;          /* the passes run on the simulated devices' table: where the
                                    native product does (on_simulated), over several panels
                                    (that table has no one pass)                             */
  tilemm_emu_gemm emu_gemm;      /* the int8 GEMM of the modular GEMMs: wgmma where the
                                    device runs it, unless TILEMM_EMU_IMMA names another (the
                                    call's settings)                                         */
  tilemm_emu_gemm emu_stats_gemm;  /* the int8 GEMM of the statistics' GEMM: emu_gemm, or v2
                                    where wgmma would need k in several chunks (the product's
                                    real inner dimension, padded: tilemm_emu_stats_gemm)     */
  int emu_multiprocessors[TILEMM_MAX_WORKERS];  /* emulated worker w's device's multiprocessors
                                    (the facts'; 0: they do not name it), which the moduli a
                                    modular GEMM launch takes follow for a block's shape
                                    (tilemm_emu_planes_per_launch), and the wgmma GEMM's
                                    persistent grid: one block a multiprocessor
                                    (tilemm_emu_gemm_grid; 0: a wgmma launch is refused)      */
  int64_t emu_block_cols;        /* the GPU brings C back in blocks of these many columns    */
  int64_t emu_pipe_first;        /* one pass on the GPU: a first panel of C of these many
                                    columns (0: one panel, not pipelined), ...               */
  int64_t emu_pipe_cols;         /* ... then panels of these many, each one's columns of B sent
                                    while the device computes the one before
                                    (tilemm_emu_pipeline_first); emu_block_cols then cuts each
                                    panel's C                                                */
  tilemm_emu_branches emu_branches;          /* the moduli and bit widths each outcome of the
                                                statistics takes: the passes and the backends
                                                select among them (tilemm_emu_select)         */
  tilemm_emu_on_range emu_on_range;          /* when the moduli cannot carry a pair            */
  tilemm_backend emu_split_backend;          /* the backend of TILEMM_EMU_RANGE_SPLIT's exact
                                                split (the CPU's emu_split)                  */
  tilemm_emu_on_nonfinite emu_on_nonfinite;  /* when the statistics find NaN or Inf            */
  /* The machine's facts the plan's costs were read from (NULL: the built-in model's). */
  const struct tilemm_machine_facts_s *facts;
} tilemm_call_plan;

/* What the executor ran for one call (where a host asks: tilemm_options.report): the workers
 * that ran and the panels each took, the queue's panels, and the emulated passes.  For tests
 * that the executor followed the plan. */
typedef struct {
  int workers;                       /* workers that ran the native product (0: none ran) */
  int64_t panels;                    /* panels in its queue                                */
  int64_t done[TILEMM_MAX_WORKERS];  /* panels each worker computed                        */
  int emu_passes;                    /* emulated passes run: 1 or 2 (0: none)              */
  int emu_workers;                   /* workers of the last emulated pass                  */
} tilemm_run_report;

/* What the plan was made of besides the route and the options (src/exec/decide.c gathers it):
 * the backends' devices, and the machine's facts the cost model reads (NULL: the built-in
 * model's; they outlive every plan made of them). */
typedef struct {
  tilemm_device_facts cpu, gpu;
  const struct tilemm_machine_facts_s *machine;
  tilemm_host_facts host;   /* the host's CPUs and threads, for the copy teams */
} tilemm_call_facts;

/* The plan of a product of the route `route` (action COMPUTE) on `backend` with transposes
 * op_a, op_b, emulated (with *emu) or not, under the options' limit, devices and simulated
 * devices and the call's settings (tilemm_settings.h: its environment, read once by the caller).
 * Pure: reads the facts and the settings, never a device nor the environment.
 * TILEMM_EDEVMEM / TILEMM_ELIMIT when not even one panel fits; TILEMM_EOPTION for a device list
 * that names a device there is not. */
struct tilemm_options_s;
tilemm_status tilemm_call_plan_make (tilemm_call_plan *plan, const tilemm_route *route,
                                     tilemm_backend backend, tilemm_op op_a, tilemm_op op_b,
                                     int emulated, const tilemm_emu_options *emu,
                                     const struct tilemm_options_s *options,
                                     const tilemm_call_settings *settings,
                                     const tilemm_call_facts *facts, tilemm_error *err);

/* A low-level entry's call plan (a test's or a benchmark's: tilemm_multiply and the entries of
 * multi.h and emulated_passes.h), around the low-level `plan` it was given: its variant, tiles,
 * panels and steps kept, ops op_a, op_b, the device limit `limit`, one worker on device 0, the
 * product's queue and panels the plan itself, the emulated precision in one pass of its panels
 * on that worker, and the call's settings' (the simulated devices' faults, the fault hook).
 * The caller sets the workers and makes the queue (tilemm_call_plan_queue) or the emulated
 * passes (tilemm_call_plan_emulated_around). */
void tilemm_call_plan_around (tilemm_call_plan *plan, const tilemm_plan *given, tilemm_op op_a,
                              tilemm_op op_b, size_t limit, const tilemm_call_settings *settings);

/* The emulated precision over the panels of a low-level `given` plan (its backend), on
 * `workers` (NULL or one: one device, the facts' current one; several: the queue of
 * tilemm_plan_workers over them, `named` as there; the CPU's: simulated devices), the int8
 * GEMM and C's blocks from the GPU's facts and the settings, a GPU worker's copy team from the
 * host's (no machine facts: TILEMM_COPY_SATURATING_THREADS): a whole call plan (launches
 * filled). */
tilemm_status tilemm_call_plan_emulated_around (tilemm_call_plan *plan, const tilemm_plan *given,
                                                tilemm_op op_a, tilemm_op op_b,
                                                const tilemm_workers *workers, int named,
                                                const tilemm_call_facts *facts,
                                                const tilemm_call_settings *settings);

/* A low-level entry's plan on `devices` simulated devices (1 to TILEMM_MAX_WORKERS) that
 * misbehave as `faults` say, before its queue (tilemm_call_plan_queue): the product runs on the
 * simulated devices' table, one device's too. */
void tilemm_call_plan_simulated (tilemm_call_plan *plan, int devices,
                                 const tilemm_sim_faults *faults);

/* The queue of a plan whose native plan, workers, simulated devices, devices_named, ops and
 * device_limit are set: how many workers run it, the queue's panels and their plans, what each
 * worker keeps, the copy teams. */
tilemm_status tilemm_call_plan_queue (tilemm_call_plan *plan, tilemm_backend backend,
                                      const tilemm_call_facts *facts);

/* Whether a product of `bytes` (its operands and result) is large enough that the plan needs
 * the GPU's memory budget (tilemm_facts_budget). */
int tilemm_call_plan_needs_budget (double bytes);

/* The plan in words, one decision a line ("name: value"), into buf (truncated to size). */
void tilemm_call_plan_describe (const tilemm_call_plan *plan, tilemm_backend backend,
                                int emulated, const tilemm_emu_options *emu, char *buf,
                                size_t size);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_CALL_PLAN_H */
