/* multi.h — the executor's queue of panels and the workers that drain it (workers.c), and the
 * entries that run a given low-level plan over several devices (for tests and benchmarks).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * A product is cut into panels of Cᵀ (tilemm.h) that go into one queue; every worker (one host
 * thread per worker, each bound to one device with its own stream, buffers and pinned staging;
 * one worker is the caller's own thread) takes the next panel, computes it through its backend's
 * table (backend.h) under the panel's plan (the call's plan holds them: call_plan.h), and takes
 * another, until the queue is empty.  Every panel has the same kernel variant and tiles as the
 * whole product, so every element is summed in the same k order: the result is bitwise that of
 * one device.  A faster device takes more panels; nothing is divided up front.  When a worker
 * fails, the others stop after their current panel, every worker's device memory is freed, and
 * the error names the device.
 */
#ifndef TILEMM_MULTI_H
#define TILEMM_MULTI_H

#include "backend.h"
#include "batch.h"
#include "call_plan.h"
#include "devices.h"
#include "emulated.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one product did on each worker (for tests and tilemm_bench). */
typedef struct {
  int workers;                          /* workers that ran                          */
  int64_t panels;                       /* panels in the queue                       */
  int64_t done[TILEMM_MAX_WORKERS];     /* panels each worker computed               */
  int failed_worker;                    /* -1, or the worker whose error is reported */
} tilemm_multi_report;

/* What each panel of a queue computes. */
typedef enum {
  TILEMM_JOB_NATIVE = 0,   /* the native product under the panel's plan                  */
  TILEMM_JOB_EMU_STATS,    /* the emulated precision's statistics (merged per worker)    */
  TILEMM_JOB_EMU_PRODUCT,  /* the emulated product under the one plan of every panel     */
  TILEMM_JOB_BATCH,        /* chunks of a batch of pages through the backend's `batch`     */
  TILEMM_JOB_PAGES         /* pages that run alone, each a plain product on one device     */
} tilemm_job_kind;

/* One queue run by the workers: the backend's table and this product's state (its begin), the
 * operands as stored, the queue and its panels' plans, the workers. */
typedef struct {
  const tilemm_backend_ops *ops;
  void *state;
  tilemm_job_kind kind;
  tilemm_op op_a, op_b;
  const tilemm_view *a, *b, *c;
  const tilemm_plan *queue;
  const tilemm_plan (*sub)[2];             /* [last panel row][last panel column]; NULL for
                                               the emulated stages                      */
  const tilemm_workers *workers;
  const tilemm_copy_team *teams;           /* each worker's copy team, where it runs (NULL:
                                              none, the workers' threads anywhere)      */
  const int *owner;                        /* NULL: the queue, each panel to the first
                                              worker free; else panel i to worker
                                              owner[i] (a pass that follows another's)   */
  const int64_t *owner_first;              /* NULL, or worker w runs panels owner_first[w]
                                              .. owner_first[w + 1] - 1, in order (the
                                              plan's strips given in advance)            */
  int *took;                               /* NULL, or where each panel's worker is
                                              written (a panel none took: -1)            */
  const tilemm_exchange_plan *exchange;    /* NULL, or how the operand every worker keeps
                                              reaches them (TILEMM_JOB_NATIVE, and
                                              TILEMM_JOB_EMU_STATS): on
                                              TILEMM_EXCHANGE_PEER each worker runs the
                                              table's `share` (`emu_share`) before its
                                              first panel                                */
  const tilemm_emu_options *emu_options;   /* TILEMM_JOB_EMU_STATS                     */
  tilemm_emu_stats *emu_stats;             /* TILEMM_JOB_EMU_STATS: one per worker     */
  const tilemm_emu_plan *emu_plan;         /* TILEMM_JOB_EMU_PRODUCT                   */
  /* TILEMM_JOB_BATCH, TILEMM_JOB_PAGES: the batch, its queue's items (chunks of pages_per_item
   * pages; PAGES: a page each) and (PAGES) the plan of one page on one device.  queue NULL. */
  const tilemm_batch_job *batch;
  int64_t items, pages_per_item;
  const tilemm_plan *page_plan;
} tilemm_job;

/* Runs the job: one worker on the caller's thread (stop polled between panels and by the
 * backend), several on threads of their own (stop polled on the calling thread while they run;
 * the workers take no more panels once it answers and leave theirs where the backend polls
 * tilemm_multi_stopping).  The first error stops the others after their current panel; its
 * detail is prefixed "<device_kind> <device> (worker w):".  report may be NULL. */
tilemm_status tilemm_job_run (const tilemm_job *job, const tilemm_stop *stop,
                              tilemm_multi_report *report, tilemm_error *err);

/* On a worker's thread, inside a backend's operation: whether the product is stopping (a
 * failure on another worker, or the host's stop), so a long panel can end early with
 * TILEMM_EINTERRUPTED.  A tilemm_stop for the backends' own polls: { tilemm_multi_stopping,
 * NULL }.  0 elsewhere. */
int tilemm_multi_stopping (void *unused);

/* Runs a call's native product (plan->native, plan->queue, plan->sub, plan->workers) on
 * `backend` (the simulated devices' table where plan->simulated): begin, the job, end. */
tilemm_status tilemm_exec_native (tilemm_backend backend, const tilemm_call_plan *plan,
                                  const tilemm_view *a, const tilemm_view *b,
                                  const tilemm_view *c, const tilemm_stop *stop,
                                  tilemm_multi_report *report, tilemm_error *err);

/* The start of a call's product (native or emulated): the table it runs on (the simulated
 * devices' for a CPU plan where `simulated`, else the backend's own), its turn (the table's
 * begin), and *job with that table and state, `kind`, the plan's transposes and the operands
 * (the caller adds the queue, its plans and workers, and ends the turn: job->ops->end).  No
 * table in this build: tilemm_exec_no_backend's error; a failed begin: its error. */
tilemm_status tilemm_exec_begin (tilemm_backend backend, int simulated,
                                 const tilemm_call_plan *plan, tilemm_job_kind kind,
                                 const tilemm_view *a, const tilemm_view *b,
                                 const tilemm_view *c, tilemm_job *job, tilemm_error *err);

/* The error of a plan whose backend this build does not have (no table found): TILEMM_ENOGPU
 * with the reason for the GPU, TILEMM_EBACKEND otherwise. */
tilemm_status tilemm_exec_no_backend (tilemm_backend backend, tilemm_error *err);

/* ---------------------------------------------------------------- a given low-level plan */

/* Simulated devices run on the CPU backend as a GPU would (src/cpu/simulated.c). */
typedef struct {
  int devices;        /* simulated devices (workers), 1..TILEMM_MAX_WORKERS               */
  int fail_device;    /* -1: none; else this device fails ...                             */
  int fail_after;     /* ... after computing this many panels                              */
  int slow_device;    /* -1: none; else this device pauses slow_ms before each panel       */
  int slow_ms;
  tilemm_stop stop;   /* the host's Ctrl-C poll (none from tilemm_sim_config_init)          */
} tilemm_sim_config;

/* Defaults (no failure, no slow device) for `devices` devices, then the environment's
 * TILEMM_SIMULATE_FAIL="DEV[:AFTER]" and TILEMM_SIMULATE_SLOW="DEV:MS". */
void tilemm_sim_config_init (tilemm_sim_config *config, int devices);

/* C = op_a(A)·op_b(B) for a CPU plan over config->devices simulated devices (every device that
 * gets a panel: tilemm_plan_workers' named rule), through the executor. */
tilemm_status tilemm_sim_multiply_op (const tilemm_plan *plan, const tilemm_sim_config *config,
                                      tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                      const tilemm_view *b, const tilemm_view *c,
                                      tilemm_multi_report *report, tilemm_error *err);
tilemm_status tilemm_sim_multiply (const tilemm_plan *plan, const tilemm_sim_config *config,
                                   const tilemm_view *a, const tilemm_view *b,
                                   const tilemm_view *c, tilemm_multi_report *report,
                                   tilemm_error *err);

/* The usable GPUs, in ordinal order; returns their count (0 when none or no CUDA built). */
int tilemm_cuda_usable_devices (tilemm_workers *workers);

/* C = op_a(A)·op_b(B) for a CUDA plan over `workers` (named: the user listed them; else the
 * crossover of tilemm_plan_workers picks how many), through the executor: each worker's panels
 * fit its share of its device's memory and `limits` (may be NULL).  report may be NULL. */
tilemm_status tilemm_cuda_multiply_workers_op (const tilemm_plan *plan,
                                               const tilemm_limits *limits,
                                               const tilemm_workers *workers, int named,
                                               tilemm_op op_a, const tilemm_view *a,
                                               tilemm_op op_b, const tilemm_view *b,
                                               const tilemm_view *c, const tilemm_stop *stop,
                                               tilemm_multi_report *report, tilemm_error *err);
tilemm_status tilemm_cuda_multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                            const tilemm_workers *workers, int named,
                                            const tilemm_view *a, const tilemm_view *b,
                                            const tilemm_view *c, const tilemm_stop *stop,
                                            tilemm_multi_report *report, tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_MULTI_H */
