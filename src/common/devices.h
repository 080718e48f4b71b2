/* devices.h — who computes a product: the workers, and the facts about a backend's devices that
 * a call's plan is made from.  Plain data, shared by every layer.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The executor (src/exec/) gathers the facts from the backends (src/cpu/, src/cuda/) once per
 * call, before the plan; the plan (src/common/call_plan.c) reads only these facts, never a
 * device, so it stays a pure function that any machine can test.
 */
#ifndef TILEMM_DEVICES_H
#define TILEMM_DEVICES_H

#include <stddef.h>

#include "host_cpus.h"
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

/* What the executor tells the plan about one backend's devices (tilemm_backend_ops.facts). */
typedef struct {
  int usable;                          /* the backend can run here (its probe answered OK)  */
  tilemm_status why_status;            /* ... else why not: its status ...                   */
  char why[384];                       /* ... and detail                                     */
  int total;                           /* devices seen, usable or not                        */
  int count;                           /* usable devices, in ordinal order ...               */
  int device[TILEMM_MAX_WORKERS];      /* ... their ordinals ...                             */
  int cc_major[TILEMM_MAX_WORKERS];    /* ... and compute capabilities (major) ...           */
  int multiprocessors[TILEMM_MAX_WORKERS]; /* ... and multiprocessors (the wgmma GEMM's
                                          persistent grid: tilemm_emu_gemm_grid of them)     */
  int current;                         /* the caller's device (-1: none)                     */
  int budgets;                         /* 1 when the memories below were asked (large
                                          products only)                                    */
  size_t memory_free[TILEMM_MAX_WORKERS];   /* device[i]'s memory free now plus what tilemm's
                                          workspaces hold there ...                         */
  size_t memory_total[TILEMM_MAX_WORKERS];  /* ... and its whole memory (0: not asked); the
                                          budget a product may hold is the plan's
                                          (tilemm_facts_budget: less the driver's margin)   */
  size_t staging_chunk_bytes;          /* one pinned staging chunk (the GPU's bus unit)     */
  int copy_threads;                    /* the staging's setting of host copy threads
                                          (TILEMM_COPY_THREADS; 0: none)                    */
  int wgmma;                           /* the build's Hopper int8 GEMM runs on the device    */
  int numa_node[TILEMM_MAX_WORKERS];   /* device[i]'s NUMA node (-1: unknown or none) ...    */
  tilemm_cpu_set local_cpus[TILEMM_MAX_WORKERS]; /* ... and the CPUs near it (sysfs of its
                                          PCI device; empty: unknown)                        */
  int peers_known;                     /* 1 when peer[][] was asked (several usable devices) */
  unsigned char peer[TILEMM_MAX_WORKERS][TILEMM_MAX_WORKERS]; /* device[i] can read device[j]'s
                                          memory directly (cudaDeviceCanAccessPeer; NVLink or
                                          PCIe P2P): a peer copy between them needs no host  */
} tilemm_device_facts;

/* How many of `available` workers the product `plan` (a plan for one device) gains from, and the
 * queue's panels: *queue is the plan with panel_rows, panel_cols set to the queue's panels (in
 * whole tiles).  With `named` set (the user named the devices), every worker is used that gets
 * at least one panel of one tile; otherwise the crossover above decides.  Returns 1 when the
 * product stays on one worker (then *queue is *plan).  Variants whose arithmetic depends on the
 * launch's shape (the split-k one) are never split, so results stay bitwise.  Pure (plan.c). */
int tilemm_plan_workers (tilemm_plan *queue, const tilemm_plan *plan, int available, int named,
                         const struct tilemm_machine_facts_s *facts);

/* The plan of one queue panel (rows × cols of Cᵀ): the parent's kernel choice, its own steps
 * and, under `limits` (may be NULL), its own panels (plan.c). */
tilemm_status tilemm_plan_for_panel (tilemm_plan *sub, const tilemm_plan *parent, int64_t rows,
                                     int64_t cols, const tilemm_limits *limits);

/* One GPU's pinned copies, bytes/s: each way alone, and each way while every GPU of the list
 * copies both ways at once (the GPU table's `links`, for the machine's facts). */
typedef struct {
  double up, down, up_busy, down_busy;
  double peer;   /* bytes/s it receives from the others by peer copies while every device of
                    the list receives from every other at once (as the exchange copies: one
                    stream of its own, a share from each); 0 where some pair cannot reach */
} tilemm_link_rates;

/* The budget of device ordinal `device` in *facts: the device bytes one product may hold there,
 * its free memory and tilemm's workspaces' less a margin for the driver, other libraries and
 * fragmentation (TILEMM_DEVICE_MARGIN_PARTS-th of the card, TILEMM_DEVICE_MARGIN_LEAST at least),
 * 1 at least; 0 when not asked or not there (no budget). */
#define TILEMM_DEVICE_MARGIN_PARTS 20
#define TILEMM_DEVICE_MARGIN_LEAST ((size_t) 256 << 20)
size_t tilemm_facts_budget (const tilemm_device_facts *facts, int device);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_DEVICES_H */
