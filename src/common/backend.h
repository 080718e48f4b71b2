/* backend.h — the interface every backend implements (a table of operations), the CPU
 * backend's own functions, and the GPU facts a host can ask for.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * A backend is a tilemm_backend_ops table: src/cpu/ defines tilemm_cpu_backend_ops (and the
 * simulated devices' tilemm_sim_backend_ops), src/cuda/ defines tilemm_cuda_backend_ops when the
 * build has CUDA.  The executor (src/exec/) finds them through tilemm_backend_find and calls
 * nothing else of theirs; a build without CUDA simply has no CUDA table (src/exec/backends.c),
 * so hosts never need an #ifdef and the GPU's public functions below answer TILEMM_ENOGPU.
 */
#ifndef TILEMM_BACKEND_H
#define TILEMM_BACKEND_H

#include "devices.h"
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
 * (may be NULL) is polled between moduli (C untouched when stopped).  The plan is the branch
 * the statistics select among the call plan's (tilemm_emu_select on `branches`). */
tilemm_status tilemm_cpu_multiply_emulated (const tilemm_plan *plan,
                                            const tilemm_emu_options *options,
                                            const tilemm_emu_branches *branches,
                                            tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                            const tilemm_view *b, const tilemm_view *c,
                                            const tilemm_stop *stop, tilemm_emu_plan *used,
                                            tilemm_error *err);

/* ---------------------------------------------------------------- CUDA */

typedef struct tilemm_device_info_s {
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

/* The GPU's low-level entries (for tests and benchmarks; exec/multiply.c): a plan for the GPU
 * run through the executor as every call runs (tilemm_multiply_op_stoppable: the call's plan made
 * around the given plan, the call's settings read once; the GPU table's begin, product, end), on
 * the caller's device.  TILEMM_ENOGPU without a usable GPU; TILEMM_EINVAL for a plan of another
 * backend or empty panels. */

/* C = A·B for host-memory views: upload, compute with our kernels, download.  Device buffers and
 * the stream are created on first use and kept for later calls; on any failure everything this
 * call allocated is freed and the next call starts clean.  stop (may be NULL) is polled before
 * each step's kernel; on a stop the work already enqueued is waited for and the buffers kept. */
tilemm_status tilemm_cuda_multiply (const tilemm_plan *plan, const tilemm_view *a,
                                    const tilemm_view *b, const tilemm_view *c,
                                    const tilemm_stop *stop, tilemm_error *err);

/* C = op_a(A)·op_b(B) for host views, transposed operands too: the plan's panels and steps
 * through the pipeline (src/cuda/pipeline.cu), a transposed operand's piece of each step up as
 * stored through the pinned staging and transposed (and conjugated) on the device by an O(n²)
 * kernel into the layout the tiled kernels read.  The device holds the plan's bytes and a
 * transposed operand's scratch of one step (counted by a plan made with tilemm_plan_make_op).
 * The workspace is kept for the next call. */
tilemm_status tilemm_cuda_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                       const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                       const tilemm_view *c, tilemm_error *err);

/* tilemm_cpu_multiply_emulated on the GPU: the same plan from the same statistics (the branch
 * they select among the plan's, tilemm_emu_select), bitwise the same C.  One device (the
 * current one), one pass on the product whole (plan: its backend's frame; its panels are not
 * used): A and B go up as stored through the pinned staging into the workspace the native
 * product uses (src/cuda/workspace.cu), a transposed one is transposed on the device
 * (transpose.cu), the scheme runs there in the workspace's arena, kept for the next call, and C
 * comes back the same way.  The int8 GEMM is the call plan's (TILEMM_EMU_IMMA, from the call's
 * settings, else wgmma where it runs). */
tilemm_status tilemm_cuda_multiply_emulated (const tilemm_plan *plan,
                                             const tilemm_emu_options *options, tilemm_op op_a,
                                             const tilemm_view *a, tilemm_op op_b,
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

/* What one device (one worker) of the last GPU product did, for tilemm_bench and
 * __tilemm_stats__ (tilemm_cuda_stats.device). */
typedef struct {
  int device;                /* its CUDA ordinal                                        */
  int copy_threads;          /* the members of its host copy team                       */
  long long panels, steps;   /* queue panels it took; pipeline panels and steps in them  */
  double busy_ms;            /* its first panel's start to its last panel's end         */
  double upload_ms, compute_ms, download_ms;  /* its panels' splits, summed (below)    */
  double copy_in_ms, copy_out_ms, result_prep_ms;
  double bytes_up, bytes_down;   /* host to device (what the host read for it), device to host:
                                    their sum is what crossed its bus                        */
  double bytes_peer;             /* received from other GPUs by peer copies (shares of the
                                    operand the workers share: call_plan.h, exchange)        */
} tilemm_cuda_device_stats;

/* Where the time of the last GPU product went (tilemm_cuda_multiply), for tilemm_bench and the
 * hidden Octave function __tilemm_stats__.  Copies, compute and downloads overlap; the split
 * below follows the critical path, so upload + compute + download = total:
 *   upload   = from entry until the first kernel starts (the GPU waits for data),
 *   compute  = from the first kernel's start to the last kernel's end (CUDA events),
 *   download = the rest: the last pieces of C coming back and copied into the result.
 * On several devices each device's own panels are split so (device[], summed over its panels:
 * they add up to its busy time), and the product's upload, compute and download are those of
 * the device busy longest; total is the wall time of the whole, the copies and bytes the sums
 * over the devices. */
typedef struct tilemm_cuda_stats_s {
  unsigned long long calls;  /* GPU products run since load (successful or not)        */
  int ok;                    /* 1 when the last one succeeded                           */
  double total_ms;           /* entry to return, host clock                             */
  double upload_ms, compute_ms, download_ms;
  double kernels_ms;         /* the kernels' own device time (CUDA events), summed over
                                the devices: a plain product's compute, a batch's panels'
                                kernels without the waits between them; 0 where not
                                timed (the emulated precision's stages)                  */
  double copy_in_ms;         /* host time spent copying operands into pinned staging    */
  double copy_out_ms;        /* host time spent copying results out of pinned staging   */
  double result_prep_ms;     /* host time preparing the result's pages (huge pages)     */
  double bytes_up, bytes_down;
  double bytes_peer;         /* received by peer copies, summed over the devices           */
  double operand_bytes;      /* op(A) and op(B) as the product's type holds them: bytes_up
                                over this is how many times the host read its operands (1:
                                each once, however many devices ran it)                  */
  long long panels, steps;
  /* Sums over every GPU product since load (this one included), so that a caller running many
   * products in one call (pagemtimes' pages that run alone) can take the difference. */
  double sum_total_ms, sum_copy_in_ms, sum_copy_out_ms;
  int devices;               /* devices (workers) that ran it: device[0 .. devices - 1]  */
  tilemm_cuda_device_stats device[TILEMM_MAX_WORKERS];
} tilemm_cuda_stats;

/* Fills *stats with the last GPU product's figures (all zero before the first). */
void tilemm_cuda_last_stats (tilemm_cuda_stats *stats);


/* ---------------------------------------------------------------- the table of a backend */

/* What the executor asks of a backend.  Every product runs as: begin (its turn on the
 * backend's state, on the caller's thread), then on each worker's thread worker_start, the
 * panels (product, or the emulated stages), worker_finish; then end.  Worker 0 of a product on
 * one device is the caller's own thread.  `state` is what begin made for this product (its
 * figures, a simulated device's memory): nothing outlives end.  The operations run the plan they
 * are given, the call's plan's, and select among its planned branches (the emulated moduli,
 * tilemm_emu_select); they apply no rule of the policy and read no setting (tests/check-layers.sh:
 * no_policy_below_the_plan, settings_reach_backends_in_the_plan): the copy teams, the staging,
 * a batch chunk's panels come in the plan. */
struct tilemm_batch_job_s; /* batch.h */
struct tilemm_copy_team_s; /* copy_team.h */
struct tilemm_exchange_s;  /* exchange.h */

typedef struct tilemm_backend_ops {
  const char *name;          /* "cpu", "gpu", "simulated"                                    */
  const char *device_kind;   /* how an error names a device: "CPU", "GPU", "simulated device" */
  /* Whether the backend can run here (TILEMM_ENOGPU with the reason when not). */
  tilemm_status (*probe) (tilemm_error *err);
  /* The facts a plan is made from; with_budgets: each device's memory budget too (a query per
   * device, asked only for products large enough to near it). */
  void (*facts) (int with_budgets, tilemm_device_facts *facts);
  /* One product's turn (config: the call's plan, a const tilemm_call_plan *, whose settings
   * for this backend it reads: the simulated devices' faults, the GPU's emulated blocks). */
  tilemm_status (*begin) (const void *config, void **state, tilemm_error *err);
  void (*end) (void *state, tilemm_status status);  /* the product's status: OK, stopped or failed */
  /* On the worker's thread before its first panel (bind it to `device`, its host copies to the
   * plan's `team`: NULL where the plan has none) and, on the caller's thread after every worker
   * stopped, for each that started (failed: free what it holds). */
  tilemm_status (*worker_start) (void *state, int worker, int device,
                                 const struct tilemm_copy_team_s *team, tilemm_error *err);
  void (*worker_finish) (void *state, int worker, int device, int failed);
  /* One panel of the native product C = op_a(A)·op_b(B) under `plan` (its variant, steps and
   * slots; a and b as stored), on worker `worker`.  stop: polled between steps (may be NULL). */
  tilemm_status (*product) (void *state, int worker, const tilemm_plan *plan, tilemm_op op_a,
                            const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                            const tilemm_view *c, const tilemm_stop *stop, tilemm_error *err);
  /* The emulated precision's stages on one panel: the statistics (merged into *stats), the
   * product under a plan made from every panel's statistics, or both in one pass over data
   * uploaded once (the plan then made by `decide`, the executor's one rule). */
  tilemm_status (*emu_stats) (void *state, int worker, const tilemm_emu_options *options,
                              tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                              const tilemm_view *b, tilemm_emu_stats *stats, tilemm_error *err);
  tilemm_status (*emu_product) (void *state, int worker, const tilemm_emu_plan *plan,
                                tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                const tilemm_view *b, const tilemm_view *c,
                                const tilemm_stop *stop, tilemm_emu_plan *used, tilemm_error *err);
  tilemm_status (*emu_whole) (void *state, int worker, const tilemm_emu_options *options,
                              const tilemm_emu_branches *branches, tilemm_op op_a,
                              const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                              const tilemm_view *c, const tilemm_stop *stop,
                              tilemm_emu_plan *used, tilemm_error *err);
  /* The emulated product whose plan cannot carry every pair: those it carries emulated, the
   * others exactly (tilemm_emu_multiply_split_cpu); the CPU's only (NULL elsewhere). */
  tilemm_status (*emu_split) (const tilemm_emu_options *options,
                              const tilemm_emu_branches *branches, tilemm_op op_a, const tilemm_view *a,
                              tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                              const tilemm_stop *stop, tilemm_emu_plan *used,
                              int64_t *exact_entries, tilemm_error *err);
  /* A chunk of a batch of pages (pagemtimes, batch.h): `count` pages of the job from page
   * `first`, in the panels its plan says (tilemm_batch_chunk_cut), on worker `worker`; NULL
   * where the executor runs the pages itself through `product` (the CPU). */
  tilemm_status (*batch) (void *state, int worker, const struct tilemm_batch_job_s *job,
                          int64_t first, int64_t count, const tilemm_stop *stop,
                          tilemm_error *err);
  /* Host-facing facts and housekeeping (NULL where the backend keeps nothing). */
  void (*release) (void);
  size_t (*bytes_held) (void);
  size_t (*pinned_bytes_held) (void);
  void (*last_stats) (struct tilemm_cuda_stats_s *stats);
  int (*device_count) (void);
  tilemm_status (*device_info) (int index, struct tilemm_device_info_s *info, tilemm_error *err);
  int (*current_device) (void);
  /* The pinned copies of each device of `devices` (rates[i] for devices->device[i]): alone and
   * all at once, for the machine's facts; NULL where the backend has no bus. */
  tilemm_status (*links) (const tilemm_workers *devices, tilemm_link_rates *rates,
                          tilemm_error *err);
  /* On the worker's thread after worker_start, before its first panel, where the call plan's
   * exchange is TILEMM_EXCHANGE_PEER: its share of the operand the workers share (a and b as
   * stored, whole) up from the host and published on `exchange`; every other share is copied
   * from its owner's device (or, an absent owner's, read from the host) once published, its
   * panels' kernels waiting for it on the device, never this thread on the host; NULL where
   * the backend has no peers. */
  tilemm_status (*share) (void *state, int worker, tilemm_op op_a, const tilemm_view *a,
                          tilemm_op op_b, const tilemm_view *b, struct tilemm_exchange_s *exchange,
                          tilemm_error *err);
  /* The emulated precision's int8 GEMM rate on `device` (int8 operations a second; 0: not
   * timed), an n×n×n product's modular GEMMs with the int8 GEMM `gemm` (tilemm_emu_gemm), for
   * the machine's facts; NULL where the backend has none. */
  tilemm_status (*int8_rate) (int device, int64_t n, int gemm, double *ops_per_s,
                              tilemm_error *err);
  /* `share` for the emulated precision's pass of statistics, where the call plan's emu_exchange
   * is TILEMM_EXCHANGE_PEER: the worker's share of the operand its panel holds whole up from the
   * host and published, the others copied from their owners' devices into the place its panel
   * reads the operand from (its statistics wait for every share, on the host for those not yet
   * published); NULL where the backend has no peers. */
  tilemm_status (*emu_share) (void *state, int worker, tilemm_op op_a, const tilemm_view *a,
                              tilemm_op op_b, const tilemm_view *b,
                              struct tilemm_exchange_s *exchange, tilemm_error *err);
} tilemm_backend_ops;

/* The tables the build has (src/exec/backends.c): the CPU's always, the GPU's in a CUDA build,
 * NULL otherwise. */
const tilemm_backend_ops *tilemm_backend_find (tilemm_backend backend);

/* The simulated devices of the CPU backend (src/cpu/simulated.c): a device copies its panel's
 * operands into memory of its own and computes there, as a GPU would; for tests, one can be
 * made slow or fail (tilemm_sim_config, src/exec/multi.h). */
extern const tilemm_backend_ops tilemm_sim_backend_ops;
/* Bytes the simulated devices hold now (0 after every product, whatever its end). */
size_t tilemm_sim_bytes_held (void);

/* The facts of `backend` (tilemm_backend_ops.facts), or "not built" where it is absent. */
void tilemm_backend_facts (tilemm_backend backend, int with_budgets, tilemm_device_facts *facts);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_BACKEND_H */
