/* multi.h — one product spread over several devices (issue 9): the split, the shared queue of
 * panels, and the workers that drain it.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * A product is cut into panels of Cᵀ (tilemm.h) that go into one queue; every worker (one host
 * thread per worker, each bound to one device with its own stream, buffers and pinned staging)
 * takes the next panel, computes it as a product of its own (the same kernel variant and tiles
 * as the whole product, so every element is summed in the same k order: the result is bitwise
 * that of one device), and takes another, until the queue is empty.  A faster device takes more
 * panels; nothing is divided up front.  When a worker fails, the others stop after their current
 * panel, every worker's device memory is freed, and the error names the device.
 *
 * The same runner drives the GPUs (src/cuda/workers.cu: tilemm_cuda_multiply_workers) and simulated
 * devices on the CPU (tilemm_sim_multiply below), which is how CI tests the split.
 */
#ifndef TILEMM_MULTI_H
#define TILEMM_MULTI_H

#include "emulated.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most workers one product uses (devices, or workers sharing a device). */
#define TILEMM_MAX_WORKERS 16

/* Who computes: `count` workers, worker i on device[i] (a CUDA ordinal, or a simulated device's
 * number).  A device may appear more than once: its workers share it, each with its own stream
 * and buffers (TILEMM_DEVICES="0,0" runs the multi-worker path on one GPU). */
typedef struct {
  int count;
  int device[TILEMM_MAX_WORKERS];
} tilemm_workers;

/* The crossover (doc/tilemm.texi, "Several GPUs").  A worker is worth its fixed costs (its own
 * copy of its panels' operands over its bus, a pipeline to fill and drain per panel) only when
 * it gets at least TILEMM_MULTI_MIN_PANELS panels of at least tilemm_model_min_panel_flops each
 * (device_model.h: ten times a panel's fixed cost at the kernels' rate).  The queue aims at
 * TILEMM_MULTI_PANELS_PER_WORKER panels per worker, so a slower device ends at most about a
 * quarter of its share late.  Estimates, to be tuned on a 2-GPU machine (bench/multi-gpu.sh). */
#define TILEMM_MULTI_MIN_PANELS 2
#define TILEMM_MULTI_PANELS_PER_WORKER 4

/* How many of `available` workers the product `plan` (a plan for one device) gains from, and the
 * queue's panels: *queue is the plan with panel_rows, panel_cols set to the queue's panels (in
 * whole tiles).  With `named` set (the user named the devices), every worker is used that gets
 * at least one panel of one tile; otherwise the crossover above decides.  Returns 1 when the
 * product stays on one worker (then *queue is *plan).  Variants whose arithmetic depends on the
 * launch's shape (the split-k one) are never split, so results stay bitwise. Pure. */
int tilemm_plan_workers (tilemm_plan *queue, const tilemm_plan *plan, int available, int named);

/* The plan of one queue panel (rows × cols of Cᵀ): the parent's kernel choice, its own steps
 * and, under `limits` (may be NULL), its own panels. */
tilemm_status tilemm_plan_for_panel (tilemm_plan *sub, const tilemm_plan *parent, int64_t rows,
                                     int64_t cols, const tilemm_limits *limits);

/* What a device does for the runner.  All three run on the worker's own thread except finish. */
typedef struct {
  const char *device_kind;   /* "GPU", "simulated device": how the error names the device */
  /* Before the first panel, on the worker's thread (bind the thread to the device). */
  tilemm_status (*start) (void *ctx, int worker, int device, tilemm_error *err);
  /* One panel: C = op_a(A)·op_b(B) for the panel's sub-views (of A and B as stored) under its
   * own plan. */
  tilemm_status (*panel) (void *ctx, int worker, int device, const tilemm_plan *sub,
                          tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                          const tilemm_view *b, const tilemm_view *c, tilemm_error *err);
  /* After every worker has stopped, on the caller's thread, for every worker that started:
   * failed = the product failed (anywhere), so free what the worker holds. */
  void (*finish) (void *ctx, int worker, int device, int failed);
} tilemm_device_ops;

/* What one product did on each worker (for tests and tilemm_bench). */
typedef struct {
  int workers;                          /* workers that ran                          */
  int64_t panels;                       /* panels in the queue                       */
  int64_t done[TILEMM_MAX_WORKERS];     /* panels each worker computed               */
  int failed_worker;                    /* -1, or the worker whose error is reported */
} tilemm_multi_report;

/* Runs `queue` (from tilemm_plan_workers) on the workers: one host thread each, panels from one
 * shared queue, each under tilemm_plan_for_panel (queue, …, limits).  The first error stops the
 * others after their current panel; its detail is prefixed "<device_kind> <device> (worker w):".
 * report may be NULL. */
tilemm_status tilemm_multi_run (const tilemm_plan *queue, const tilemm_limits *limits,
                                const tilemm_workers *workers, const tilemm_device_ops *ops,
                                void *ctx, tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                const tilemm_view *b, const tilemm_view *c,
                                tilemm_multi_report *report, tilemm_error *err);

/* tilemm_multi_run with the host's stop callback (may be NULL), polled on the calling thread
 * (never on a worker's: it may read the host's state) while the workers run.  When it answers,
 * the workers take no more panels, those that poll tilemm_multi_stopping leave their panel, every
 * worker is joined and finished as after a failure, and the result is TILEMM_EINTERRUPTED. */
tilemm_status tilemm_multi_run_stoppable (const tilemm_plan *queue, const tilemm_limits *limits,
                                          const tilemm_workers *workers,
                                          const tilemm_device_ops *ops, void *ctx, tilemm_op op_a,
                                          const tilemm_view *a, tilemm_op op_b,
                                          const tilemm_view *b, const tilemm_view *c,
                                          const tilemm_stop *stop, tilemm_multi_report *report,
                                          tilemm_error *err);

/* On a worker's thread, inside ops->panel: whether the product is stopping (a failure on
 * another worker, or the host's stop), so a long panel can end early with TILEMM_EINTERRUPTED.
 * A tilemm_stop for the backends' own polls: { tilemm_multi_stopping, NULL }.  0 elsewhere. */
int tilemm_multi_stopping (void *unused);

/* ---------------------------------------------------------------- the emulated precision */

/* One pass of an emulated product over panels or workers (emulated_panels.c): the statistics
 * pass gathers every panel's statistics (emulated.h, step 2; each worker merges its panels' into
 * stats[worker]), the product pass computes every panel under the one plan made from them, so
 * every panel comes out bitwise as in the whole product. */
typedef enum { TILEMM_EMU_PASS_STATS, TILEMM_EMU_PASS_PRODUCT } tilemm_emu_pass_kind;
typedef struct {
  tilemm_emu_pass_kind kind;
  tilemm_emu_options options;                  /* the statistics pass's                   */
  tilemm_emu_plan plan;                        /* the product pass's (verdict OK)         */
  tilemm_emu_stats stats[TILEMM_MAX_WORKERS];  /* the statistics pass's, per worker       */
} tilemm_emu_pass;

/* ---------------------------------------------------------------- GPUs (src/cuda/workers.cu) */

/* The usable GPUs (compute capability new enough), in ordinal order; returns their count (0 when
 * none, or no CUDA in this build). */
int tilemm_cuda_usable_devices (tilemm_workers *workers);

/* C = A·B for a CUDA plan over `workers` (named: the user listed them; else the crossover of
 * tilemm_plan_workers picks how many of them).  One worker on the caller's device is the
 * one-device path (tilemm_cuda_multiply); otherwise each worker is a host thread with its own
 * workspace (streams, device buffers, pinned staging) kept between calls, and each panel fits
 * its worker's share of its device's memory and `limits` (may be NULL).  On failure every
 * worker's workspace on every device is freed.  report may be NULL.  stop (may be NULL) is the
 * host's callback, polled by the one-device path between steps; a product spread over several
 * workers is not stopped part way (worker threads do not poll the host). */
tilemm_status tilemm_cuda_multiply_workers (const tilemm_plan *plan, const tilemm_limits *limits,
                                            const tilemm_workers *workers, int named,
                                            const tilemm_view *a, const tilemm_view *b,
                                            const tilemm_view *c, const tilemm_stop *stop,
                                            tilemm_multi_report *report, tilemm_error *err);

/* tilemm_cuda_multiply_workers for C = op_a(A)·op_b(B) (A and B as stored): each worker
 * transposes its panels' operands on its device (tilemm_cuda_multiply_op); one worker on the
 * caller's device is tilemm_cuda_multiply_op itself. */
tilemm_status tilemm_cuda_multiply_workers_op (const tilemm_plan *plan,
                                               const tilemm_limits *limits,
                                               const tilemm_workers *workers, int named,
                                               tilemm_op op_a, const tilemm_view *a,
                                               tilemm_op op_b, const tilemm_view *b,
                                               const tilemm_view *c, const tilemm_stop *stop,
                                               tilemm_multi_report *report, tilemm_error *err);

/* One pass of an emulated product C = op_a(A)·op_b(B) (a and b as stored) over `workers` (each
 * a host thread with its own workspace), the panels of `queue` (tilemm_plan_workers) from one
 * shared queue, each panel whole, a transposed operand cut by its stored rows or columns. */
tilemm_status tilemm_cuda_emu_workers (const tilemm_plan *queue, const tilemm_limits *limits,
                                       const tilemm_workers *workers, tilemm_emu_pass *pass,
                                       tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                       const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_multi_report *report,
                                       tilemm_error *err);

/* One pass of an emulated product C = op_a(A)·op_b(B) for one panel on the current device (its
 * statistics merged into pass->stats[0]); *used (may be NULL) gets the plan it ran. */
tilemm_status tilemm_cuda_emu_panel (tilemm_emu_pass *pass, tilemm_op op_a, const tilemm_view *a,
                                     tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                                     const tilemm_stop *stop, tilemm_emu_plan *used,
                                     tilemm_error *err);

/* ---------------------------------------------------------------- simulated devices */

/* Simulated devices run on the CPU backend as a GPU would: each copies its panel's A and B into
 * its own "device memory" (host memory, counted), computes there with the CPU kernels and copies
 * C's piece back.  For tests: a device can be made slow (a pause per panel) or fail. */
typedef struct {
  int devices;        /* simulated devices (workers), 1..TILEMM_MAX_WORKERS               */
  int fail_device;    /* -1: none; else this device fails ...                             */
  int fail_after;     /* ... after computing this many panels                              */
  int slow_device;    /* -1: none; else this device pauses slow_ms before each panel       */
  int slow_ms;
  tilemm_stop stop;   /* the host's Ctrl-C poll (none from tilemm_sim_config_init), polled on
                         the calling thread while the devices run (tilemm_multi_run_stoppable);
                         the devices leave their panels between CPU tile rows               */
  tilemm_emu_pass *emu; /* NULL: the native product; else this pass of an emulated one, each
                           panel with the CPU's emulated scheme (emulated_cpu.c), over the plan
                           given as the queue (tilemm_plan_workers already made) and all
                           `devices`                                                        */
} tilemm_sim_config;

/* Defaults (no failure, no slow device) for `devices` devices, then the environment's
 * TILEMM_SIMULATE_FAIL="DEV[:AFTER]" and TILEMM_SIMULATE_SLOW="DEV:MS" (read per call). */
void tilemm_sim_config_init (tilemm_sim_config *config, int devices);

/* C = A·B for a CPU plan over config->devices simulated devices (the named rule of
 * tilemm_plan_workers: every device that gets a panel). */
tilemm_status tilemm_sim_multiply (const tilemm_plan *plan, const tilemm_sim_config *config,
                                   const tilemm_view *a, const tilemm_view *b,
                                   const tilemm_view *c, tilemm_multi_report *report,
                                   tilemm_error *err);

/* tilemm_sim_multiply for C = op_a(A)·op_b(B) (A and B as stored: each device copies its panel's
 * stored rows or columns and reads them the other way round, an emulated pass too). */
tilemm_status tilemm_sim_multiply_op (const tilemm_plan *plan, const tilemm_sim_config *config,
                                      tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                      const tilemm_view *b, const tilemm_view *c,
                                      tilemm_multi_report *report, tilemm_error *err);

/* Bytes the simulated devices hold now (0 after every product, whatever its end). */
size_t tilemm_sim_bytes_held (void);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_MULTI_H */
